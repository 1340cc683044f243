"""Images (media/): what preparing a screenshot costs before it is sent (read through the
attachment check, decoded, downscaled to 1568 px, re-encoded), and Pillow's import, paid once
when the first image is read (never at start-up). Target: a 4K screenshot under 500 ms.

The screenshot is drawn, not random: random pixels do not compress, and screenshots do.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _screenshot(path: Path, size: tuple[int, int]) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for y in range(0, size[1], 24):  # lines of "text" and a few coloured panels
        draw.rectangle((40, y + 4, 40 + (y * 37) % (size[0] - 80), y + 14), fill=(40, 40, 40))
    for x in range(0, size[0], size[0] // 6):
        draw.rectangle((x, 0, x + 120, 80), fill=(x % 255, 90, 200))
    image.save(path, format="PNG")


def measure() -> dict[str, float]:
    from valarmind_tui.media.images import load_image

    root = Path(tempfile.mkdtemp(prefix="valarmind-image-"))
    try:
        _screenshot(root / "shot.png", (3840, 2160))
        load_image(root, "shot.png")
        times = []
        for _ in range(5):
            start = time.perf_counter()
            image = load_image(root, "shot.png")
            times.append((time.perf_counter() - start) * 1000)
        sent_kb = len(image.data) / 1024
    finally:
        shutil.rmtree(root, ignore_errors=True)
    code = "import time; s = time.perf_counter(); import PIL.Image; print(time.perf_counter() - s)"
    imports = [float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout) * 1000 for _ in range(3)]
    return {"prepare": statistics.median(times), "sent_kb": sent_kb, "import": min(imports)}


def run() -> list[dict]:
    m = measure()
    return [
        {"name": "image: 4K screenshot read, downscaled, encoded (median)",
         "value": m["prepare"], "unit": "ms", "target": "≤ 500 ms"},
        {"name": "  bytes sent for it (1568x882 PNG)", "value": m["sent_kb"], "unit": "KB",
         "target": "≤ 3,662 KB"},
        {"name": "  Pillow import, once, on the first image", "value": m["import"],
         "unit": "ms", "target": "not at start-up"},
    ]
