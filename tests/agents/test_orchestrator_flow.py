"""End to end: orchestrator → search → code (two files) → gates: review finds a bug, code fixes
it, re-review approves, the test agent and QA run the project's detected command → done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.conftest import as_json, call, commit_all
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import AgentFinished, AgentSpawned, ToolCallFinished

BUGGY = "def farewell(name):\n    return 'Bye ' + nme\n"


def _script(fake_model: Any) -> None:
    code_done = as_json({"task": "farewell", "summary": "added farewell", "files_modified": [],
                         "files_created": [{"path": "util.py"}]})
    fake_model.script(
        # orchestrator asks search
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="where is greet?")]),
        ScriptedTurn(tool_calls=[call("read_file", path="app.py")]),
        ScriptedTurn(text=as_json({"query": "greet", "summary": "greet is in app.py",
                                   "findings": [{"file": "app.py", "line": 1, "relevance": 1}]})),
        # orchestrator asks code; code touches two files
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="add farewell",
                                      context="greet is in app.py")]),
        ScriptedTurn(tool_calls=[call("write_file", path="util.py", content=BUGGY)]),
        ScriptedTurn(tool_calls=[call("edit_file", path="app.py", old_string="def greet(name):",
                                      new_string="from util import farewell\n\n\n"
                                                 "def greet(name):")]),
        ScriptedTurn(text=code_done),
        # orchestrator thinks it is done; the gates step in
        ScriptedTurn(text="Added farewell() in util.py and imported it in app.py."),
        ScriptedTurn(tool_calls=[call("git_diff")]),
        ScriptedTurn(text=as_json({
            "files_reviewed": ["app.py", "util.py"], "approved": False, "summary": "one bug",
            "findings": [{"severity": "major", "file": "util.py", "line": 2,
                          "message": "NameError: nme is not defined", "category": "correctness",
                          "suggested_fix": "use name"}]})),
        ScriptedTurn(tool_calls=[call("edit_file", path="util.py", old_string="+ nme",
                                      new_string="+ name")]),
        ScriptedTurn(text=code_done),
        ScriptedTurn(text=as_json({"files_reviewed": ["app.py", "util.py"], "findings": [],
                                   "approved": True, "summary": "looks right"})),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        ScriptedTurn(text=as_json({"command": "make test", "passed": True, "total": 1,
                                   "passed_count": 1})),
        ScriptedTurn(tool_calls=[call("bash", command="make test")]),
        ScriptedTurn(text=as_json({"passed": True, "summary": "all green", "checks": [
            {"name": "test", "command": "make test", "passed": True}]})),
    )


async def test_gates_send_review_findings_back_and_run_qa(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "Makefile").write_text("test:\n\tpython3 -c 'import app, util; print(\"ok\")'\n")
    commit_all(git_repo)
    _script(fake_model)
    s = stack(git_repo)
    outcome = await s.orchestrator.run("add a farewell function next to greet")

    assert outcome.status == "done"
    assert (git_repo / "util.py").read_text() == "def farewell(name):\n    return 'Bye ' + name\n"
    assert "from util import farewell" in (git_repo / "app.py").read_text()
    assert outcome.text.startswith("Added farewell()")
    assert "## Quality gates (passed)" in outcome.text
    assert "the change touches 2 files" in outcome.text
    assert "went back to the code agent 1 time" in outcome.text

    spawned = s.of(AgentSpawned)
    assert [e.name for e in spawned] == ["search", "code", "review", "code", "review", "test",
                                         "qa"]
    assert {e.parent_id for e in spawned} == {"main"}
    assert len({e.agent_id for e in spawned}) == 7
    finished = s.of(AgentFinished)
    assert [(e.name, e.status) for e in finished] == [
        (e.name, "done") for e in spawned
    ]
    # the fix request carried the review finding to the code agent
    fix_request = fake_model.requests[10]["messages"]
    assert "util.py:2 NameError: nme is not defined" in fix_request[-1]["content"]
    # the test agent and QA really ran the detected command, each as itself
    test_id, qa_id = spawned[-2].agent_id, spawned[-1].agent_id
    bash = [e for e in s.of(ToolCallFinished) if e.name == "bash"]
    assert [(e.agent_id, e.status, e.exit_code) for e in bash] == [(test_id, "ok", 0),
                                                                   (qa_id, "ok", 0)]
    assert "ok" in bash[0].output
    report = s.orchestrator.gates
    assert report is not None and report.passed and report.fix_rounds == 1
    assert [(g["name"], g["verdict"]) for g in report.gates()] == [
        ("review", "passed"), ("test", "passed"), ("qa", "passed")]
    assert sorted(report.files) == ["app.py", "util.py"]
    assert fake_model.pending == 0
