"""A session's background commands: started by `bash` with `run_in_background` (or the person's
`!cmd &`), read with `command_output`, ended with `command_stop`, `/jobs stop` or the session.

Each command runs in a process group of its own (in the sandbox when there is one); its output
goes to an `OutputRing` on disk, in a folder of this session's under the user's data dir. A
record beside it (`job_records.py`) lets the next ValarMind reap the group when this process was
killed. When a command ends (by itself or stopped) the rest of its group is killed, the sandbox's
guard runs, `on_end` records the files it changed (a checkpoint: /undo takes them back) and
JobChanged says so. `close` ends every command the person did not keep.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import signal
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.events import JobChanged
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.tools.common import kill_group, spawn, wait_exit
from valarmind_tui.tools.shell.job_records import (
    JobRecord,
    process_start,
    reap_leftovers,
    remove_record,
    write_record,
)
from valarmind_tui.tools.shell.output_ring import DEFAULT_CAPACITY, OutputRing
from valarmind_tui.tools.shell.process_groups import any_alive, family_groups, signal_groups

STOP_GRACE_S = 2.0
"""After SIGTERM, how long a stopped command may take to end before SIGKILL."""
DRAIN_GRACE_S = 1.0
GONE_DEADLINE_S = 5.0
"""After its leader exited, how long a command's other processes may take to die."""
JobState = Literal["running", "exited", "stopped", "killed"]


class Guard(Protocol):
    """The sandbox's guard of the project's protected paths (safety.sandbox.ProjectGuard)."""

    def __enter__(self) -> Any: ...
    def __exit__(self, *exc: object) -> None: ...
    def report(self) -> str: ...


@dataclass(frozen=True)
class JobSpec:
    """What to start: the argv (already wrapped by the sandbox) and what to say about it."""

    argv: Sequence[str]
    command: str
    """The command as the model or the person wrote it."""
    cwd: Path
    env: Mapping[str, str]
    agent_id: str = "main"
    network: bool = False
    sandboxed: bool = False


