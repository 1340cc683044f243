"""Tool schemas: made once per Params model, every tool given its own copy."""

from __future__ import annotations

from typing import Any

import pytest

from valarmind_tui.agents.delegation.tool import DelegateParams, DelegateTool
from valarmind_tui.tools.files.read_file import ReadFile
from valarmind_tui.tools.planning.task_tools import TaskCreateTool


def test_a_schema_is_the_params_json_schema_and_the_sibling_description() -> None:
    schema = ReadFile().schema()["function"]
    expected = ReadFile.Params.model_json_schema()
    expected.pop("title")
    assert schema["parameters"] == expected
    assert schema["name"] == "read_file" and len(schema["description"]) > 100  # the .md text


def test_each_tool_edits_its_own_copy_of_a_shared_schema() -> None:
    """The orchestrator's tools are new objects each prompt; their schemas come from one
    made per model, and the delegate tool's enum of specialists stays its own."""
    some, others, anyone = DelegateTool(["search"]), DelegateTool(["review", "qa"]), DelegateTool()

    def agents(tool: DelegateTool) -> object:
        return tool.schema()["function"]["parameters"]["properties"]["agent"].get("enum")

    assert agents(some) == ["search"]
    assert agents(others) == ["review", "qa"]
    assert agents(anyone) is None
    assert "enum" not in DelegateParams.model_json_schema()["properties"]["agent"]


def test_new_tool_objects_do_not_build_their_schema_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = []
    real = TaskCreateTool.Params.model_json_schema

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(TaskCreateTool.Params, "model_json_schema", counted)
    first, again = TaskCreateTool().schema(), TaskCreateTool().schema()
    assert first == again and first is not again
    assert len(made) <= 1  # at most once in this process, not once per tool object
