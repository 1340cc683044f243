"""The tools `valarmind mcp serve` exposes: input schemas and what runs for each.

Project tools (review, search, init, qa) are in server_data; the agent_* tools (seed 004) run
an agent defined here (prompt, tools, turns) in the project's agent loop.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.mcp import server_data as data
from valarmind_tui.mcp.server_think import Answer, Call

_STR = {"type": "string"}
_OBJ = {"type": "object", "description": "Context data for the agent"}
_STRS = {"type": "array", "items": {"type": "string"}}
DEFAULT_ITERATIONS = 5
AGENT_TIMEOUT_S = 300.0


def _schema(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


@dataclass(frozen=True)
class ServerTool:
    """One exposed tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    run: Callable[[Call], Awaitable[Answer]]
    read_only: bool = True


PROJECT_TOOLS = [
    ServerTool(
        "review", "Review the working tree, the staged changes, a ref or a ref range: the diff, "
        "linters' findings on the changed files, and (with a model) the review agent's findings "
        "with severity, file:line and a suggested fix.",
        _schema([], target={**_STR, "description": "--staged, a ref or a range (e.g. "
                            "HEAD~1..HEAD); default: uncommitted changes. No other options."},
                paths={**_STRS, "description": "limit to these project file paths"}),
        data.review,
    ),
    ServerTool(
        "search", "Search the project: file names and contents matching a query (regex or "
        "text); with a model, the search agent explores and reports findings at path:line.",
        _schema(["query"], query={**_STR, "description": "text or regular expression"},
                glob={**_STR, "description": "only files matching this glob"},
                max_results={"type": "integer", "description": "default 50"}),
        data.search,
    ),
    ServerTool(
        "init", "Draft VALARMIND.md (project guide for agents); with write=true and a server "
        "started with --permission-mode accept-edits or bypass, write it.",
        _schema([], write={"type": "boolean", "description": "write VALARMIND.md"}),
        data.init, read_only=False,
    ),
    ServerTool(
        "qa", "Quality checks: the project's detected build/lint/type/test commands; with "
        "run=true (server started with --permission-mode bypass) run them and report.",
        _schema([], run={"type": "boolean", "description": "run the detected commands"}),
        data.qa, read_only=False,
    ),
]


def _dump(value: Any, limit: int = 60_000) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)
    return text[:limit]


def _ctx(args: dict[str, Any]) -> str:
    return f"\n\nContext:\n{_dump(args['context'])}" if args.get("context") else ""


@dataclass(frozen=True)
class AgentTask:
    """An agent_* tool: its agent's prompt, how the task is worded, whether it uses tools."""

    system: str
    prompt: Callable[[dict[str, Any]], str]
    uses_tools: bool = False

    def spec(self, name: str, args: dict[str, Any]) -> AgentSpec:
        """A read-only agent for this call (agent_delegate: the allowed read tools)."""
        tools: tuple[str, ...] = ()
        if self.uses_tools:
            tools = tuple(args.get("allowedTools") or ["*"])
        turns = int(args.get("maxIterations") or DEFAULT_ITERATIONS) if self.uses_tools else 2
        return AgentSpec(name=name, description=f"MCP tool {name}", system_prompt=self.system,
                         tools=tools, timeout_s=AGENT_TIMEOUT_S, max_turns=max(1, turns),
                         exclude_project_context=not self.uses_tools, source="mcp")


def _agent_runner(name: str, task: AgentTask) -> Callable[[Call], Awaitable[Answer]]:
    async def run(call: Call) -> Answer:
        if call.provider is None:
            return Answer(f"No model is available to {name} (the client does not support "
                          f"sampling and no model is configured). The task for your model:\n\n"
                          f"{task.system}")
        spec = task.spec(name, call.args)
        result = await call.delegator(spec).run(name, task.prompt(call.args))
        return data.from_delegation(result)

    return run


AGENT_TASKS: dict[str, tuple[str, dict[str, Any], AgentTask]] = {
    "agent_delegate": (
        "Delegate a sub-task to an autonomous agent that may use ValarMind's read-only project "
        "tools (read_file, glob, grep, tree_view, git_diff, ...).",
        _schema(["goal"], goal={**_STR, "description": "What the agent should accomplish"},
                context=_OBJ, allowedTools={**_STRS, "description": "Tool patterns"},
                maxIterations={"type": "number", "description": "Max iterations (default 5)"}),
        AgentTask("You are an autonomous agent working on a software project. Use the tools "
                  "when they help, then give the final answer.",
                  lambda a: a["goal"] + _ctx(a), uses_tools=True),
    ),
    "agent_decide": (
        "Make a decision: yes/no or one of the given options, with the reason.",
        _schema(["question"], question=_STR, options=_STRS, context=_OBJ),
        AgentTask("You make decisions. Answer with JSON: {\"decision\": ..., \"reason\": ...}.",
                  lambda a: (f"Question: {a['question']}\nOptions: "
                             f"{a.get('options') or ['yes', 'no']}" + _ctx(a))),
    ),
    "agent_analyze": (
        "Analyze data and report structured observations.",
        _schema(["data"], data={"description": "the data to analyze"}, focus=_STR),
        AgentTask("You analyze data. Answer with JSON: {\"observations\": [...], "
                  "\"conclusion\": ...}.",
                  lambda a: (f"Analyze{' for ' + a['focus'] if a.get('focus') else ''}:\n"
                             f"{_dump(a['data'])}")),
    ),
    "agent_extract": (
        "Extract data from content following a JSON schema.",
        _schema(["content"], content=_STR, schema={"type": "object"}),
        AgentTask("You extract data. Answer only with JSON that matches the schema.",
                  lambda a: f"Schema:\n{_dump(a.get('schema') or {})}\n\nContent:\n"
                            f"{a['content']}"),
    ),
    "agent_classify": (
        "Classify content into one of the given categories.",
        _schema(["content", "categories"], content=_STR, categories=_STRS),
        AgentTask("You classify. Answer with JSON: {\"category\": ..., \"confidence\": 0..1}.",
                  lambda a: f"Categories: {a['categories']}\n\nContent:\n{a['content']}"),
    ),
    "agent_summarize": (
        "Summarize content.",
        _schema(["content"], content=_STR, max_words={"type": "integer"}),
        AgentTask("You summarize faithfully and briefly.",
                  lambda a: (f"Summarize in at most {a.get('max_words') or 100} words:\n"
                             f"{a['content']}")),
    ),
    "agent_generate": (
        "Generate content (code, text...) from instructions.",
        _schema(["instructions"], instructions=_STR, context=_OBJ,
                format={**_STR, "description": "e.g. python, markdown, json"}),
        AgentTask("You generate exactly what is asked, nothing else.",
                  lambda a: (a["instructions"] + (f"\nFormat: {a['format']}" if a.get("format")
                                                  else "") + _ctx(a))),
    ),
    "agent_compare": (
        "Compare and rank options against criteria.",
        _schema(["items"], items={"type": "array"}, criteria=_STRS),
        AgentTask("You compare options. Answer with JSON: {\"ranking\": [...], "
                  "\"reasons\": {...}}.",
                  lambda a: (f"Criteria: {a.get('criteria') or ['overall quality']}\n\nItems:\n"
                             f"{_dump(a['items'])}")),
    ),
}

AGENT_TOOLS = [ServerTool(name, description, schema, _agent_runner(name, task))
               for name, (description, schema, task) in AGENT_TASKS.items()]

ALL_TOOLS = {t.name: t for t in PROJECT_TOOLS + AGENT_TOOLS}
