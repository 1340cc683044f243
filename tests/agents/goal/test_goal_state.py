"""A goal's state travels as GoalUpdated events: stored as JSON, read back, resumed."""

from __future__ import annotations

import json

from valarmind_tui.agents.goal.checks import CheckVerdict, GoalCheck
from valarmind_tui.agents.goal.state import GoalState, GoalStatus, progress_line, resumable
from valarmind_tui.core.events import event_from_dict, event_to_dict


def _state_after_one_round() -> GoalState:
    state = GoalState.fresh("fix it", [GoalCheck("pytest -q", "test", "pyproject.toml"),
                                       GoalCheck("ruff check .")])
    state.tree, state.round = "t1", 1
    new = state.record([CheckVerdict("pytest -q", 1, "1 failed", 0.5, 100.0, 1),
                        CheckVerdict("ruff check .", 0, "", 0.1, 100.5, 1)])
    assert new == {"ruff check ."}
    return state


def test_a_goal_event_round_trips_through_json() -> None:
    event = _state_after_one_round().event(GoalStatus.RUNNING, detail="round 1 checked")
    stored = json.loads(json.dumps(event_to_dict(event)))
    assert event_from_dict(stored) == event


def test_an_unfinished_goal_is_resumable_and_a_finished_one_is_not() -> None:
    state = _state_after_one_round()
    running = [event_to_dict(state.event(GoalStatus.RUNNING))]
    resumed = resumable(running)
    assert resumed is not None
    assert (resumed.goal_id, resumed.round, resumed.tree) == (state.goal_id, 1, "t1")
    assert [c.passed for c in resumed.checks] == [False, True]
    assert resumed.passed_ever == {"ruff check ."}
    assert [c.source for c in resumed.specs] == ["pyproject.toml", None]
    ended = [*running, event_to_dict(state.event(GoalStatus.STALLED))]
    assert resumable(ended) is None
    assert resumable([]) is None


def test_the_progress_line_names_the_failing_checks() -> None:
    event = _state_after_one_round().event(GoalStatus.RUNNING, detail="round 1 checked")
    assert progress_line(event) == ("goal · round 1 · running: 1/2 checks pass "
                                    "(failing: pytest -q) — round 1 checked")
