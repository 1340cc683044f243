"""The UI thread's CPU on a turn's critical moments, robust to a shared machine's load (wall
times there move by tens of ms from one run to the next): `valarmind` in tmux as turn_bench runs
it, with stamps (time.thread_time of the UI's event-loop thread) around three steps:
- Enter -> request: from the prompt's Enter until the request is handed to the model process;
- first words -> frame: from the answer's first text until the layout frame that shows it;
- last words -> frame: from the answer's TurnFinished until the frame that shows it is handed
  to the terminal (a layout frame or, when the answer kept its height, a repaint of its lines).
Medians over the later prompts of one launch (the first is the warm-up's).

Issue #36, one run each, alternating, load average 3-4 on the 2 shared cores (20-token answers
for Enter -> request, 200-token answers for the frames): Enter -> request 5.1-6.2 ms before the
tool schemas were made once and the tokenizer's thread round trip was skipped, 3.1-3.6 after;
first words -> frame 10.7-11.6 before one renderer per app and theme, 9.0-11.0 after; last
words -> frame 8.9-9.6 / 8.3-9.8 (unchanged: the open block's Markdown and Textual's layout).

Run alone: `.ci/with-env python benchmarks/turn_cpu_bench.py [--tokens N] [--prompts N]`.
The stamps patch the app's own methods and Textual's Screen._on_timer_update and App._display in
the launched process (`--app`), so a rename there shows here as an error, not as a wrong figure.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STEPS = ("enter_to_request", "first_words_to_frame", "last_words_to_frame")


def _stamped_app(out: Path) -> int:
    """Run `valarmind` with the stamps; each layout frame rewrites `out` (JSON lists, ms)."""
    from textual.app import App
    from textual.screen import Screen

    from valarmind_tui.core.events import TextDelta, TurnFinished, TurnStarted
    from valarmind_tui.faces.tui import app as app_module
    from valarmind_tui.faces.tui.widgets.chat import ChatView
    from valarmind_tui.providers.process import client

    cpu = time.thread_time
    found: dict[str, list[float]] = {step: [] for step in STEPS}
    began: dict[str, float] = {}
    armed = [False]

    send_prompt = app_module.ValarMindApp._send_prompt

    async def stamped_send(self: Any, text: str) -> None:
        began["enter_to_request"] = cpu()
        await send_prompt(self, text)

    open_request = client.Channel._open

    def stamped_open(self: Any, sink: Any, request: dict[str, Any]) -> int:
        if request.get("op") == "stream" and "enter_to_request" in began:
            found["enter_to_request"].append(cpu() - began.pop("enter_to_request"))
        return open_request(self, sink, request)

    handle_event = ChatView.handle_event

    async def stamped_event(self: Any, event: Any) -> None:
        if getattr(event, "agent_id", None) == "main":
            if isinstance(event, TurnStarted):
                armed[0] = True
            elif isinstance(event, TextDelta) and armed[0]:
                armed[0] = False
                began["first_words_to_frame"] = cpu()
            elif isinstance(event, TurnFinished):
                began["last_words_to_frame"] = cpu()
        await handle_event(self, event)

    update = Screen._on_timer_update

    def stamped_update(self: Any) -> None:
        layout = self._layout_required
        update(self)
        if layout and "first_words_to_frame" in began:
            found["first_words_to_frame"].append(cpu() - began.pop("first_words_to_frame"))
            out.write_text(json.dumps({k: [v * 1000 for v in found[k]] for k in STEPS}))

    display = App._display

    def stamped_display(self: Any, screen: Any, changes: Any) -> None:
        display(self, screen, changes)
        if changes is not None and "last_words_to_frame" in began:  # layout or not
            found["last_words_to_frame"].append(cpu() - began.pop("last_words_to_frame"))
            out.write_text(json.dumps({k: [v * 1000 for v in found[k]] for k in STEPS}))

    # why the ignores below: the stamps replace methods of the launched process's classes
    app_module.ValarMindApp._send_prompt = stamped_send  # type: ignore[method-assign]  # why: above
    client.Channel._open = stamped_open  # type: ignore[method-assign]  # why: above
    ChatView.handle_event = stamped_event  # type: ignore[method-assign]  # why: above
    Screen._on_timer_update = stamped_update  # type: ignore[method-assign]  # why: above
    App._display = stamped_display  # type: ignore[method-assign]  # why: above
    from valarmind_tui.cli.main import main

    sys.argv = ["valarmind"]
    code = main()
    os._exit(code)


def run(prompts: int = 12, tokens: int = 20) -> dict[str, float]:
    """Medians in ms over the later prompts of one launch."""
    import tempfile

    import benchmarks.turn_bench as turn_bench

    with tempfile.TemporaryDirectory(prefix="valarmind-turn-cpu-") as tmp:
        out = Path(tmp) / "stamps.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--app", str(out)]
        turn_bench._command = lambda: command  # the launch runs this file with the stamps
        turn_bench.launch(prompts, 0.0, tokens)
        found = json.loads(out.read_text())
    return {step: statistics.median(found[step][1:]) for step in STEPS if found[step][1:]}


if __name__ == "__main__":
    if "--app" in sys.argv:
        _stamped_app(Path(sys.argv[sys.argv.index("--app") + 1]))

    def option(name: str, default: int) -> int:
        return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

    for step, value in run(option("--prompts", 12), option("--tokens", 20)).items():
        print(f"UI thread CPU, {step.replace('_', ' ')}: {value:.2f} ms")
