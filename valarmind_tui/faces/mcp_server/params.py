"""The arguments of each `valarmind mcp serve` tool, as strict pydantic models.

Strict on purpose: a client that sends `"false"` for a boolean or a string where a list is
expected gets an isError result naming the field, never a silent guess (a string `paths` used
to be read one character at a time). The input schemas the server lists are generated from these
models, so what is advertised is what is checked.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_ITERATIONS = 20


class ArgumentError(ValueError):
    """The arguments do not fit the tool's model; the message says which and why."""


class Params(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class ReviewParams(Params):
    target: str | None = Field(None, description="--staged, a ref or a range (e.g. HEAD~1..HEAD); "
                               "default: uncommitted changes. No other options.")
    paths: list[str] = Field(default_factory=list,
                             description="limit to these project file paths (an array)")


class SearchParams(Params):
    query: str = Field(min_length=1, description="text or regular expression")
    glob: str | None = Field(None, description="only files matching this glob")
    max_results: int = Field(50, ge=1, le=1000, description="at most this many files and lines")


class InitParams(Params):
    write: bool = Field(False, description="write VALARMIND.md (needs --permission-mode "
                        "accept-edits or bypass)")


class QaParams(Params):
    run: bool = Field(False, description="run the detected commands (needs --permission-mode "
                      "bypass)")


_CONTEXT = Field(None, description="Context data for the agent (an object or a text)")


class DelegateParams(Params):
    goal: str = Field(min_length=1, description="What the agent should accomplish")
    context: dict[str, Any] | str | None = _CONTEXT
    allowedTools: list[str] = Field(default_factory=list,  # noqa: N815 - the wire name
                                    description="Tool patterns (default: every read-only tool)")
    maxIterations: int = Field(5, ge=1, le=MAX_ITERATIONS,  # noqa: N815 - the wire name
                               description="Max iterations (default 5)")


class DecideParams(Params):
    question: str = Field(min_length=1)
    options: list[str] = Field(default_factory=list, description="default: yes or no")
    context: dict[str, Any] | str | None = _CONTEXT


class AnalyzeParams(Params):
    data: Any = Field(description="the data to analyze (any JSON value)")
    focus: str | None = Field(None, description="what to look for")


class ExtractParams(Params):
    content: str
    schema_: dict[str, Any] = Field(default_factory=dict, alias="schema",
                                    description="JSON schema of what to extract")


class ClassifyParams(Params):
    content: str
    categories: list[str] = Field(min_length=1)


class SummarizeParams(Params):
    content: str
    max_words: int = Field(100, ge=1, le=10_000)


class GenerateParams(Params):
    instructions: str = Field(min_length=1)
    context: dict[str, Any] | str | None = _CONTEXT
    format: str | None = Field(None, description="e.g. python, markdown, json")


class CompareParams(Params):
    items: list[Any] = Field(min_length=1, description="the options to compare")
    criteria: list[str] = Field(default_factory=list, description="default: overall quality")


def parse_arguments(tool: str, model: type[Params], arguments: dict[str, Any]) -> Params:
    """The validated arguments; ArgumentError naming every wrong field otherwise."""
    try:
        return model.model_validate(arguments, by_alias=True)
    except ValidationError as exc:
        problems = "; ".join(_problem(err) for err in exc.errors())
        raise ArgumentError(f"invalid arguments for {tool}: {problems}") from None


def _problem(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"]) or "arguments"
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown argument"
    if err["type"] == "missing":
        return f"{where}: required"
    value = err.get("input")
    got = f" (got {type(value).__name__} {_short(value)})"
    hint = ""
    if err["type"] == "list_type" and isinstance(value, str):
        hint = f'; send an array such as ["{value[:40]}"]'
    elif err["type"] == "bool_type" and isinstance(value, str):
        hint = "; send true or false, not a string"
    return f"{where}: {err['msg']}{got}{hint}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def input_schema(model: type[Params]) -> dict[str, Any]:
    """The model's JSON schema as a tool's inputSchema: no titles, and an optional field shown
    with its own type (`anyOf [X, null]` becomes X) so clients that convert by type work."""
    schema = model.model_json_schema(by_alias=True)
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        options = prop.get("anyOf")
        if options and {"type": "null"} in options:
            rest = [o for o in options if o != {"type": "null"}]
            del prop["anyOf"]
            if len(rest) == 1:
                prop.update(rest[0])
            else:
                prop["anyOf"] = rest
            if prop.get("default", 0) is None:
                del prop["default"]
    schema.setdefault("required", [])
    return schema
