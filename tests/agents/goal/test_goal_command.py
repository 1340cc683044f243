"""/goal through the command router (the path the REPL, ACP and the TUI take) on a real
Session: the model played by the fake server, the checks real commands in a real git repo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.goal.loop import GoalOutcome
from valarmind_tui.agents.goal.state import GoalStatus
from valarmind_tui.commands.goal import GoalRequest, parse_request, run_goal
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session

WRITE_DONE = [
    ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
        "agent": "code", "task": "write done.txt"}}]),
    ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
        "path": "done.txt", "content": "yes\n"}}]),
    ScriptedTurn(text='{"summary": "wrote done.txt"}'),
    ScriptedTurn(text="Wrote it."),
]


def session_for(root: Path, model_settings: Any) -> Session:
    settings = model_settings(root, permission_mode="accept-edits")
    return open_session(settings, root, approver=PolicyApprover(allow_writes=True))


def test_parse_request_reads_checks_and_the_text() -> None:
    request = parse_request('--check "pytest -q" --check "ruff check ." fix the --flaky test')
    assert request.checks == ("pytest -q", "ruff check .")
    assert request.text == "fix the --flaky test" and not request.approve_weakening
    assert parse_request("--approve-weakening -- --check is text").text == "--check is text"


async def test_goal_through_the_router_ends_done_with_the_footer(
        git_repo: Path, model_settings: Any, fake_model: Any) -> None:
    session = session_for(git_repo, model_settings)
    fake_model.script(*WRITE_DONE)
    try:
        await session.start()
        result = await session.run_command('/goal --check "test -f done.txt" write done.txt')
        stored = session.store.events(session.session_id) if session.store else []
    finally:
        await session.close()
    assert result.ok
    assert isinstance(result.data, GoalOutcome) and result.data.status == GoalStatus.DONE
    assert result.text.startswith("Wrote it.")
    assert "- `test -f done.txt`: passed on the final tree" in result.text
    goal_events = [e["status"] for e in stored if e["type"] == "goal_updated"]
    assert goal_events == ["running", "running", "done"]  # started, round 0 checked, ended


async def test_the_budget_seam_stops_a_goal_before_a_round(
        git_repo: Path, model_settings: Any, fake_model: Any) -> None:
    session = session_for(git_repo, model_settings)
    fake_model.script(ScriptedTurn(text="Thinking."))
    asked: list[int] = []

    def budget() -> str | None:
        asked.append(1)
        return "the session's budget is spent" if len(asked) > 1 else None

    try:
        await session.start()
        outcome = await run_goal(session, GoalRequest("write done.txt", ("test -f done.txt",),
                                                      budget=budget))
    finally:
        await session.close()
    assert outcome.status == GoalStatus.BUDGET and outcome.rounds == 1
    assert outcome.detail == "the session's budget is spent"
    assert len(fake_model.requests) == 1  # stopped before the second round's model call


async def test_goal_without_text_and_nothing_to_continue_is_a_usage_error(
        git_repo: Path, model_settings: Any) -> None:
    session = session_for(git_repo, model_settings)
    try:
        result = await session.run_command("/goal")
    finally:
        await session.close()
    assert not result.ok and "say what the goal is" in result.text


async def test_cancel_while_a_check_runs_stops_the_goal_and_kills_the_check(
        git_repo: Path, model_settings: Any, fake_model: Any) -> None:
    """Esc (Session.cancel) between rounds: the check's process group is killed, the goal ends
    cancelled, and meanwhile the session refused another prompt."""
    import asyncio
    import time

    session = session_for(git_repo, model_settings)
    fake_model.script(ScriptedTurn(text="Thinking."))
    marker = git_repo / "check-started"
    try:
        await session.start()
        running = asyncio.ensure_future(run_goal(session, GoalRequest(
            "wait", (f"touch {marker} && sleep 60",))))
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline and not running.done()
            await asyncio.sleep(0.05)
        refused = await session.submit("something else")
        assert session.busy and "still working" in refused.text
        started = time.monotonic()
        assert session.cancel()
        outcome = await asyncio.wait_for(running, 30)
        stopped_in = time.monotonic() - started
    finally:
        await session.close()
    assert outcome.status == GoalStatus.CANCELLED and outcome.rounds == 0
    assert stopped_in < 10  # not the check's 60 s
    assert fake_model.requests == []  # no round ran
    assert not session.busy
