"""One ACP session bound to one `Session`: its events go to the client in order, its approvals
become `session/request_permission`.

A bus listener (synchronous) puts every event on a queue; one sender task turns them into
session updates, so the client sees them in the order they happened. An approval is asked in a
task of its own once the updates before it were sent, so a waiting person never holds up the
stream, and the answer goes back through `Session.answer_approval`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from dataclasses import dataclass
from typing import Any

from acp.schema import AllowedOutcome, PermissionOption

from valarmind_tui.core.events import ApprovalRequested, Event
from valarmind_tui.faces.acp.updates import UpdateTranslator
from valarmind_tui.safety.gate.approval import ApprovalAnswer
from valarmind_tui.safety.visible_fields import visible_fields
from valarmind_tui.session.session import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OwnUpdate:
    """An update of the face's own (available commands...), queued behind the events."""

    update: Any


PERMISSION_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_session", name="Always allow (this session)",
                     kind="allow_always"),
    PermissionOption(option_id="deny", name="Reject", kind="reject_once"),
]
DECISIONS = {"allow_once": "allow_once", "allow_session": "allow_session", "deny": "deny"}


class SessionLink:
    """Streams one Session's events to the client under `session_id`."""

    def __init__(self, session: Session, session_id: str, client: Any) -> None:
        self.session = session
        self.session_id = session_id
        self.client = client
        self.translator = UpdateTranslator(session.project_root, session.tools.get)
        self._queue: asyncio.Queue[Event | OwnUpdate] = asyncio.Queue()
        self._asking: set[asyncio.Task[None]] = set()
        self._ready = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._remove = session.bus.add_listener(self._on_event)
        self._sender = asyncio.create_task(self._send_loop())

    def start_after_reply(self) -> None:
        """Let queued updates go once the current request's reply is on its way (the reply is
        queued before the loop runs its next callback), so the client knows the session id."""
        asyncio.get_running_loop().call_soon(self._ready.set)

    async def send(self, update: Any) -> None:
        """One session update to the client (a lost client is logged, not raised)."""
        try:
            await self.client.session_update(session_id=self.session_id, update=update)
        except Exception:
            log.warning("could not send a session update", exc_info=True)

    def _on_event(self, event: Event) -> None:
        """Bus listener: events published off the loop's thread are handed over safely."""
        if threading.get_ident() == self._thread:
            self._queue.put_nowait(event)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, event)

    def post(self, update: Any) -> None:
        """Queue an update of the face's own (available commands...) behind the events."""
        self._queue.put_nowait(OwnUpdate(update))

    async def flush(self) -> None:
        """Wait until every event published so far has been sent."""
        await self._queue.join()

    async def _send_loop(self) -> None:
        await self._ready.wait()
        while True:
            item = await self._queue.get()
            try:
                for update in self._updates(item):
                    await self.send(update)
            except Exception:  # one bad event never stops the stream
                log.exception("could not translate %s", type(item).__name__)
            finally:
                self._queue.task_done()

    def _updates(self, item: Event | OwnUpdate) -> list[Any]:
        if isinstance(item, OwnUpdate):
            return [item.update]
        event = visible_fields(item)  # editors show text, some in a terminal
        if isinstance(event, ApprovalRequested):  # asked beside the stream, never holding it
            task = asyncio.create_task(self._ask(event))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)
        return self.translator.updates(event)

    async def _ask(self, event: ApprovalRequested) -> None:
        answer = ApprovalAnswer("deny", feedback="The client did not answer the request.")
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=self.translator.approval_call(event),
                options=PERMISSION_OPTIONS)
            outcome = response.outcome
            if isinstance(outcome, AllowedOutcome) and outcome.option_id in DECISIONS:
                decision = DECISIONS[outcome.option_id]
                feedback = "Rejected by the person in the editor." if decision == "deny" else None
                # why the ignore below: option ids match the SDK's Literal
                answer = ApprovalAnswer(decision, feedback=feedback)  # type: ignore[arg-type]  # why: above
            else:
                answer = ApprovalAnswer("deny", feedback="cancelled")
        except Exception as exc:
            log.warning("permission request failed: %s", exc)
        self.session.answer_approval(event.request_id, answer)

    async def close(self) -> None:
        self._remove()
        for task in (self._sender, *self._asking):
            task.cancel()
        for task in (self._sender, *self._asking):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.session.close()
