"""Secret masking (safety/secrets): what it costs on a 1 MB tool result, on a streamed answer
and on a request that resends a long conversation (targets: 1 MB ≤ 100 ms, a streamed delta
≤ 50 µs, a resent conversation ≤ 1 ms).

The text is ValarMind's own source repeated to 1 MB (code, URLs, `token` and `key` words: what a
tool result looks like), with 40 values in the project's `.env` and the process's environment
as it is. detect-secrets' line plugins on 100 KB are the reference for why it is not used.
"""

from __future__ import annotations

import random
import shutil
import statistics
import string
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from valarmind_tui.safety.secrets import SecretMasker

SOURCE = Path(__file__).resolve().parents[1] / "valarmind_tui"


def _times(action: Callable[[], object], rounds: int) -> list[float]:
    found = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        found.append((time.perf_counter() - start) * 1000)
    return found


def measure() -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="valarmind-mask-"))
    try:
        letters = string.ascii_letters + string.digits
        (root / ".env").write_text("".join(
            f"VAR_{i}=v{i}-{''.join(random.choices(letters, k=24))}\n" for i in range(40)))
        code = "".join(p.read_text() for p in sorted(SOURCE.rglob("*.py")))
        text = (code * (1 + 1_000_000 // len(code)))[:1_000_000]
        masker = SecretMasker(root)
        masker.mask("warm the masker up", fresh=True)
        big = _times(lambda: masker.mask(text, fresh=True), 7)
        deltas = [text[i:i + 20] for i in range(0, 80_000, 20)]
        stream = _times(lambda: [masker.mask(d) for d in deltas], 3)
        history = [{"role": "tool", "content": text[i:i + 30_000]}
                   for i in range(0, 600_000, 30_000)]
        masker.mask_data(history, cached=True)
        resent = _times(lambda: masker.mask_data(history, cached=True), 7)
        reference = _detect_secrets(text[:100_000])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"big": statistics.median(big), "delta": min(stream) * 1000 / len(deltas),
            "resent": statistics.median(resent), "detect": reference}


def _detect_secrets(text: str) -> float:
    from detect_secrets.core.scan import _process_line_based_plugins
    from detect_secrets.settings import default_settings

    lines = sorted(enumerate(text.splitlines(), 1))
    start = time.perf_counter()
    with default_settings():
        list(_process_line_based_plugins(lines, filename="x.py"))
    return (time.perf_counter() - start) * 1000


def run() -> list[dict]:
    m = measure()
    return [
        {"name": "secret masking, 1 MB tool result (median)", "value": m["big"], "unit": "ms",
         "target": "≤ 100 ms"},
        {"name": "  a streamed delta of 20 characters", "value": m["delta"], "unit": "µs",
         "target": "≤ 50 µs"},
        {"name": "  a request resending 20 x 30 KB already masked", "value": m["resent"],
         "unit": "ms", "target": "≤ 1 ms"},
        {"name": "  reference: detect-secrets on 100 KB", "value": m["detect"], "unit": "ms",
         "target": "not used: too slow"},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<52} {row['value']:>10.2f} {row['unit']}")