@dataclass(eq=False)
class Job:
    """One background command of the session."""

    handle: str
    spec: JobSpec
    ring: OutputRing
    pid: int
    started_at: float = field(default_factory=time.time)
    state: JobState = "running"
    exit_code: int | None = None
    ended_at: float | None = None
    kept: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set whenever output arrives or the command ends (command_output's `wait`)."""
    watcher: asyncio.Task[None] | None = None
    ending: JobState | None = None
    """How it is being ended (stopped, killed), while the kill takes effect."""
    groups: dict[int, int] = field(default_factory=dict)
    """Its process groups (process_groups.family_groups), the leader's and those seen when it
    was signalled: the command has ended when none has a process left."""

    @property
    def running(self) -> bool:
        return self.state == "running"

    def describe(self) -> str:
        """One line: handle, state, how long, the command."""
        end = self.ended_at or time.time()
        took = f"{end - self.started_at:.0f}s"
        state = self.state if self.exit_code is None else f"{self.state} (exit {self.exit_code})"
        kept = ", kept alive" if self.kept else ""
        return f"{self.handle}  {state}{kept}  {took}  {self.spec.command}"


def jobs_root() -> Path:
    """Where every session's background commands keep their output and records."""
    return user_data_dir() / "jobs"


def jobs_folder(session_id: str) -> Path:
    """This process's folder for the session `session_id` (a resumed session in another
    process gets another folder: handles restart at job-1)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)[:80]
    return jobs_root() / f"{safe}-{os.getpid()}"


def reap_notice() -> str:
    """Kill what killed sessions left running (job_records.reap_leftovers); a line saying
    what, or "" (blocking: reads /proc)."""
    reaped = reap_leftovers(jobs_root())
    if not reaped:
        return ""
    listed = "; ".join(r.command[:80] for r in reaped)
    return (f"Ended {len(reaped)} background command(s) a session that was killed had left "
            f"running: {listed}")


def background_command(line: str) -> tuple[str, bool]:
    """`!cmd &` from a person: the command without its final `&`, and whether it had one
    (`a && b` and `a &&` are not backgrounded)."""
    stripped = line.rstrip()
    if stripped.endswith("&") and not stripped.endswith("&&") and not stripped.endswith("\\&"):
        return stripped[:-1].rstrip(), True
    return line, False


StartHook = Callable[[], Awaitable[object]]
"""Before a command starts: records the work tree; what it returns is given back at the end."""
EndHook = Callable[[object, str], Awaitable[None]]
"""After a command ended: what the start hook returned and a label (`&command`)."""


class BackgroundJobs:
    """The background commands of one session."""

    def __init__(self, folder: Path, bus: EventBus | None = None, *,
                 mask: Callable[[str], str] | None = None,
                 capacity: int = DEFAULT_CAPACITY) -> None:
        _LIVE.add(self)
        self.folder = folder
        """This session's rings and records (under the user's data dir)."""
        self.bus = bus
        self.mask = mask
        self.capacity = capacity
        self.on_start: StartHook | None = None
        self.on_end: EndHook | None = None
        self._jobs: dict[str, Job] = {}
        self._numbers = itertools.count(1)
        self._owner = (os.getpid(), process_start(os.getpid()) or 0)

    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    def get(self, handle: str) -> Job:
        job = self._jobs.get(handle.strip())
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise ToolError(f"No background command {handle!r} in this session (known: {known}).")
        return job

    async def start(self, spec: JobSpec, guard: Guard | None = None) -> Job:
        """Start `spec` in the background and return at once."""
        token = await self.on_start() if self.on_start is not None else None
        if self.mask is not None:  # as listed, logged and recorded; the argv runs as asked
            spec = replace(spec, command=self.mask(spec.command))
        handle = f"job-{next(self._numbers)}"
        ring = OutputRing(self.folder / f"{handle}.log", capacity=self.capacity, mask=self.mask)
        guards = contextlib.ExitStack()
        if guard is not None:
            guards.enter_context(guard)
        try:
            proc = await spawn(*spec.argv, cwd=spec.cwd, env=dict(spec.env),
                               stdin=asyncio.subprocess.DEVNULL,
                               stdout=asyncio.subprocess.PIPE,
                               stderr=asyncio.subprocess.STDOUT)
        except BaseException:
            guards.close()
            ring.close()
            raise
        job = Job(handle, spec, ring, proc.pid, groups={proc.pid: process_start(proc.pid) or 0})
        self._jobs[handle] = job
        job.watcher = asyncio.ensure_future(self._watch(job, proc, guards, guard, token))
        with contextlib.suppress(OSError):  # a full disk: only a crash's reaping is lost
            write_record(self.folder, JobRecord(
                handle, spec.command, proc.pid, process_start(proc.pid) or 0, *self._owner))
        self._publish(job)
        return job

    async def _watch(self, job: Job, proc: asyncio.subprocess.Process,
                     guards: contextlib.ExitStack, guard: Guard | None, token: object) -> None:
        assert proc.stdout is not None
        reader = asyncio.ensure_future(_pump(proc.stdout, job))
        try:
            await wait_exit(proc)
            # what it left in the background ends too
            await asyncio.to_thread(signal_groups, job.groups, signal.SIGKILL)
            await _until_gone(job.groups)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), DRAIN_GRACE_S)
        finally:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
            job.ring.flush()
            guards.close()
            report = guard.report() if guard is not None else ""
            if report:
                job.ring.feed(f"\n{report}\n".encode())
            job.state = job.ending or "exited"
            job.exit_code = proc.returncode
            job.ended_at = time.time()
            job.changed.set()
            remove_record(self.folder, job.handle)
        if self.on_end is not None:
            await self.on_end(token, f"&{job.spec.command}")
        self._publish(job)

    async def stop(self, handle: str) -> Job:
        """End a command and its group: SIGTERM, then SIGKILL after STOP_GRACE_S."""
        job = self.get(handle)
        if not job.running:
            return job
        job.ending = "stopped"
        # bwrap, the leader in the sandbox, would die of it and SIGKILL the command at once
        await _signal(job, signal.SIGTERM, spare_leader=job.spec.sandboxed)
        if job.watcher is not None:
            done, _ = await asyncio.wait({job.watcher}, timeout=STOP_GRACE_S)
            if not done:
                await _signal(job, signal.SIGKILL)
                await asyncio.wait({job.watcher}, timeout=STOP_GRACE_S * 2)
        return job

    def keep(self, handle: str) -> Job:
        """The person keeps this command running after the session ends."""
        job = self.get(handle)
        job.kept = True
        if job.running:
            with contextlib.suppress(OSError):
                write_record(self.folder, JobRecord(
                    job.handle, job.spec.command, job.pid, process_start(job.pid) or 0,
                    *self._owner, kept=True))
        return job

    async def close(self) -> list[Job]:
        """The session ends: every running command not kept is killed (its group, SIGKILL) and
        its end recorded; the ones killed."""
        ending = [job for job in self._jobs.values() if job.running and not job.kept]
        for job in ending:
            job.ending = "killed"
            await _signal(job, signal.SIGKILL)
        watchers = [job.watcher for job in ending if job.watcher is not None]
        if watchers:
            await asyncio.wait(watchers, timeout=10)
        for job in self._jobs.values():  # their output goes with the session
            if not job.running:
                job.ring.close(remove=True)
        with contextlib.suppress(OSError):
            self.folder.rmdir()  # left when a kept command still writes there
        return ending

    def kill_now(self) -> None:
        """At interpreter exit, when `close` did not run: SIGKILL every group not kept."""
        for job in self._jobs.values():
            if job.running and not job.kept:
                kill_group(job.pid)
                remove_record(self.folder, job.handle)

    def _publish(self, job: Job) -> None:
        if self.bus is not None:
            self.bus.publish(JobChanged(
                agent_id=job.spec.agent_id, handle=job.handle, command=job.spec.command,
                state=job.state, exit_code=job.exit_code, network=job.spec.network))


_LIVE: weakref.WeakSet[BackgroundJobs] = weakref.WeakSet()


@atexit.register
def _kill_at_exit() -> None:
    """A face that left without awaiting `close` (a crash): the groups end all the same."""
    for jobs in list(_LIVE):
        jobs.kill_now()


async def _signal(job: Job, sig: int, *, spare_leader: bool = False) -> None:
    """Signal every process group of the command's family (looked for now: once the leader is
    gone, the sandbox's group is an orphan nobody can find); with `spare_leader`, all but the
    leader's when there are others."""
    def look_and_signal() -> None:
        job.groups = {**job.groups, **family_groups(job.pid)}  # a new dict: the watcher reads
        targets = job.groups
        if spare_leader and len(targets) > 1:
            targets = {pgid: started for pgid, started in targets.items() if pgid != job.pid}
        signal_groups(targets, sig)

    await asyncio.to_thread(look_and_signal)


async def _until_gone(groups: dict[int, int], poll_s: float = 0.02) -> None:
    """Wait (up to GONE_DEADLINE_S) until no process of `groups` runs: a SIGKILL takes effect
    when the process next runs, which on a loaded machine is not at once."""
    deadline = time.monotonic() + GONE_DEADLINE_S
    while await asyncio.to_thread(any_alive, groups) and time.monotonic() < deadline:
        await asyncio.sleep(poll_s)


async def _pump(stream: asyncio.StreamReader, job: Job) -> None:
    while chunk := await stream.read(65536):
        job.ring.feed(chunk)
        job.changed.set()
