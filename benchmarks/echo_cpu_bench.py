"""The UI thread's CPU per keystroke in the idle prompt, robust to a shared machine's load (the
echo's wall time through tmux moves by milliseconds from one run to the next): `valarmind` in
tmux as memory_bench runs it, a few answered prompts, then KEYS 'z's typed one by one at the
prompt (50-150 ms apart, the line emptied every KEYS_PER_LINE keys), with stamps in the launched
process (time.thread_time of the event-loop thread, time.process_time of the whole process):
- key -> frame: from the app taking the key (App.on_event) to the end of the screen's update
  that drew the prompt (the frame handed to the driver's writer thread);
- per key, all: from one key to the next, all the UI thread did (the edit's messages handled
  after the frame too; no other work runs at an idle prompt between keys);
- per key, process: the same for every thread of the UI process (the input and writer threads);
- the echo's wall time as a person's terminal sees it (tmux, as memory_bench's idle echo).
Medians over the keys. `--profile FILE` writes a cProfile of the UI thread over the typing.

Issue #36, one run each, alternating main and the branch, load 3.4-6.5 (docs/turn-speed.md, "A
keystroke's CPU"): key -> frame 1.98-2.01 -> 1.31-1.38 ms, per key 2.46-2.49 -> 1.70-1.84 ms
once the echo rendered only the prompt's changed row.

Run alone: `.ci/with-env python benchmarks/echo_cpu_bench.py [--prompts N] [--keys N]
[--profile FILE]`. The stamps patch Textual's App.on_event and Screen._on_timer_update in the
launched process (`--app`), so a rename there shows here as an error, not as a wrong figure.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETTLE_S = 8.0
"""After the session is ready: LiteLLM's import in the model process and the warm-up end."""


def _stamped_app(out: Path, profile: Path | None) -> None:
    """Run `valarmind` with the stamps; `out` gets them (JSON, ms) when it exits."""
    import cProfile

    from textual import events
    from textual.app import App
    from textual.screen import Screen

    from valarmind_tui.faces.tui.widgets.prompt import PromptInput

    keys: list[dict[str, float]] = []
    profiler = cProfile.Profile() if profile is not None else None
    on_event = App.on_event

    async def stamped_event(self: Any, event: Any) -> None:
        if isinstance(event, events.Key) and event.key == "z":
            if profiler is not None and not keys:
                profiler.enable()
            keys.append({"cpu": time.thread_time(), "process": time.process_time(),
                         "wall": time.perf_counter()})
        await on_event(self, event)

    update = Screen._on_timer_update

    def stamped_update(self: Any) -> None:
        drawn = any(isinstance(w, PromptInput) for w in self._dirty_widgets)
        update(self)
        if drawn and keys and "frame_cpu" not in keys[-1]:
            keys[-1]["frame_cpu"] = time.thread_time()
            keys[-1]["frame_wall"] = time.perf_counter()

    # why the ignores below: the stamps replace methods of the launched process's classes
    App.on_event = stamped_event  # type: ignore[method-assign]  # why: above
    Screen._on_timer_update = stamped_update  # type: ignore[method-assign]  # why: above
    from valarmind_tui.cli.main import main

    sys.argv = ["valarmind"]
    code = 1
    try:
        code = main()
    finally:
        if profiler is not None and profile is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        out.write_text(json.dumps(keys))
    os._exit(code)


def _figures(keys: list[dict[str, float]]) -> dict[str, float]:
    """Medians in ms over the keys (the last key has no next one and is left out of `all`)."""
    framed = [k for k in keys if "frame_cpu" in k]
    pairs = [(a, b) for a, b in zip(keys, keys[1:], strict=False)
             if b["wall"] - a["wall"] < 0.3]  # not across the line being emptied
    return {
        "key_to_frame_cpu_ms": statistics.median(k["frame_cpu"] - k["cpu"] for k in framed) * 1e3,
        "key_to_frame_wall_ms": statistics.median(
            k["frame_wall"] - k["wall"] for k in framed) * 1e3,
        "per_key_cpu_ms": statistics.median(b["cpu"] - a["cpu"] for a, b in pairs) * 1e3,
        "per_key_process_ms": statistics.median(
            b["process"] - a["process"] for a, b in pairs) * 1e3,
    }


def run(prompts: int = 3, keys: int = 120, profile: Path | None = None) -> dict[str, float]:
    """One launch: medians in ms (module docstring), and the echo's wall p50 through tmux."""
    from benchmarks.e2e_bench import PacedServer, _env, _project, _status
    from benchmarks.e2e_server import END_MARKER
    from benchmarks.e2e_terminal import Terminal
    from benchmarks.memory_bench import ANSWER_TOKENS, RATE, idle_echo

    with tempfile.TemporaryDirectory(prefix="valarmind-echo-cpu-") as tmp:
        home = Path(tmp)
        out = home / "stamps.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--app", str(out)]
        if profile is not None:
            command += ["--profile-to", str(profile.resolve())]
        server = PacedServer(RATE, ANSWER_TOKENS)
        term: Terminal | None = None
        try:
            root = _project(home, server.port)
            term = Terminal(command, root, _env(home))
            term.wait(lambda lines: "mode:" in _status(lines), 60, "the session")
            time.sleep(SETTLE_S)
            for n in range(1, prompts + 1):
                prompt = f"explain app.py, part {n}"
                term.type(prompt)
                term.wait(lambda lines, p=prompt: any(p in line for line in lines), 10,
                          "the typed prompt")
                term.key("Enter")
                term.wait(lambda lines, m=f"{END_MARKER}-{n}": any(m in line for line in lines),
                          60, f"answer {n}")
                term.wait(lambda lines: _status(lines).lstrip().startswith("○"), 30,
                          "the turn to finish")
            time.sleep(1.0)
            echoes = idle_echo(term, keys)
        finally:
            if term is not None:
                term.key("C-c")
                term.key("C-c")
                deadline = time.monotonic() + 10
                while not out.exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
                term.close()
            server.stop()
        figures = _figures(json.loads(out.read_text()))
    figures["echo_wall_p50_ms"] = statistics.median(echoes) * 1e3
    return figures


if __name__ == "__main__":
    if "--app" in sys.argv:
        profile_to = sys.argv.index("--profile-to") + 1 if "--profile-to" in sys.argv else 0
        _stamped_app(Path(sys.argv[sys.argv.index("--app") + 1]),
                     Path(sys.argv[profile_to]) if profile_to else None)

    def option(name: str, default: str) -> str:
        return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

    found = run(int(option("--prompts", "3")), int(option("--keys", "120")),
                Path(option("--profile", "")) if "--profile" in sys.argv else None)
    print(f"load average: {os.getloadavg()[0]:.1f}")
    for name, value in found.items():
        print(f"{name.replace('_', ' ')}: {value:.2f}")
