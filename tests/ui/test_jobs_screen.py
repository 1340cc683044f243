"""/jobs in the TUI, with Pilot and real processes: `!cmd &` asks saying it runs in the
background, the agent monitor shows it, the /jobs screen's tail follows its output, and
quitting the app ends it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from textual.widgets import Static

from tests.ui.conftest import approval_asked, screen_shown, wait_for
from valarmind_tui.faces.tui.screens.jobs import JobsScreen, JobTail
from valarmind_tui.faces.tui.widgets.sidebar import AgentMonitor

WATCHER = """\
import os, time
print("watching", flush=True)
seen = set()
while True:
    for name in sorted(os.listdir("inbox")):
        if name not in seen:
            seen.add(name)
            print("saw", name, flush=True)
    time.sleep(0.05)
"""


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def test_jobs_screen_follows_a_background_commands_output(
    make_session: Any, make_app: Any, git_repo: Path,
) -> None:
    (git_repo / "inbox").mkdir()
    (git_repo / "watch.py").write_text(WATCHER)
    session = make_session()
    app = make_app(session)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press(*f"!{sys.executable} watch.py &", "enter")
        asked = await approval_asked(pilot, app)
        summary = str(asked.query_one("#summary", Static).render())
        assert "in the background" in summary and "watch.py" in summary
        await pilot.press("y")
        monitor = app.query_one(AgentMonitor)
        await wait_for(pilot, lambda: "job-1" in monitor.jobs)
        assert "job-1" in str(monitor.render()) and "running" in str(monitor.render())
        pid = session.jobs.get("job-1").pid

        await pilot.press(*"/jobs", "enter")
        screen = await screen_shown(pilot, app, JobsScreen)
        tail = screen.query_one(JobTail)
        await wait_for(pilot, lambda: "watching" in str(tail.render()))
        assert "saw a.txt" not in str(tail.render())
        (git_repo / "inbox" / "a.txt").write_text("a")
        await wait_for(pilot, lambda: "saw a.txt" in str(tail.render()))  # followed live
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, JobsScreen))
        assert running(pid)
    # the app quit: the session ended and took its background command with it
    assert not running(pid)
    assert session.jobs.get("job-1").state == "killed"
