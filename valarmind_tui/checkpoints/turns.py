"""Checkpoints of one session's turns, and /undo, /redo and /rewind over them.

A turn is one submitted prompt. Before its first write or command (the loop calls
`before_change` for every write- or execute-risk tool call) the work tree is recorded; before each
later call again when something changed; when the prompt ends, the state it left. All of it is in
the shadow repository under `refs/valarmind/<session>/<turn>/`:

    1, 2, ...   before the turn's first change, then before each later change that found new ones
    after       the work tree the turn left
    undone      present while the turn is undone (/redo puts it back)
    dropped     an undone turn a newer turn replaced (no longer redoable)

so a later process (`valarmind undo`, `rewind`) finds them again. Blocking git work runs in a
thread; events are published from the event loop.

Another session or program may change files while a turn runs (two `valarmind -p` on one
project), so the whole tree's difference is not the turn's: after each write or command
(`after_change`) the paths that call changed (a file tool's own path; anything for a command)
are noted, stored as "own" in the turn's `after` commit, and /undo and /redo take back only
those, saying which others they left. A turn recorded without them (a killed process, or
before this was kept) is taken back whole, as before. /rewind stays what it says: the files
as they were before a turn, whoever changed them since.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from valarmind_tui.checkpoints.shadow import (
    RestoreReport,
    ShadowError,
    ShadowRepo,
    Snapshot,
    shadow_dir,
)
from valarmind_tui.checkpoints.upkeep import REF_ROOT, warm_up
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import UsageError
from valarmind_tui.core.events import CheckpointCreated, FilesRestored, Notice
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.settings.sections import CheckpointSettings

Action = Literal["undo", "redo", "rewind"]


@dataclass(frozen=True)
class TurnRecord:
    """One turn that changed files, as the shadow repository remembers it."""

    number: int
    prompt: str
    at: float
    before: Snapshot
    before_commit: str
    after: Snapshot | None
    """None when the process ended before the turn did."""
    state: Literal["", "undone", "dropped"]
    own: frozenset[str] | None = None
    """The paths the turn's own tools changed; None when not known (take back every change)."""


@dataclass(frozen=True)
class Restored:
    """The outcome of /undo, /redo or /rewind."""

    action: Action
    turn: int
    report: RestoreReport
    preview: bool = False
    """Nothing was written: the report says what would be."""

    def describe(self) -> str:
        verb = {"undo": "Undid", "redo": "Redid", "rewind": "Rewound to before"}[self.action]
        r = self.report
        if self.preview:
            lines = [f"/{self.action} would change turn {self.turn}'s files (nothing written "
                     "yet)."]
        else:
            lines = [f"{verb} turn {self.turn}."]
        would = "Would restore" if self.preview else "Restored"
        if r.written:
            lines.append(f"{would}: " + ", ".join(r.written))
        if r.removed:
            lines.append(("Would remove" if self.preview else "Removed") + ": "
                         + ", ".join(r.removed))
        if not (r.written or r.removed):
            lines.append("No file needed restoring.")
        if r.conflicts:
            lines.append("Left as they are (changed by hand since): " + ", ".join(r.conflicts)
                         + f". Run /{self.action} --force to overwrite them.")
        if r.not_ours:
            lines.append("Left as they are (changed during the turn by another session or "
                         "program, not by this session): " + ", ".join(r.not_ours))
        if r.not_restored:
            lines.append("Could not restore (over the size cap or not a regular file): "
                         + ", ".join(r.not_restored))
        if r.diff:
            lines.append(f"```diff\n{r.diff.rstrip()}\n```")
        return "\n".join(lines)


