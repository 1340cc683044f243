"""/review on real git diffs: static findings from ruff, and the review agent's JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import as_json, call, commit_all
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.review.runner import run_review
from valarmind_tui.core.errors import UsageError

CHANGED = "import os\n\n\ndef greet(name):\n    return 'Hello ' + nmae\n"


async def test_static_review_of_working_tree_without_model(git_repo: Path) -> None:
    (git_repo / "app.py").write_text(CHANGED)
    report = await run_review(git_repo, [])
    assert report.target == "the working tree"
    assert report.files == ["app.py"]
    assert "+    return 'Hello ' + nmae" in report.diff
    assert report.linters == ["ruff", "ruff (security rules)"]
    located = {(f.file, f.line, f.message.split()[0], f.source) for f in report.findings}
    assert ("app.py", 1, "F401", "static:ruff") in located  # unused import os
    assert ("app.py", 5, "F821", "static:ruff") in located  # undefined name nmae
    undefined = next(f for f in report.findings if f.message.startswith("F821"))
    assert undefined.severity == "major"
    assert report.model_ran is False
    assert any("model review was skipped" in n for n in report.notes)
    table = report.to_markdown()
    assert "### major (1)\n\n- **app.py:5** `F821` F821 Undefined name `nmae`" in table
    data = report.to_dict()
    assert data["findings"][0]["file"] == "app.py" and data["model_ran"] is False


async def test_targets_staged_range_and_files(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("x = 1\n")
    commit_all(git_repo, "a")
    (git_repo / "b.py").write_text("import sys\n")
    report = await run_review(git_repo, ["HEAD~1..HEAD"])
    assert report.target == "HEAD~1..HEAD" and report.files == ["a.py"]
    assert [f.rule for f in report.findings] == ["tests:untouched"]
    untracked = await run_review(git_repo, [])
    assert untracked.files == ["b.py"]  # untracked files count as changes
    assert [(f.file, f.line) for f in untracked.findings if f.category == "lint"] == [
        ("b.py", 1)]
    staged = await run_review(git_repo, ["--staged"])
    assert staged.files == [] and "Nothing to review" in staged.notes[0]
    named = await run_review(git_repo, ["app.py"])  # a clean file: reviewed as it is
    assert named.files == ["app.py"] and named.diff == ""
    with pytest.raises(UsageError, match="not a file"):
        await run_review(git_repo, ["missing.py"])


async def test_model_review_adds_agent_findings(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "app.py").write_text(CHANGED)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("read_file", path="app.py")]),
        ScriptedTurn(text="```json\n" + as_json({
            "files_reviewed": ["app.py"], "approved": False, "summary": "typo breaks greet",
            "issues": [{"severity": "critical", "file": "app.py", "line": 5,
                        "message": "greet raises NameError", "category": "correctness",
                        "suggestedFix": "return 'Hello ' + name"}]}) + "\n```"),
    )
    s = stack(git_repo)
    report = await run_review(git_repo, [], delegator=s.orchestrator.delegator)
    assert report.model_ran and report.result is not None and not report.result.approved
    first = report.findings[0]  # sorted by severity: the model's critical one first
    assert (first.severity, first.file, first.line, first.source) == (
        "critical", "app.py", 5, "model")
    assert first.suggested_fix == "return 'Hello ' + name"
    assert {f.source for f in report.findings} == {"model", "static:ruff", "static:tests"}
    # the agent was given the diff and told what the linters found
    task = fake_model.requests[0]["messages"][1]["content"]
    assert "+    return 'Hello ' + nmae" in task and "F821" in task
    assert (git_repo / "app.py").read_text() == CHANGED


async def test_model_is_told_the_impact_and_its_repeats_are_merged(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "caller.py").write_text("from app import greet\n\n\ndef hi():\n"
                                        "    return greet('x')\n")
    commit_all(git_repo, "a caller")
    (git_repo / "app.py").write_text("def welcome(name):\n    return 'Hello ' + name\n")
    fake_model.script(ScriptedTurn(text=as_json({
        "summary": "rename breaks caller.py", "approved": False, "findings": [
            {"severity": "major", "file": "app.py", "line": 1, "category": "impact",
             "message": "greet was renamed; caller.py breaks"},  # what static found already
            {"severity": "minor", "file": "app.py", "line": 2, "category": "style",
             "message": "use an f-string", "confidence": 0.3}]})))
    report = await run_review(git_repo, [], delegator=stack(git_repo).orchestrator.delegator)
    task = fake_model.requests[0]["messages"][1]["content"]
    assert "Reference impact" in task and "`greet` renamed to `welcome`" in task
    assert "caller.py:1" in task
    sources = [(f.source, f.rule, f.line, f.confidence) for f in report.findings]
    assert ("static:impact", "impact:renamed", 1, 0.9) in sources
    assert [s for s in sources if s[0] == "model"] == [("model", None, 2, 0.3)]


async def test_a_secret_the_model_repeats_is_not_shown(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    key = "AKIAZ3MXQ7RT5PLW2KVN"
    (git_repo / "conf.py").write_text(f'KEY = "{key}"\n')
    fake_model.script(ScriptedTurn(tool_calls=[call("read_file", path="conf.py")]),
                      ScriptedTurn(text=as_json({
                          "summary": f"{key} is leaked", "approved": False, "findings": [
                              {"severity": "critical", "file": "conf.py", "line": 1,
                               "category": "security", "message": f"the key {key} is leaked",
                               "suggested_fix": f"rotate {key}"}]})))
    report = await run_review(git_repo, [], delegator=stack(git_repo).orchestrator.delegator)
    assert report.model_ran
    assert key not in fake_model.requests[0]["messages"][1]["content"]  # the task's diff
    shown = report.to_markdown() + str(report.to_dict())
    assert key not in shown and "the key [secret redacted] is leaked" in shown
