"""An edit that introduces a type error puts the real basedpyright's diagnostic in the code
agent's next request to the model, through the whole session (fake model server, real tools,
real gate, real sandbox)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import ToolCallFinished
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_a_type_error_an_edit_causes_in_a_caller_reaches_the_code_agent(
        project: Path, fake_model: Any, model_settings: Any, pyright_on_path: str) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    done = json.dumps({"task": "t", "files_modified": [], "files_created": [],
                       "summary": "changed area", "lint_passed": True, "warnings": []})
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="area returns a str")]),
        ScriptedTurn(tool_calls=[call("read_file", path="report.py")]),
        ScriptedTurn(tool_calls=[call("edit_file", path="shapes.py",
                                      old_string="-> int:\n    return width * height",
                                      new_string="-> str:\n    return str(width * height)")]),
        ScriptedTurn(text=done),
        ScriptedTurn(text="done"),
    )
    settings = model_settings(project)
    settings.lsp.diagnostics_timeout_s = 20  # a cold server on a loaded machine
    session = build_session(settings, project, approver=PolicyApprover(allow_writes=True))
    events: list[Any] = []
    session.bus.add_listener(events.append)
    try:
        result = await session.submit("make area return a string")
    finally:
        await session.close()
    assert result.status == "done"
    edit = next(e for e in events if isinstance(e, ToolCallFinished) and e.name == "edit_file")
    assert edit.status == "ok"
    # the request after the edit carries the edit's result with the caller's new error
    after_edit = fake_model.requests[3]
    said = tool_messages(after_edit)[-1]
    assert "Diagnostics (basedpyright), shapes.py: no problems." in said
    # report.py was opened by the read (or, when the server was still starting then, with the
    # edit as an importer of shapes.py)
    assert ("Errors that appeared in other open files (basedpyright):" in said
            or "Errors in the files that import it, opened now (basedpyright):" in said)
    assert 'report.py:5:18 error: Type "str" is not assignable to declared type "int"' in said
    assert not session.lsp.running()  # closed with the session


async def test_without_a_server_edits_work_and_the_tools_say_none_was_found(
        project: Path, fake_model: Any, model_settings: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="code", task="area returns a str")]),
        ScriptedTurn(tool_calls=[call("edit_file", path="shapes.py", old_string="-> int:",
                                      new_string="-> str:")]),
        ScriptedTurn(tool_calls=[call("lsp_diagnostics", path="shapes.py")]),
        ScriptedTurn(text="{}"),
        ScriptedTurn(text="done"),
    )
    session = build_session(model_settings(project), project,
                            approver=PolicyApprover(allow_writes=True))
    events: list[Any] = []
    session.bus.add_listener(events.append)
    try:
        await session.submit("make area return a string")
    finally:
        await session.close()
    finished = {e.name: e for e in events if isinstance(e, ToolCallFinished)}
    assert finished["edit_file"].status == "ok"
    assert "-> str:" in (project / "shapes.py").read_text()
    assert "Diagnostics" not in finished["edit_file"].output
    assert finished["lsp_diagnostics"].status == "error"
    assert ("No language server for python was found on PATH (a project's own environment is "
            "used only once it is trusted); looked for: basedpyright, pyright, ruff."
            in finished["lsp_diagnostics"].output)