class SessionCheckpoints:
    """Checkpoints of one session in one project."""

    def __init__(self, project_root: Path, session_id: str, bus: EventBus | None = None, *,
                 repo: ShadowRepo | None = None, limits: CheckpointSettings | None = None,
                 ) -> None:
        root = project_root.resolve()
        self.limits = limits or CheckpointSettings()
        self.repo = repo or ShadowRepo(root, shadow_dir(root, user_data_dir()),
                                       max_file_bytes=self.limits.max_file_bytes)
        self.session_id = session_id
        self.prefix = f"{REF_ROOT}/{session_id}/"
        self._bus = bus
        self._lock = asyncio.Lock()
        self._prompt = ""
        self._turn: int | None = None
        self._step = 0
        self._last: tuple[str, str] | None = None
        """(tree, commit) of the last checkpoint of the open turn."""
        self._first_tree = ""
        """The tree before the open turn's first change."""
        self._failed_turn = False
        """A checkpoint of the open prompt failed (said once): its later ones are skipped."""
        self._own: set[str] | None = set()
        """The paths the open turn's own calls changed; None once that could not be told."""
        self._open_calls = 0
        """Calls checkpointed before and not yet told done (after_change)."""
        self._told = 0

    def start_warm_up(self) -> threading.Thread:
        """At session start: warm the shadow index in the background (and prune old turns),
        so the first turn's checkpoint does not hash the whole project."""
        return warm_up(self.repo, self.limits)

    # -- recording ------------------------------------------------------------------------
    def begin(self, prompt: str) -> None:
        """A prompt starts; its first change opens a turn."""
        self._prompt, self._turn, self._step, self._last = prompt, None, 0, None
        self._failed_turn = False
        self._own, self._open_calls, self._told = set(), 0, 0

    async def before_change(self, tool: str) -> None:
        """Record the work tree before a write or command (cheap when nothing changed)."""
        self._open_calls += 1
        await self._record(tool, "before")

    async def after_change(self, tool: str, paths: Sequence[str] | None) -> None:
        """A write or command ran: note what it changed since the checkpoint before it, only
        `paths` when the tool says which it writes (never raises). Calls that overlap, or a
        call never told done, leave the turn's own paths unknown: it is taken back whole."""
        self._told += 1
        self._open_calls -= 1
        if self._open_calls != 0:
            self._own = None
        if self._failed_turn or self._turn is None or self._own is None:
            return
        async with self._lock:
            try:
                await asyncio.to_thread(self._note_own, paths)
            except (ShadowError, OSError):
                self._own = None  # cannot tell: undo takes back the whole turn, as before

    def _note_own(self, paths: Sequence[str] | None) -> None:
        if self._last is None or self._own is None:
            return
        changed = {c.path for c in self.repo.diff(self._last[0], self.repo.snapshot().tree)}
        if paths is not None:
            changed &= {self._relative(p) for p in paths}
        self._own |= changed

    def _relative(self, path: str) -> str:
        full = Path(path) if Path(path).is_absolute() else self.repo.root / path
        try:
            return full.resolve().relative_to(self.repo.root).as_posix()
        except (OSError, ValueError):
            return path

    async def end(self) -> None:
        """The prompt ended: record what the turn left, when it changed anything."""
        if self._turn is not None:
            await self._record(None, "after")
            self._turn = None

    async def _record(self, tool: str | None, kind: Literal["before", "after"]) -> None:
        if self._failed_turn:
            return
        async with self._lock:
            try:
                event = await asyncio.to_thread(self._record_sync, tool, kind)
            except (ShadowError, OSError) as exc:
                # this turn's later checkpoints are skipped (they would fail alike); the next
                # prompt tries again, so one bad moment never switches undo off for good
                self._failed_turn = True
                self._publish(Notice(level="warning", message=(
                    f"Checkpoint failed: {exc}. /undo may not take back this turn's changes "
                    "from here on; the next turn is checkpointed again.")))
                return
        if event is not None:
            self._publish(event)

    def _record_sync(self, tool: str | None, kind: Literal["before", "after"]
                     ) -> CheckpointCreated | None:
        with self.repo.locked():  # the snapshot's objects referenced before another gc
            return self._record_locked(tool, kind)

    def _record_locked(self, tool: str | None, kind: Literal["before", "after"]
                       ) -> CheckpointCreated | None:
        snap = self.repo.snapshot()
        if self._turn is None:
            turns = self._turns()
            self._drop_undone(turns)
            self._turn, self._step = max((t.number for t in turns), default=0) + 1, 0
        elif kind == "before" and self._last is not None and self._last[0] == snap.tree:
            return None
        name = "after" if kind == "after" else str(self._step + 1)
        meta: dict[str, Any] = {"prompt": self._prompt[:200], "tool": tool,
                                "large": snap.large, "at": time.time()}
        own = self._known_own()
        if kind == "after" and own is not None:
            meta["own"] = sorted(own)
        commit = self.repo.commit(snap.tree, json.dumps(meta),
                                  self._last[1] if self._last else None)
        self.repo.set_ref(f"{self.prefix}{self._turn}/{name}", commit)
        changed: tuple[str, ...] = ()
        if kind == "before":
            self._step += 1
            self._first_tree = self._first_tree if self._step > 1 else snap.tree
        else:
            changed = tuple(c.path for c in self.repo.diff(self._first_tree, snap.tree)
                            if own is None or c.path in own)
        self._last = (snap.tree, commit)
        return CheckpointCreated(turn=self._turn, step=self._step, kind=kind, commit=commit,
                                 tool=tool, skipped=tuple(sorted(snap.large)), changed=changed)

    # -- background commands ----------------------------------------------------------------
    async def job_started(self) -> object:
        """A background command starts: the work tree now (its turn's `before` when it ends);
        None when it cannot be recorded."""
        async with self._lock:
            try:
                return (await asyncio.to_thread(self.repo.snapshot), time.time())
            except (ShadowError, OSError):
                return None

    async def job_ended(self, start: object, label: str) -> None:
        """A background command ended: what it changed since it started becomes a turn of its
        own (labelled `label`), so /undo takes it back; paths the session's turns changed
        meanwhile are theirs, not the command's. Never raises."""
        if not isinstance(start, tuple):
            return
        async with self._lock:
            try:
                event = await asyncio.to_thread(self._record_job, start[0], start[1], label)
            except (ShadowError, OSError) as exc:
                self._publish(Notice(level="warning", message=(
                    f"Checkpoint failed: {exc}. /undo cannot take back what the background "
                    f"command {label[1:]!r} changed.")))
                return
        if event is not None:
            self._publish(event)

    def _record_job(self, before: Snapshot, started: float, label: str
                    ) -> CheckpointCreated | None:
        with self.repo.locked():
            return self._record_job_locked(before, started, label)

    def _record_job_locked(self, before: Snapshot, started: float, label: str
                           ) -> CheckpointCreated | None:
        snap = self.repo.snapshot()
        if snap.tree == before.tree:
            return None
        turns = self._turns()
        changed = {c.path for c in self.repo.diff(before.tree, snap.tree)}
        for turn in turns:
            if turn.at >= started and turn.own is not None:
                changed -= turn.own
        changed -= self._own or set()  # the open prompt's own changes
        if not changed:
            return None
        self._drop_undone(turns)
        number = max((t.number for t in turns), default=0) + 1
        if self._turn is not None and self._turn >= number:
            number = self._turn + 1
        meta: dict[str, Any] = {"prompt": label[:200], "tool": "bash", "large": before.large,
                                "at": started}
        first = self.repo.commit(before.tree, json.dumps(meta))
        self.repo.set_ref(f"{self.prefix}{number}/1", first)
        after = self.repo.commit(snap.tree, json.dumps(
            {"large": snap.large, "own": sorted(changed), "at": time.time()}), first)
        self.repo.set_ref(f"{self.prefix}{number}/after", after)
        return CheckpointCreated(turn=number, step=1, kind="after", commit=after, tool="bash",
                                 skipped=tuple(sorted(snap.large)), changed=tuple(sorted(changed)))

    def _known_own(self) -> set[str] | None:
        """The turn's own paths when every checkpointed call was told done, else None."""
        if self._own is None or self._open_calls != 0 or self._told == 0:
            return None
        return self._own

    def _drop_undone(self, turns: list[TurnRecord]) -> None:
        for turn in turns:
            if turn.state == "undone":
                self.repo.delete_ref(f"{self.prefix}{turn.number}/undone")
                self.repo.set_ref(f"{self.prefix}{turn.number}/dropped", turn.before_commit)

    # -- reading --------------------------------------------------------------------------
    def turns(self) -> list[TurnRecord]:
        """Every recorded turn of the session, oldest first (blocking); a ShadowError saying
        so when the shadow repository cannot be read."""
        try:
            return self._turns()
        except (ShadowError, OSError) as exc:
            raise ShadowError(f"The checkpoints could not be read: {exc}") from exc

    def _turns(self) -> list[TurnRecord]:
        grouped: dict[int, dict[str, tuple[str, str, str]]] = {}
        for ref, commit, tree, message in self.repo.refs(self.prefix):
            digits, _, name = ref[len(self.prefix):].partition("/")
            if digits.isdigit():
                grouped.setdefault(int(digits), {})[name] = (commit, tree, message)
        turns: list[TurnRecord] = []
        for number, names in sorted(grouped.items()):
            if "1" not in names:
                continue
            commit, tree, message = names["1"]
            meta = _meta(message)
            after, own = None, None
            if "after" in names:
                after_meta = _meta(names["after"][2])
                after = Snapshot(names["after"][1], after_meta.get("large", {}))
                own = _paths(after_meta.get("own"))
            state: Literal["", "undone", "dropped"] = (
                "dropped" if "dropped" in names else "undone" if "undone" in names else "")
            turns.append(TurnRecord(number, meta.get("prompt", ""), meta.get("at", 0.0),
                                    Snapshot(tree, meta.get("large", {})), commit, after, state,
                                    own))
        return turns

    # -- taking back ----------------------------------------------------------------------
    async def undo(self, *, force: bool = False, preview: bool = False) -> Restored:
        """Take back the files of the last turn that is not undone (`preview`: say what would
        change, write nothing)."""
        return await self._restore("undo", lambda: self._undo(force, preview), preview)

    async def redo(self, *, force: bool = False, preview: bool = False) -> Restored:
        """Put back the turn the last /undo took back."""
        return await self._restore("redo", lambda: self._redo(force, preview), preview)

    async def rewind(self, number: int, *, force: bool = False,
                     preview: bool = False) -> Restored:
        """The files as they were before turn `number`; later turns become redoable."""
        return await self._restore("rewind", lambda: self._rewind(number, force, preview),
                                   preview)

    async def _restore(self, action: Action, work: Callable[[], Restored],
                       preview: bool) -> Restored:
        async with self._lock:
            try:
                restored = await asyncio.to_thread(work)
            except (ShadowError, OSError) as exc:
                raise ShadowError(f"/{action} failed: the checkpoints could not be read or "
                                  f"restored: {exc}") from exc
        if preview:
            return restored
        r = restored.report
        self._publish(FilesRestored(
            action=restored.action, turn=restored.turn, restored=tuple(r.written),
            removed=tuple(r.removed), conflicts=tuple(r.conflicts),
            not_restored=tuple(r.not_restored)))
        return restored

    def _undo(self, force: bool, preview: bool) -> Restored:
        live = [t for t in self._turns() if not t.state]
        if not live:
            raise UsageError("Nothing to undo: no turn of this session changed files.")
        turn = self._with_after(live[-1])
        report, _ = self.repo.restore(turn.before, turn.after or turn.before, force=force,
                                      preview=preview, only=turn.own)
        if not report.conflicts and not preview:  # else the turn stays to undo again, with --force
            self.repo.set_ref(f"{self.prefix}{turn.number}/undone", turn.before_commit)
        return Restored("undo", turn.number, report, preview)

    def _redo(self, force: bool, preview: bool) -> Restored:
        undone = [t for t in self._turns() if t.state == "undone"]
        if not undone or undone[0].after is None:
            raise UsageError("Nothing to redo: /undo first.")
        turn = undone[0]
        assert turn.after is not None
        report, _ = self.repo.restore(turn.after, turn.before, force=force, preview=preview,
                                      only=turn.own)
        if not report.conflicts and not preview:
            self.repo.delete_ref(f"{self.prefix}{turn.number}/undone")
        return Restored("redo", turn.number, report, preview)

    def _rewind(self, number: int, force: bool, preview: bool) -> Restored:
        turns = self._turns()
        chosen = next((t for t in turns if t.number == number and t.state != "dropped"), None)
        if chosen is None:
            known = ", ".join(str(t.number) for t in turns if t.state != "dropped") or "none"
            raise UsageError(f"No checkpoint for turn {number}; turns with one: {known}.")
        live = [t if preview else self._with_after(t) for t in turns if not t.state]
        undone = [t for t in turns if t.state == "undone"]
        # the state ValarMind last left: before the first undone turn, else after the last one
        expected = undone[0].before if undone else live[-1].after if live else None
        report, _ = self.repo.restore(chosen.before, expected or self.repo.snapshot(),
                                      force=force, preview=preview)
        for turn in live if not (report.conflicts or preview) else ():
            if turn.number >= number:
                self.repo.set_ref(f"{self.prefix}{turn.number}/undone", turn.before_commit)
        return Restored("rewind", number, report, preview)

    def _with_after(self, turn: TurnRecord) -> TurnRecord:
        """A turn the process did not finish ends where the work tree is now."""
        if turn.after is not None:
            return turn
        with self.repo.locked():
            snap = self.repo.snapshot()
            commit = self.repo.commit(snap.tree, json.dumps({"large": snap.large}),
                                      turn.before_commit)
            self.repo.set_ref(f"{self.prefix}{turn.number}/after", commit)
        return TurnRecord(turn.number, turn.prompt, turn.at, turn.before, turn.before_commit,
                          snap, turn.state)

    def _publish(self, event: CheckpointCreated | FilesRestored | Notice) -> None:
        if self._bus is not None:
            self._bus.publish(event)


def _paths(value: object) -> frozenset[str] | None:
    if not isinstance(value, list):
        return None
    return frozenset(p for p in value if isinstance(p, str))


def _meta(message: str) -> dict[str, Any]:
    try:
        data = json.loads(message)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
