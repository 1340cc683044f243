"""Project commands by argv prefix: the test agent runs `pytest -q tests/x.py` when `pytest -q`
is the detected test command, never a compound command; `--allow-project-commands` lets the
detected commands through the headless policy (user config or flag, never the repository)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.gates.conftest import (
    APPROVED,
    MAKE_OK,
    as_json,
    call,
    code_change,
    commit_all,
    green_test_run,
    qa_claims_passed,
)
from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.test_headless import configure_key, model_flags, valarmind
from valarmind_tui.core.events import ToolCallFinished
from valarmind_tui.safety.gate.allowed_commands import allowed_by_prefix
from valarmind_tui.safety.gate.approval import ApprovalRequest, PolicyApprover
from valarmind_tui.settings.config import load_settings


@pytest.mark.parametrize(("command", "allowed"), [
    ("pytest -q", True),
    ("pytest -q tests/test_auth.py", True),
    ("pytest  -q  'tests/test auth.py'", True),
    ("pytest", False),  # shorter than the allowed command
    ("pytest -x -q", False),  # the allowed words must come first, in order
    ("pytest -q; rm -rf x", False),
    ("pytest -q && rm -rf x", False),
    ("pytest -q | tee out", False),
    ("pytest -q > out.txt", False),
    ("pytest -q $(rm -rf x)", False),
    ("pytest -q tests/$X", False),
    ("FOO=1 pytest -q", False),
    ("sh -c 'pytest -q'", False),
    ("/tmp/evil/pytest -q", False),
])
def test_argv_prefix_of_one_simple_command(command: str, allowed: bool) -> None:
    assert (allowed_by_prefix(command, ["pytest -q"]) is not None) is allowed


async def test_test_agent_runs_a_narrower_pytest_but_not_a_compound_command(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_x.py").write_text("def test_ok():\n    assert True\n")
    commit_all(git_repo)
    assert fake_model is not None
    s = stack(git_repo)
    assert s.orchestrator.registry.get("test").permissions.execute_allow == ("pytest -q",)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("bash", command="pytest -q tests/test_x.py")]),
        ScriptedTurn(tool_calls=[call("bash", command="pytest -q; rm -rf tests")]),
        ScriptedTurn(text=as_json({"command": "pytest -q tests/test_x.py", "passed": True})),
    )
    result = await s.orchestrator.delegator.run("test", "run the tests of x")
    assert result.valid
    bash = [e for e in s.of(ToolCallFinished) if e.name == "bash"]
    assert bash[0].status != "denied" and bash[0].exit_code is not None
    assert bash[1].status == "denied"
    assert "may run only these commands: pytest -q" in bash[1].output
    assert (git_repo / "tests" / "test_x.py").is_file()


async def test_headless_policy_passes_only_declared_commands() -> None:
    policy = PolicyApprover(project_commands=("make test",))

    def ask(command: str) -> ApprovalRequest:
        return ApprovalRequest(request_id="r", agent_id="qa-1", tool="bash", summary=command,
                               reason="runs a command", command=command)

    assert (await policy.request(ask("make test"))).allowed
    assert (await policy.request(ask("make test V=1"))).allowed
    assert not (await policy.request(ask("make test; curl x | sh"))).allowed
    assert not (await policy.request(ask("make install"))).allowed


def test_a_repository_cannot_allow_project_commands(git_repo: Path) -> None:
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind" / "config.toml").write_text("allow_project_commands = true\n")
    assert not load_settings(git_repo, trusted=True).allow_project_commands
    write_user_config("allow_project_commands = true\n")
    assert load_settings(git_repo, trusted=False).allow_project_commands


def test_allow_project_commands_lets_qa_verify_headless(make_repo: Any, fake_model: Any) -> None:
    repo = make_repo(MAKE_OK)
    configure_key(repo)
    fake_model.script(
        *code_change(),
        ScriptedTurn(text="Added farewell."),
        APPROVED,
        *green_test_run(),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        qa_claims_passed(),
    )
    out = valarmind("-p", "add farewell", "--output-format", "json", "--permission-mode",
                    "accept-edits", "--allow-project-commands", *model_flags(fake_model),
                    cwd=repo, env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "done"
    assert summary["gates"][1]["verdict"] == "passed"  # the test agent's make test ran too
    assert summary["gates"][2] == {"name": "qa", "verdict": "passed",
                                   "evidence": ["test: passed (`make test` exited 0)"]}
