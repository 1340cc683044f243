"""Scripted model turns shared by the UI and REPL tests: an edit made through the code agent."""

from __future__ import annotations

from typing import Any

from tests.fakes.model_server import ScriptedTurn

ORIGINAL = "def greet(name):\n    return 'Hello ' + name\n"
CHANGED = ORIGINAL.replace("'Hello '", "'Hi '")
EDIT = {"name": "edit_file", "arguments": {
    "path": "app.py", "old_string": "'Hello '", "new_string": "'Hi '"}}


def edit_through_code_agent(final: str) -> list[ScriptedTurn]:
    """The orchestrator delegates to the code agent, which asks to edit app.py, reports in
    JSON, and the orchestrator answers `final`."""
    return [
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "Make greet say Hi instead of Hello in app.py."}}]),
        ScriptedTurn(tool_calls=[EDIT]),
        ScriptedTurn(text='{"summary": "Asked to edit app.py."}'),
        ScriptedTurn(text=final),
    ]


def tool_messages(request: dict[str, Any]) -> list[str]:
    """The tool results a model request carried."""
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]
