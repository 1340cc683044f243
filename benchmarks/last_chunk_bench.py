"""Where the lag from the model server's last chunk to the last words on screen goes (issue #36):
`valarmind` in tmux as turn_bench runs it, wall-clock stamps (time.time(), comparable across
processes) at each step of a short answer's end, per later prompt:

- server: the model server writes the answer's last content chunk (its LAST line);
- litellm: the model process gets the last text from LiteLLM;
- piped: the model process writes the finish to the face;
- read: the face's reader thread has the finish;
- finished: the agent loop publishes TurnFinished;
- chat: the chat has handled TurnFinished (the open block flushed);
- frame: the first frame after it begins (`layout` says whether it was a full layout), and
- shown: that frame is handed to the terminal's writer thread;
- written: the writer thread has written it (it needs the interpreter lock for that);
- screen: tmux shows the last words (the harness's poll, every ~2 ms).

Each step is printed as ms after the server's last chunk (median over the later prompts), with
the UI thread's CPU from `finished` to `shown`. The stamps patch the app's own methods and Textual's
Screen/App in the launched process (`--app`); the model process is that process forked, so the
patches reach it too. A rename there shows here as an error, not as a wrong figure.

Run alone: `.ci/with-env python benchmarks/last_chunk_bench.py [--prompts N] [--tokens N]
[--rate TOKENS_PER_S] [--each]` (turn_bench's 1,000 tokens/s by default; peers_bench streams at
20,000).
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

from benchmarks.e2e_bench import PacedServer, _status, ready_session  # noqa: E402
from benchmarks.e2e_server import END_MARKER  # noqa: E402
from benchmarks.e2e_terminal import Terminal  # noqa: E402

STEPS = ("litellm", "finish", "piped", "read", "finished", "chat", "frame", "shown", "written",
         "screen")


def _stamped_app(out: Path, trace: bool) -> None:
    """Run `valarmind` with the stamps: one JSON line per stamp appended to `out`; `trace`:
    also each callback of the UI's event loop that ran TRACE_MS or more between TurnFinished
    and the frame handed to the terminal."""
    from textual._compositor import Compositor
    from textual.app import App
    from textual.drivers._writer_thread import WriterThread
    from textual.screen import Screen

    from valarmind_tui.agents.loop import AgentLoop
    from valarmind_tui.core.events import TurnFinished
    from valarmind_tui.faces.tui.widgets.chat import ChatView
    from valarmind_tui.providers.io_thread import Inbox
    from valarmind_tui.providers.process.worker import Worker

    def stamp(step: str, at: float | None = None, **extra: Any) -> None:
        line = json.dumps({"step": step, "t": at or time.time(), **extra}) + "\n"
        with out.open("a") as file:  # the model process too: a forked copy of this one
            file.write(line)

    send = Worker.send
    last_text = [0.0]

    def stamped_send(self: Any, message: dict[str, Any], *, text: bool = False) -> None:
        if (message.get("d") or {}).get("content"):
            last_text[0] = time.time()
        if message.get("f"):
            stamp("finish")
        send(self, message, text=text)

    flush = Worker._flush

    def stamped_flush(self: Any) -> None:
        finish = any("d" in m and m.get("f") for m in self._unsent)
        flush(self)
        if finish:
            stamp("litellm", last_text[0])
            stamp("piped")

    post = Inbox.post

    def stamped_post(self: Any, item: Any, *, urgent: bool) -> None:
        if isinstance(item, dict) and "d" in item and item.get("f"):
            stamp("read")
        post(self, item, urgent=urgent)

    finished = AgentLoop._finished

    def stamped_finished(self: Any, *args: Any) -> None:
        finished(self, *args)
        if self.agent_id == "main":
            stamp("finished", cpu=time.thread_time())
            window[0] = True

    handle_event = ChatView.handle_event
    armed, window, unwritten = [False], [False], [False]
    threads_at: list[dict[str, float]] = [{}]

    async def stamped_event(self: Any, event: Any) -> None:
        await handle_event(self, event)
        if isinstance(event, TurnFinished) and event.agent_id == "main":
            stamp("chat")
            armed[0] = True

    update = Screen._on_timer_update
    spent: dict[str, float] = {}

    def stamped_update(self: Any) -> None:
        if armed[0]:
            stamp("frame", layout=self._layout_required)
            spent.clear()
        update(self)

    def timed(name: str, method: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            if not armed[0]:
                return method(*args, **kwargs)
            started = time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.thread_time() - started
        return run

    Compositor.reflow = timed("reflow", Compositor.reflow)  # type: ignore[method-assign]
    Compositor.render_update = timed(  # type: ignore[method-assign]
        "render", Compositor.render_update)

    display = App._display

    def stamped_display(self: Any, screen: Any, update: Any) -> None:
        words = armed[0] and update is not None
        unwritten[0] = unwritten[0] or words  # before the writer thread can see the frame
        started = time.thread_time()
        display(self, screen, update)
        spent["display"] = time.thread_time() - started
        if words:
            armed[0] = window[0] = False
            stamp("shown", cpu=time.thread_time(), **{k: v * 1000 for k, v in spent.items()})

    def stamped_run(self: Any) -> None:
        while (text := self._queue.get()) is not None:
            self._file.write(text)
            if self._queue.qsize() == 0:
                self._file.flush()
                if unwritten[0]:
                    unwritten[0] = False
                    stamp("written")
        self._file.flush()

    # why the ignores below: the stamps replace methods of the launched process's classes
    Worker.send = stamped_send  # type: ignore[method-assign]  # why: above
    Worker._flush = stamped_flush  # type: ignore[method-assign]  # why: above
    Inbox.post = stamped_post  # type: ignore[method-assign]  # why: above
    AgentLoop._finished = stamped_finished  # type: ignore[method-assign]  # why: above
    ChatView.handle_event = stamped_event  # type: ignore[method-assign]  # why: above
    Screen._on_timer_update = stamped_update  # type: ignore[method-assign]  # why: above
    App._display = stamped_display  # type: ignore[method-assign]  # why: above
    WriterThread.run = stamped_run  # type: ignore[method-assign]  # why: above
    if trace:
        _trace_callbacks(stamp, lambda: window[0])
        from valarmind_tui.faces.tui.event_routing import EventRouter

        route = EventRouter.route

        async def traced_route(self: Any, event: Any) -> None:
            if window[0] or armed[0]:
                stamp("slow", what=f"route {type(event).__name__}")
            if isinstance(event, TurnFinished) and event.agent_id == "main":
                threads_at[0] = _thread_cpu()
            await route(self, event)

        update_now = Screen._on_timer_update

        def traced_update(self: Any) -> None:
            if armed[0] and threads_at[0]:
                now = _thread_cpu()
                used = {name: round(now[name] - cpu, 2) for name, cpu in threads_at[0].items()
                        if name in now and now[name] - cpu >= 0.1}
                stamp("slow", what=f"threads' CPU since TurnFinished: {used}")
            update_now(self)

        Screen._on_timer_update = traced_update  # type: ignore[method-assign]  # why: trace
        EventRouter.route = traced_route  # type: ignore[method-assign]  # why: the trace

    from valarmind_tui.cli.main import main

    sys.argv = ["valarmind"]
    code = main()
    os._exit(code)


TRACE_MS = 0.3


def _thread_cpu() -> dict[str, float]:
    """CPU ms of each thread of this process, by name."""
    import threading

    found = {}
    for thread in threading.enumerate():
        try:
            clock = time.pthread_getcpuclockid(thread.ident or 0)
            found[thread.name] = time.clock_gettime(clock) * 1000
        except (OSError, ProcessLookupError):
            continue
    return found


def _trace_callbacks(stamp: Any, tracing: Any) -> None:
    import asyncio.events

    run = asyncio.events.Handle._run

    def timed(self: Any) -> None:
        if not tracing():
            run(self)
            return
        started, cpu = time.perf_counter(), time.thread_time()
        run(self)
        spent = (time.perf_counter() - started) * 1000
        if spent >= TRACE_MS:
            cpu_ms = round((time.thread_time() - cpu) * 1000, 2)
            callback = getattr(self._callback, "__self__", None)
            coro = getattr(callback, "get_coro", lambda: None)()
            what = getattr(coro, "__qualname__", None) or repr(self._callback)[:120]
            stamp("slow", ms=round(spent, 2), cpu_ms=cpu_ms, what=what)

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]  # why: the trace


def _per_prompt(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stamps cut into prompts: each ends with its `written` (the first of each step kept)."""
    prompts: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in sorted(lines, key=lambda line: line["t"]):
        current.setdefault(line["step"], line)
        if line["step"] == "written":
            prompts.append(current)
            current = {}
    return prompts


