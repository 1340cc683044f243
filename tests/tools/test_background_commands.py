"""Background commands with real processes: bash's run_in_background, command_output (read twice
with `since`), command_stop, the session's end killing the rest (checked in /proc), a server
reachable only with the network, `/undo` of what a background command wrote, `!cmd &`."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.core.events import JobChanged
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.shell.jobs import background_command
from valarmind_tui.tools.shell.output_ring import OutputRing

PY = sys.executable
WATCHER = """\
import os, sys, time
print("watching", flush=True)
seen = set()
while True:
    for name in sorted(os.listdir("inbox")):
        if name not in seen:
            seen.add(name)
            print("saw", name, flush=True)
    time.sleep(0.05)
"""


def live_session(root: Path, **settings: Any) -> Session:
    approver = PolicyApprover(allow_writes=True, allow_execute=True)
    return build_session(Settings(**settings), root, approver=approver)


async def call(session: Session, tool: str, **arguments: Any) -> ToolResult:
    """One call as an agent makes it: through the gate, with the session's services."""
    chosen = session.tools.get(tool)
    assert chosen is not None
    ctx = ToolContext(project_root=session.project_root, sandbox=session.sandbox,
                      services=session.services)
    status, result = await run_gated(chosen, chosen.parse(arguments), ctx, session.gate,
                                     AgentPermissions.full())
    assert status != "denied", result.output
    return result


