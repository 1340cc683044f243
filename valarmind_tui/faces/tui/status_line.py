"""The person's own status line (`status_line = "command"`, user config only).

The command runs by `bash -c` in the project folder with the session's state as JSON on stdin
(model, mode, cwd, branch, tokens, cost, context use); the first line it prints, its control
characters made visible, replaces the spend and the branch in the status bar. It runs in a task
of its own, never in a frame's path: on each change of that state, at most once every 300 ms,
within a time limit. A failure (an exit status, a time-out, nothing printed) shows the built-in
bar again and says why once; the next change tries again.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.core.visible_text import visible

if TYPE_CHECKING:
    from valarmind_tui.faces.tui.widgets.status import StatusBar
    from valarmind_tui.session.session import Session

RETRY_S = 10.0
"""A command that failed (slow on a loaded machine, say) is run again after this long."""
MIN_INTERVAL_S = 0.3
TIMEOUT_S = 2.0
MAX_CHARS = 160


def session_state(session: Session, status: StatusBar, context_tokens: int,
                  window: int | None) -> dict[str, Any]:
    """What the command reads on stdin; `context_tokens`: the conversation's size as the model
    last saw it (its last answer's prompt and completion tokens)."""
    totals = session.totals
    last_prompt = context_tokens
    return {
        "model": status.model, "fell_back": status.fell_back, "mode": status.mode,
        "cwd": str(session.project_root), "branch": status.branch,
        "session_id": session.session_id, "busy": status.busy,
        "tokens": {"prompt": totals.prompt_tokens, "completion": totals.completion_tokens,
                   "total": totals.tokens},
        "cost_usd": round(totals.cost_usd, 6),
        "unpriced_calls": totals.unpriced,
        "context": {"used_tokens": last_prompt, "window": window,
                    "used_share": round(last_prompt / window, 4) if window else None},
    }


class StatusLine:
    """Runs the person's command when the state changes, and shows its first line."""

    def __init__(self, command: str, cwd: Path,
                 state: Callable[[], Awaitable[dict[str, Any]]],
                 show: Callable[[str | None], None], warn: Callable[[str], None]) -> None:
        self.command = command
        self._cwd = cwd
        self._state = state
        self._show = show
        self._warn = warn
        self._last_run = 0.0
        self._scheduled: asyncio.Task[None] | None = None
        self._warned = False
        self._stale = False
        self._retry: asyncio.TimerHandle | None = None

    def changed(self) -> None:
        """The state may have changed: run the command soon (once for a burst of changes; a
        change while the command runs on an older state runs it once more after)."""
        self._stale = True
        if self._scheduled is None or self._scheduled.done():
            self._scheduled = asyncio.get_running_loop().create_task(self._run_soon())

    async def _run_soon(self) -> None:
        while self._stale:
            wait = self._last_run + MIN_INTERVAL_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_run = time.monotonic()
            self._stale = False  # a change from now on is not in the state read below
            line, problem = await self.run_once(await self._state())
            if problem is None:
                self._show(line)
                continue
            self._show(None)
            if not self._warned:
                self._warned = True
                self._warn(f"status_line failed ({problem}): the built-in status bar is shown")
            if not self._stale:  # an idle session changes nothing: try again in a while
                self._retry = asyncio.get_running_loop().call_later(RETRY_S, self.changed)

    async def run_once(self, state: dict[str, Any]) -> tuple[str | None, str | None]:
        """(its first line, None) or (None, why it failed)."""
        try:
            process = await asyncio.create_subprocess_exec(
                "bash", "-c", self.command, cwd=self._cwd, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        except OSError as exc:
            return None, str(exc)
        try:
            out, _ = await asyncio.wait_for(
                process.communicate(json.dumps(state).encode()), TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            return None, f"no answer within {TIMEOUT_S:g} s"
        if process.returncode != 0:
            return None, f"exit status {process.returncode}"
        first = out.decode("utf-8", "replace").strip().splitlines()[:1]
        if not first or not first[0].strip():
            return None, "it printed nothing"
        line = visible(first[0].strip())
        return (line if len(line) <= MAX_CHARS else line[:MAX_CHARS - 1] + "…"), None

    def stop(self) -> None:
        if self._scheduled is not None:
            self._scheduled.cancel()
        if self._retry is not None:
            self._retry.cancel()
