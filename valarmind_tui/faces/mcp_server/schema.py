"""The outputSchema of each `valarmind mcp serve` tool: one envelope, and per tool its raw data.

Every result's structuredContent fits its tool's schema (clients such as the Inspector validate
it); the envelope's fields are documented in docs/mcp.md.
"""

from __future__ import annotations

from typing import Any

MODES = ["raw", "own-model", "sampling"]
STOP_REASONS = ["endTurn", "maxTokens", "maxTurns", "modelError", "timeout"]
"""endTurn: finished; maxTokens: the model's last answer was cut at its token limit; maxTurns:
the agent used up its turns (partial answer); modelError: the model (or the client's sampling)
failed and the raw data is the answer; timeout: the tool's time limit ran out (isError, with
the data gathered so far)."""

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}
_OBJS: dict[str, Any] = {"type": "array", "items": {"type": "object"}}


def _obj(description: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "description": description, "properties": props}


_TASK = _obj("What the tool would ask a model: use it with your own model",
             system=_STR, prompt=_STR)
_AGENT_RAW = _obj(
    "The prepared task and the measured input (raw mode; no model ran)",
    task=_TASK, input=_obj("The validated arguments"),
    input_stats=_obj("Size of the text inputs", chars=_INT, words=_INT, lines=_INT),
)

RAW_DATA: dict[str, dict[str, Any]] = {
    "review": _obj(
        "The change and every static finding",
        target=_STR, files=_STRS, diff={**_STR, "description": "unified diff, secrets scrubbed"},
        findings={**_OBJS, "description": "severity, file, line, message, source, category"},
        linters=_STRS, notes=_STRS, model_ran={"type": "boolean"},
    ),
    "search": _obj(
        "File names and lines matching the query",
        query=_STR, files=_STRS, total_matches=_INT,
        matches={"type": "array", "items": _obj("", path=_STR, line=_INT, text=_STR)},
    ),
    "init": _obj(
        "The VALARMIND.md draft",
        draft=_STR, mode={**_STR, "enum": ["create", "update"]}, tokens=_INT,
        diff_vs_existing=_STR, drafted_without_model={"type": "boolean"},
        warnings=_STRS, kept_edited={**_STRS, "description": "blocks you edited, kept as they are"},
        missing={**_STRS, "description": "required fields to fill in"},
    ),
    "qa": _obj(
        "Detected project commands and, when run, their results",
        commands={**_OBJS, "description": "kind, command, source"},
        results={"type": "array", "items": _obj("", command=_STR, passed={"type": "boolean"},
                                                 output=_STR)},
    ),
    "agent_delegate": _obj(
        "The prepared task and the project's layout (raw mode)",
        task=_TASK, input=_obj("The validated arguments"),
        project_tree={**_STR, "description": "tree_view of the project, depth 2"},
    ),
}


def output_schema(tool: str) -> dict[str, Any]:
    """The envelope every result of `tool` has."""
    nullable_int = {"type": ["integer", "null"]}
    return {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": MODES,
                     "description": "who thought: nobody (raw), our model, the client's model"},
            "summary": {"type": "string", "description": "one line on what was found"},
            "stopReason": {"type": "string", "enum": STOP_REASONS},
            "execution_time_ms": {"type": "integer"},
            "tools_executed": {**_STRS, "description": "ValarMind tools that ran, sorted"},
            "tools_refused": {**_STRS, "description": (
                "tools the agent asked for that never ran (refused by the permission gate, not "
                "offered to it, invalid arguments), sorted")},
            "usage": _obj(
                "Model tokens and cost of this call (null: not reported, e.g. by sampling)",
                prompt_tokens=nullable_int, completion_tokens=nullable_int,
                cost_usd={"type": ["number", "null"]}),
            "reviewers": {"type": "object", "description": (
                "per model reviewer that ran (your [reviewers] config): calls, prompt_tokens, "
                "completion_tokens, cost_usd; already counted in usage")},
            "llm_model": {"type": "string", "description": "the model that thought"},
            "fallback_reason": {"type": "string",
                                "description": "why the raw answer replaced the model's"},
            "error": {"type": "string", "description": "set when isError (e.g. timeout)"},
            "raw_data": RAW_DATA.get(tool, _AGENT_RAW),
            "result": {"description": "the model's answer (a validated result or text)"},
            "status": {"type": "string", "description": "how the agent run ended"},
            "problem": {"type": "string"},
            "written": {"type": "string", "description": "the file written (init)"},
        },
        "required": ["mode", "summary", "stopReason", "execution_time_ms", "tools_executed",
                     "usage"],
    }