def _turn(term: Terminal, server: PacedServer, n: int) -> tuple[float, float]:
    """(server's last chunk, screen showing it): wall-clock seconds."""
    prompt = f"explain app.py, part {n}"
    term.type(prompt)
    term.wait(lambda lines: any(prompt in line for line in lines), 10, "the typed prompt")
    time.sleep(0.3)
    term.key("Enter")
    marker = f"{END_MARKER}-{n}"
    drawn = term.wait(lambda lines: any(marker in line for line in lines), 30, "the answer")
    term.wait(lambda lines: _status(lines).lstrip().startswith("○"), 30, "the turn's end")
    time.sleep(0.3)
    return float(server.wait("LAST", n)[0]), drawn


def run(prompts: int = 11, tokens: int = 20, rate: float = 1000, trace: bool = False
        ) -> list[dict[str, float]]:
    """Per later prompt: ms after the server's last chunk of each step, and the UI thread's
    CPU from TurnFinished to the frame handed to the terminal (`cpu`)."""
    with tempfile.TemporaryDirectory(prefix="valarmind-last-chunk-") as tmp:
        home, out = Path(tmp), Path(tmp) / "stamps.jsonl"
        server = PacedServer(rate, tokens)
        command = [sys.executable, str(Path(__file__).resolve()), "--app", str(out),
                   *(["--trace"] if trace else [])]
        with ready_session(server, home, command=command) as term:
            ends = [_turn(term, server, n) for n in range(1, prompts + 1)]
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        if trace:
            for line in lines:
                if line["step"] in ("slow", "finished", "shown"):
                    print(f'{line["t"]:.4f} {line["step"]} {line.get("ms", "")} '
                          f'cpu {line.get("cpu_ms", "")} {line.get("what", "")}')
        stamped = _per_prompt(lines)
    figures = []
    for (last, drawn), stamps in list(zip(ends, stamped, strict=False))[1:]:
        row = {step: (stamps[step]["t"] - last) * 1000 for step in STEPS[:-1] if step in stamps}
        row["screen"] = (drawn - last) * 1000
        row["layout"] = float(stamps["frame"]["layout"])
        row["cpu"] = (stamps["shown"]["cpu"] - stamps["finished"]["cpu"]) * 1000
        for part in ("reflow", "render", "display"):
            row[part] = stamps["shown"].get(part, 0.0)
        figures.append(row)
    return figures


if __name__ == "__main__":
    if "--app" in sys.argv:
        _stamped_app(Path(sys.argv[sys.argv.index("--app") + 1]), "--trace" in sys.argv)

    def option(name: str, default: float) -> float:
        return float(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

    rows = run(int(option("--prompts", 11)), int(option("--tokens", 20)),
               option("--rate", 1000), "--trace" in sys.argv)
    if "--each" in sys.argv:
        for row in rows:
            print({k: round(v, 1) for k, v in row.items()})
    print("ms after the server's last chunk, median of the later prompts:")
    for key in (*STEPS, "layout", "cpu", "reflow", "render", "display"):
        values = [row[key] for row in rows if key in row]
        if values:
            print(f"  {key:<9} {statistics.median(values):7.1f}")