async def output_until(session: Session, handle: str, since: int, needle: str,
                       deadline_s: float = 20) -> ToolResult:
    """command_output from `since`, waiting (in the tool, with wait_s) until `needle` shows."""
    end = time.monotonic() + deadline_s
    text = ""
    while time.monotonic() < end:
        result = await call(session, "command_output", handle=handle, since=since, wait_s=1)
        text = result.output
        if needle in text:
            return result
    raise AssertionError(f"{needle!r} never showed; last read: {text!r}")


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def family(pid: int) -> set[int]:
    """`pid` and every process descended from it (sandboxed ones too: host pids)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        found.add(current)
        todo += children.get(current, [])
    return found


async def test_a_stopped_command_is_asked_to_end_before_it_is_killed(git_repo: Path) -> None:
    """The SIGTERM reaches the command itself, in the sandbox too (it runs in a process group
    of its own there), so it can clean up."""
    (git_repo / "tidy.py").write_text(
        "import signal, sys, time\n"
        "def tidy(*_):\n"
        "    print('tidied up', flush=True)\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, tidy)\n"
        "print('serving', flush=True)\n"
        "while True:\n"
        "    time.sleep(0.05)\n")
    session = live_session(git_repo)
    started = await call(session, "bash", command=f"{PY} tidy.py", run_in_background=True)
    handle = started.data["handle"]
    await output_until(session, handle, 0, "serving")
    await call(session, "command_stop", handle=handle)
    log = await call(session, "command_output", handle=handle)
    assert "tidied up" in log.output
    await session.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_watcher_is_read_twice_with_since_then_stopped(git_repo: Path) -> None:
    (git_repo / "inbox").mkdir()
    (git_repo / "watch.py").write_text(WATCHER)
    session = live_session(git_repo)
    started = await call(session, "bash", command=f"{PY} watch.py", run_in_background=True)
    handle = started.data["handle"]
    assert "Started in the background as job-1" in started.output

    first = await output_until(session, handle, 0, "watching")
    assert "still running" in first.output and first.data["running"]
    (git_repo / "inbox" / "a.txt").write_text("a")
    second = await output_until(session, handle, first.data["next"], "saw a.txt")
    assert "watching" not in second.output  # only what is new since the first read
    assert second.data["since"] == first.data["next"] < second.data["next"]

    pids = family(session.jobs.get(handle).pid)
    stopped = await call(session, "command_stop", handle=handle)
    assert "stopped, exit code" in stopped.output
    assert not any(running(pid) for pid in pids)
    await session.close()


async def test_the_sessions_end_kills_every_background_command(git_repo: Path) -> None:
    session = live_session(git_repo)
    seen: list[JobChanged] = []
    session.bus.add_listener(lambda e: seen.append(e) if isinstance(e, JobChanged) else None)
    kept_running = await call(session, "bash", command="sleep 300 & sleep 300 & wait",
                              run_in_background=True)
    other = await session.run_shell(f"{PY} -c 'import time; time.sleep(300)' &")
    assert other.data["handle"] == "job-2"
    await output_until(session, "job-2", 0, "still running", deadline_s=5)
    deadline = time.monotonic() + 10
    pids: set[int] = set()
    while time.monotonic() < deadline:  # the shell's two sleeps are up
        pids = family(session.jobs.get(kept_running.data["handle"]).pid) | family(
            session.jobs.get("job-2").pid)
        if sum(1 for p in pids if "sleep" in _cmdline(p)) >= 2:
            break
        await asyncio.sleep(0.05)
    assert all(running(p) for p in pids)

    await session.close()

    assert not [p for p in pids if running(p)]
    ended = {(e.handle, e.state) for e in seen if e.state != "running"}
    assert ended == {("job-1", "killed"), ("job-2", "killed")}
    assert not session.jobs.folder.exists()  # nothing left to reap, its output gone


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


async def test_a_server_with_the_network_is_reachable_by_later_commands(git_repo: Path) -> None:
    (git_repo / "page.txt").write_text("served from the background\n")
    session = live_session(git_repo)
    port = free_port()
    started = await call(session, "bash", command=f"{PY} -m http.server {port} --bind 127.0.0.1",
                         run_in_background=True, network=True)
    assert "reachable by later commands that have the network" in started.output
    await output_until(session, started.data["handle"], 0, "Serving HTTP")
    fetched = await call(session, "bash", network=True, command=(
        f"{PY} -c \"import urllib.request as u; "
        f"print(u.urlopen('http://127.0.0.1:{port}/page.txt', timeout=5).read().decode())\""))
    assert "served from the background" in fetched.output
    log = await call(session, "command_output", handle=started.data["handle"])
    assert "GET /page.txt" in log.output
    await session.close()


async def test_without_the_network_the_result_says_a_server_is_unreachable(
    git_repo: Path,
) -> None:
    session = live_session(git_repo)
    if not session.sandbox.active:
        pytest.skip(f"bubblewrap cannot run here: {session.sandbox.reason}")
    port = free_port()
    started = await call(session, "bash", command=f"{PY} -m http.server {port} --bind 127.0.0.1",
                         run_in_background=True)
    assert "NOT reachable by later commands" in started.output
    await output_until(session, started.data["handle"], 0, "Serving HTTP")
    probe = (f"{PY} -c \"import socket; s = socket.socket(); s.settimeout(2); "
             f"print('connected' if s.connect_ex(('127.0.0.1', {port})) == 0 else 'refused')\"")
    later = await call(session, "bash", command=probe)
    assert "refused" in later.output  # its own network namespace: nothing listens there
    await session.close()


async def test_undo_takes_back_what_a_background_command_wrote(git_repo: Path) -> None:
    session = live_session(git_repo)
    result = await session.run_shell(
        f"{PY} -c \"open('made.txt', 'w').write('x'); open('app.py', 'a').write('# more')\" &")
    job = session.jobs.get(result.data["handle"])
    assert job.watcher is not None
    await job.watcher
    assert (git_repo / "made.txt").exists()

    undone = await session.run_command("/undo")

    assert undone.ok, undone.text
    assert not (git_repo / "made.txt").exists()
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'Hello ' + name\n"
    await session.close()


async def test_jobs_lists_the_commands_with_their_last_output(git_repo: Path) -> None:
    session = live_session(git_repo)
    await session.run_shell(f"{PY} -c \"print('hello from job one')\" &")
    job = session.jobs.get("job-1")
    assert job.watcher is not None
    await job.watcher
    listed = await session.run_command("/jobs")
    assert "job-1  exited (exit 0)" in listed.text and "hello from job one" in listed.text
    tail = await session.run_command("/jobs tail job-1")
    assert "hello from job one" in tail.text
    unknown = await session.run_command("/jobs stop job-9")
    assert not unknown.ok and "No background command 'job-9'" in unknown.text
    await session.close()


def test_the_persons_ampersand_starts_a_background_command() -> None:
    assert background_command("npm run dev &") == ("npm run dev", True)
    assert background_command("make && make test") == ("make && make test", False)
    assert background_command("echo a &&") == ("echo a &&", False)
    assert background_command("ls") == ("ls", False)


def test_the_ring_keeps_the_newest_bytes_and_says_what_it_dropped(tmp_path: Path) -> None:
    ring = OutputRing(tmp_path / "r.log", capacity=64)
    for n in range(20):
        ring.feed(f"line {n:02d}\n".encode())
    assert (tmp_path / "r.log").stat().st_size == 64
    piece = ring.read(0)
    assert piece.dropped == 20 * 8 - 64 and piece.end == 160
    assert piece.text.endswith("line 19\n") and "line 11" not in piece.text
    newer = ring.read(piece.end - 8)
    assert newer.text == "line 19\n" and newer.dropped == 0
    paged = ring.read(piece.start, limit=8)
    assert paged.end == piece.start + 8 and paged.written == 160


async def test_a_command_the_person_keeps_outlives_the_session(git_repo: Path) -> None:
    """Unconfined (in the sandbox bubblewrap ends it with ValarMind, as /jobs keep says)."""
    import json
    import os
    import signal

    from valarmind_tui.tools.shell.jobs import reap_notice

    session = live_session(git_repo, sandbox="off")
    await session.run_shell("sleep 300 &")
    kept = await session.run_command("/jobs keep job-1")
    assert kept.ok and "left running when the session ends" in kept.text
    pid = session.jobs.get("job-1").pid
    try:
        await session.close()
        assert running(pid)
        record = session.jobs.folder / "job-1.json"
        data = json.loads(record.read_text())
        # its owner gone, as after a crash (a pid above the kernel's pid_max never runs)
        record.write_text(json.dumps({**data, "owner_pid": 2**22 + 1, "owner_started": 1}))
        assert reap_notice() == ""  # a kept command is never reaped
        assert running(pid) and data["kept"]
    finally:
        os.killpg(pid, signal.SIGKILL)
        watcher = session.jobs.get("job-1").watcher
        assert watcher is not None
        await watcher
