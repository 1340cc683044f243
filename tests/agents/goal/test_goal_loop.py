"""GoalLoop on a real work tree and real check commands, its rounds played by plain callables
that write files (the loop takes its round as a callable: a session prompt in the product)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

from valarmind_tui.agents.goal.checks import CheckVerdict, GoalCheck, run_check
from valarmind_tui.agents.goal.loop import GoalDeps, GoalLoop, GoalOutcome
from valarmind_tui.agents.goal.state import GoalState, GoalStatus, resumable
from valarmind_tui.agents.goal.tree import TreeWatch
from valarmind_tui.agents.goal.weakening import Evidence
from valarmind_tui.checkpoints.shadow import ShadowRepo
from valarmind_tui.core.events import GoalUpdated, RunStatus, event_to_dict

Round = Callable[[int], str]


async def run_loop(root: Path, rounds: list[Round], *, check: str = "test -f done.txt",
                   stall: int = 3, approve: bool = False) -> tuple[GoalOutcome, list[GoalUpdated]]:
    published: list[GoalUpdated] = []
    played = iter(rounds)

    async def run_round(prompt: str) -> tuple[RunStatus, str]:
        number = int(prompt.split("round ", 1)[1].split(")", 1)[0])
        status = next(played)(number)
        return cast(RunStatus, status), "ok"  # a str: "budget" is no RunStatus on this branch

    async def one_check(spec: GoalCheck, number: int) -> CheckVerdict:
        return await run_check(spec, root, None, number)

    async def ask(evidence: object, number: int) -> bool:
        return approve

    deps = GoalDeps(run_round=run_round, run_check=one_check,
                    tree=TreeWatch(ShadowRepo(root, root.parent / "shadow")),
                    publish=published.append, approve=ask, stall_rounds=stall, max_rounds=10)
    outcome = await GoalLoop(deps, GoalState.fresh("make done.txt", [GoalCheck(check)])).run()
    return outcome, published


def writes(root: Path, name: str, text: str = "x\n", status: str = "done") -> Round:
    def play(number: int) -> str:
        (root / name).write_text(text)
        return status

    return play


def idle(status: str = "done") -> Round:
    return lambda number: status


async def test_done_only_when_the_check_passes_on_the_tree_the_round_left(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    outcome, events = await run_loop(root, [idle(), writes(root, "notes.txt"),
                                            writes(root, "done.txt")])
    assert (outcome.status, outcome.rounds) == (GoalStatus.DONE, 3)
    assert [e.round for e in events if e.status == "running"] == [0, 0, 1, 2]
    assert events[-1].status == "done" and events[-1].checks[0].passed


async def test_going_back_to_a_tree_seen_before_is_no_progress(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    outcome, events = await run_loop(root, [writes(root, "a.txt", "1"), writes(root, "a.txt", "2"),
                                            writes(root, "a.txt", "1"), writes(root, "a.txt", "2"),
                                            idle()], stall=3)
    assert (outcome.status, outcome.rounds) == (GoalStatus.STALLED, 5)
    assert [e.stalled_rounds for e in events if e.status == "running"][-2:] == [1, 2]


async def test_a_round_the_budget_stopped_ends_the_goal_as_budget(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    outcome, events = await run_loop(root, [idle("budget")])
    assert (outcome.status, outcome.rounds) == (GoalStatus.BUDGET, 0)
    resumed = resumable(event_to_dict(e) for e in events)  # kept and resumable
    assert resumed is not None and resumed.round == 0 and resumed.tree == events[-1].tree


async def test_a_cancelled_round_ends_the_goal(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    outcome, events = await run_loop(root, [idle("cancelled")])
    assert outcome.status == GoalStatus.CANCELLED and events[-1].status == "cancelled"


async def test_a_weakening_round_stops_before_its_checks_unless_approved(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    test = root / "tests" / "test_x.py"
    test.write_text("def test_x():\n    assert open('done.txt').read() == 'x\\n'\n")
    weaken = writes(root, "tests/test_x.py", "def test_x():\n    pass\n")
    outcome, events = await run_loop(root, [weaken])
    assert outcome.status == GoalStatus.WEAKENED and outcome.rounds == 1
    [evidence] = outcome.evidence
    assert isinstance(evidence, Evidence) and evidence.kind == "test_emptied"
    assert events[-1].evidence == (evidence.describe(),)
    assert events[-1].checks[0].round == 0  # the checks never ran on the weakened tree
    test.write_text("def test_x():\n    assert open('done.txt').read() == 'x\\n'\n")
    approved, _ = await run_loop(root, [weaken, writes(root, "done.txt")], approve=True)
    assert approved.status == GoalStatus.DONE


async def test_a_new_source_that_outranks_a_detected_check_is_a_changed_command(
        tmp_path: Path) -> None:
    """The default check is `pytest -q` (pyproject.toml); a round adds a CI workflow whose test
    step runs only an easy test: the detector would now pick that, so the round changed the
    check command."""
    from valarmind_tui.agents.goal.checks import default_checks

    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n[tool.pytest.ini_options]\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_hard.py").write_text("def test_hard():\n    assert False\n")
    [check] = default_checks(root)
    assert (check.command, check.kind, check.source) == ("pytest -q", "test", "pyproject.toml")
    workflow = ("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - run: pytest -q tests/test_easy.py\n")

    def add_ci(number: int) -> str:
        (root / ".github" / "workflows").mkdir(parents=True)
        (root / ".github" / "workflows" / "ci.yml").write_text(workflow)
        return "done"

    published: list[GoalUpdated] = []

    async def run_round(prompt: str) -> tuple[RunStatus, str]:
        return cast(RunStatus, add_ci(1)), "ok"

    async def one_check(spec: GoalCheck, number: int) -> CheckVerdict:
        return await run_check(spec, root, None, number)

    async def refuse(evidence: object, number: int) -> bool:
        return False

    deps = GoalDeps(run_round=run_round, run_check=one_check,
                    tree=TreeWatch(ShadowRepo(root, tmp_path / "shadow")),
                    publish=published.append, approve=refuse,
                    redetect=lambda: default_checks(root))
    outcome = await GoalLoop(deps, GoalState.fresh("pass", [check])).run()
    assert outcome.status == GoalStatus.WEAKENED
    [evidence] = outcome.evidence
    assert evidence.kind == "check_command_changed"
    assert evidence.path == ".github/workflows/ci.yml"
    assert "`pytest -q tests/test_easy.py`" in evidence.detail
