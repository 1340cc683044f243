"""A ValarMind killed with SIGKILL cannot end its background commands: the next start does
(job_records.reap_leftovers), and leaves alone what another live session runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from valarmind_tui.tools.shell.jobs import jobs_root, reap_notice

KILLED_SESSION = """\
import asyncio, os, signal, sys
from pathlib import Path
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings

async def main():
    session = build_session(Settings(sandbox="off"), Path(sys.argv[1]),
                            approver=PolicyApprover(allow_writes=True, allow_execute=True))
    result = await session.run_shell("sleep 300 &")
    print(session.jobs.get(result.data["handle"]).pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no atexit: as a crash or `kill -9`

asyncio.run(main())
"""


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_the_next_start_reaps_what_a_killed_session_left(git_repo: Path) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_SESSION, str(git_repo)],
                          capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert done.returncode == -9, done.stderr
    pid = int(done.stdout.strip())
    try:
        assert running(pid)  # unconfined, nothing ended it
        assert list(jobs_root().glob("*/job-1.json"))

        said = reap_notice()

        assert "Ended 1 background command(s)" in said and "sleep 300" in said
        deadline = time.monotonic() + 5
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running(pid)
        assert not list(jobs_root().iterdir())  # its records and its output, gone
    finally:
        if running(pid):
            os.kill(pid, 9)


def test_a_live_sessions_commands_are_not_reaped(git_repo: Path) -> None:
    from valarmind_tui.tools.shell.job_records import JobRecord, process_start, write_record

    sleeper = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        folder = jobs_root() / "live-session"
        folder.mkdir(parents=True)
        me = os.getpid()
        write_record(folder, JobRecord("job-1", "sleep 300", sleeper.pid,
                                       process_start(sleeper.pid) or 0, me,
                                       process_start(me) or 0))
        assert reap_notice() == ""
        assert running(sleeper.pid) and (folder / "job-1.json").exists()
    finally:
        sleeper.kill()
        sleeper.wait()
