"""/rewind to before one of the person's messages: the files, the conversation, or both.

The points are the user messages of the stored conversation, each with the time it was sent.
Files go back to the state before the first checkpointed turn recorded at or after that time
(`SessionCheckpoints.rewind`, so later turns stay redoable); the conversation is cut in the
store before that message (and the event log with it), so a restart or `--resume` finds it cut.
A preview writes nothing and names the files changed by hand since ValarMind left them; applying
asks again (writes nothing) when there are such files, unless told to overwrite or keep them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from valarmind_tui.checkpoints.turns import Restored, SessionCheckpoints
from valarmind_tui.context.attachments import split_attachments
from valarmind_tui.context.compaction import SUMMARY_HEADER
from valarmind_tui.core.errors import UsageError
from valarmind_tui.store.sessions import SessionStore

Scope = Literal["files", "conversation", "both"]
SCOPES: tuple[Scope, ...] = ("files", "conversation", "both")
OnConflict = Literal["ask", "overwrite", "keep"]


@dataclass(frozen=True)
class RewindPoint:
    """One message the person sent: the conversation and the files can go back to before it."""

    number: int
    """1-based, counting the person's messages (compaction summaries are not counted)."""
    seq: int
    """The message's place in the store."""
    text: str
    """What the person typed (attached files left out)."""
    at: float | None
    """When it was sent (None for messages stored before prompts were timed)."""
    turn: int | None
    """The first checkpointed turn since: the files go back to before it (None: no file
    changed since, or the time is unknown)."""


@dataclass(frozen=True)
class RewindOutcome:
    """What /rewind did, or would do (`preview`), or asks about (`needs_answer`)."""

    point: RewindPoint
    scope: Scope
    files: Restored | None = None
    """The files' restore, or its preview; None when the scope leaves files alone or no
    checkpoint lies after the point."""
    dropped: int = 0
    """Messages cut from the conversation (or that would be)."""
    history: list[dict[str, Any]] | None = None
    """The conversation after the cut (None when it was not cut)."""
    preview: bool = False
    needs_answer: bool = False
    """Files were changed by hand since: nothing written; ask whether to overwrite them."""
    notes: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[str]:
        return self.files.report.conflicts if self.files else []

    def describe(self) -> str:
        head = f"message {self.point.number} ({_first_line(self.point.text, 50)!r})"
        wrote = not (self.preview or self.needs_answer)
        lines = [f"{'Rewound' if wrote else 'Rewinding'} to before {head}: {self.scope}."]
        if self.scope != "files":
            verb = "Cut" if wrote else "Would cut"
            lines.append(f"{verb} {self.dropped} messages from the conversation.")
        lines += self.notes
        if self.files is not None:
            lines.append(self.files.describe())
        if self.needs_answer:
            lines.append("Nothing written yet: these files were changed by hand since "
                         f"ValarMind left them: {', '.join(self.conflicts)}. Overwrite them "
                         "(--force) or keep them as they are (--keep)?")
        return "\n".join(lines)


class Rewinder:
    """The points and the rewinds of one stored session (blocking parts run in threads)."""

    def __init__(self, checkpoints: SessionCheckpoints, store: SessionStore | None,
                 session_id: str | None) -> None:
        if store is None or session_id is None:
            raise UsageError("This session is not stored, so its conversation cannot be "
                             "rewound; /rewind N still restores the files.")
        self.checkpoints = checkpoints
        self.store = store
        self.session_id = session_id

    def points(self) -> list[RewindPoint]:
        """The person's messages, oldest first (blocking: reads the store and the shadow
        repository)."""
        turns = [t for t in self.checkpoints.turns() if t.state != "dropped"]
        points: list[RewindPoint] = []
        for prompt in self.store.prompts(self.session_id):
            if prompt.text.startswith(SUMMARY_HEADER):
                continue
            turn = None
            if prompt.at is not None:
                turn = next((t.number for t in turns if t.at >= prompt.at), None)
            text = split_attachments(prompt.text)[0]
            points.append(RewindPoint(len(points) + 1, prompt.seq, text, prompt.at, turn))
        return points

    def point(self, number: int) -> RewindPoint:
        points = self.points()
        if not 1 <= number <= len(points):
            raise UsageError(f"No message {number}: this conversation has {len(points)}.")
        return points[number - 1]

    async def rewind(self, point: RewindPoint, scope: Scope, *, preview: bool = False,
                     on_conflict: OnConflict = "ask") -> RewindOutcome:
        """Rewind to before `point`. With conflicts and `on_conflict="ask"`, nothing is
        written and the outcome `needs_answer`."""
        notes = []
        files: Restored | None = None
        if scope != "conversation":
            if point.turn is None:
                notes.append("No file was changed by ValarMind since that message."
                             if point.at is not None else
                             "That message is older than timed prompts: files not rewound.")
            else:
                files = await self.checkpoints.rewind(point.turn, preview=True)
        dropped = await asyncio.to_thread(self._count_after, point)
        asking = bool(files and files.report.conflicts) and on_conflict == "ask"
        if preview or asking:
            return RewindOutcome(point, scope, files, dropped, preview=preview,
                                 needs_answer=asking and not preview, notes=notes)
        if files is not None:
            files = await self.checkpoints.rewind(point.turn or 0,
                                                  force=on_conflict == "overwrite")
        history = None
        if scope != "files":
            history = await asyncio.to_thread(self._cut, point)
        return RewindOutcome(point, scope, files, dropped, history, notes=notes)

    def _count_after(self, point: RewindPoint) -> int:
        return self.store.count_messages(self.session_id, since=point.seq)

    def _cut(self, point: RewindPoint) -> list[dict[str, Any]]:
        self.store.truncate(self.session_id, point.seq)
        return self.store.messages(self.session_id)


def _first_line(text: str, width: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"
