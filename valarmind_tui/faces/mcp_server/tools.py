"""The tools `valarmind mcp serve` exposes: arguments, output schema and the steps of each.

Project tools (review, search, init, qa) are in data.py; the agent_* tools (seed 004) run
an agent defined here (prompt, tools, turns) in the project's agent loop. Every tool has the
same three steps (see data.py): gather (no model), think (a model), present (raw answer).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.faces.mcp_server import data
from valarmind_tui.faces.mcp_server import params as p
from valarmind_tui.faces.mcp_server.think import Answer, Call

AGENT_TIMEOUT_S = 300.0
TREE_CHARS = 6_000

Gather = Callable[[Call], Awaitable[dict[str, Any]]]
Think = Callable[[Call, dict[str, Any]], Awaitable[Answer]]
Present = Callable[[Call, dict[str, Any]], Answer]


@dataclass(frozen=True)
class ServerTool:
    """One exposed tool."""

    name: str
    description: str
    params: type[p.Params]
    gather: Gather
    think: Think
    present: Present
    read_only: bool = True


PROJECT_TOOLS = [
    ServerTool(
        "review", "Review the working tree, the staged changes, a ref or a ref range: the diff, "
        "linters' findings on the changed files, and (with a model) the review agent's findings "
        "with severity, file:line and a suggested fix.",
        p.ReviewParams, data.gather_review, data.think_review, data.present_review,
    ),
    ServerTool(
        "search", "Search the project: file names and contents matching a query (regex or "
        "text); with a model, the search agent explores and reports findings at path:line.",
        p.SearchParams, data.gather_search, data.think_search, data.present_search,
    ),
    ServerTool(
        "init", "Draft VALARMIND.md (project guide for agents); with write=true and a server "
        "started with --permission-mode accept-edits or bypass, write it.",
        p.InitParams, data.gather_init, data.think_init, data.present_init, read_only=False,
    ),
    ServerTool(
        "qa", "Quality checks: the project's detected build/lint/type/test commands; with "
        "run=true (server started with --permission-mode bypass) run them and report.",
        p.QaParams, data.gather_qa, data.think_qa, data.present_qa, read_only=False,
    ),
]


def _dump(value: Any, limit: int = 60_000) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)
    return text[:limit]


def _ctx(args: Any) -> str:
    return f"\n\nContext:\n{_dump(args.context)}" if args.context else ""


@dataclass(frozen=True)
class AgentTask:
    """An agent_* tool: its agent's prompt, how the task is worded, whether it uses tools."""

    system: str
    prompt: Callable[[Any], str]
    uses_tools: bool = False

    def spec(self, name: str, args: Any) -> AgentSpec:
        """A read-only agent for this call (agent_delegate: the allowed read tools)."""
        tools: tuple[str, ...] = ()
        turns = 2
        if self.uses_tools:
            tools = tuple(args.allowedTools or ["*"])
            turns = args.maxIterations
        return AgentSpec(name=name, description=f"MCP tool {name}", system_prompt=self.system,
                         tools=tools, timeout_s=AGENT_TIMEOUT_S, max_turns=turns,
                         exclude_project_context=not self.uses_tools, source="mcp")


def _stats(args: Any) -> dict[str, int]:
    text = "\n".join(v for k, v in args.model_dump(by_alias=True).items()
                     if isinstance(v, str) and k in ("content", "instructions", "question"))
    return {"chars": len(text), "words": len(text.split()), "lines": text.count("\n") + 1}


def _agent_steps(name: str, task: AgentTask) -> tuple[Gather, Think, Present]:
    async def gather(call: Call) -> dict[str, Any]:
        call.gathered.update({
            "task": {"system": task.system, "prompt": task.prompt(call.args)},
            "input": call.args.model_dump(by_alias=True, exclude_none=True),
        })
        if task.uses_tools:  # a first look at the project, as the agent would take
            from valarmind_tui.tools.files.tree_view import TreeView

            tree = await data.run_tool(call, TreeView(), {"path": ".", "depth": 2})
            call.gathered["project_tree"] = tree.output[:TREE_CHARS]
        else:
            call.gathered["input_stats"] = _stats(call.args)
        return call.gathered

    async def think(call: Call, gathered: dict[str, Any]) -> Answer:
        spec = task.spec(name, call.args)
        result = await call.delegator(spec).run(name, gathered["task"]["prompt"])
        return data.from_delegation(result)

    def present(call: Call, gathered: dict[str, Any]) -> Answer:
        summary = f"{name}: no model thought here; the prepared task is for your model"
        text = (f"{summary}.\n\nInstructions: {task.system}\n\nTask:\n"
                f"{gathered['task']['prompt']}")
        if "project_tree" in gathered:
            text += f"\n\nProject layout:\n{gathered['project_tree']}"
        return Answer(text, gathered, summary)

    return gather, think, present


AGENT_TASKS: dict[str, tuple[str, type[p.Params], AgentTask]] = {
    "agent_delegate": (
        "Delegate a sub-task to an autonomous agent that may use ValarMind's read-only project "
        "tools (read_file, glob, grep, tree_view, git_diff, ...).",
        p.DelegateParams,
        AgentTask("You are an autonomous agent working on a software project. Use the tools "
                  "when they help, then give the final answer.",
                  lambda a: a.goal + _ctx(a), uses_tools=True),
    ),
    "agent_decide": (
        "Make a decision: yes/no or one of the given options, with the reason.",
        p.DecideParams,
        AgentTask("You make decisions. Answer with JSON: {\"decision\": ..., \"reason\": ...}.",
                  lambda a: (f"Question: {a.question}\nOptions: "
                             f"{a.options or ['yes', 'no']}" + _ctx(a))),
    ),
    "agent_analyze": (
        "Analyze data and report structured observations.",
        p.AnalyzeParams,
        AgentTask("You analyze data. Answer with JSON: {\"observations\": [...], "
                  "\"conclusion\": ...}.",
                  lambda a: (f"Analyze{' for ' + a.focus if a.focus else ''}:\n"
                             f"{_dump(a.data)}")),
    ),
    "agent_extract": (
        "Extract data from content following a JSON schema.",
        p.ExtractParams,
        AgentTask("You extract data. Answer only with JSON that matches the schema.",
                  lambda a: f"Schema:\n{_dump(a.schema_)}\n\nContent:\n{a.content}"),
    ),
    "agent_classify": (
        "Classify content into one of the given categories.",
        p.ClassifyParams,
        AgentTask("You classify. Answer with JSON: {\"category\": ..., \"confidence\": 0..1}.",
                  lambda a: f"Categories: {a.categories}\n\nContent:\n{a.content}"),
    ),
    "agent_summarize": (
        "Summarize content.",
        p.SummarizeParams,
        AgentTask("You summarize faithfully and briefly.",
                  lambda a: f"Summarize in at most {a.max_words} words:\n{a.content}"),
    ),
    "agent_generate": (
        "Generate content (code, text...) from instructions.",
        p.GenerateParams,
        AgentTask("You generate exactly what is asked, nothing else.",
                  lambda a: (a.instructions + (f"\nFormat: {a.format}" if a.format else "")
                             + _ctx(a))),
    ),
    "agent_compare": (
        "Compare and rank options against criteria.",
        p.CompareParams,
        AgentTask("You compare options. Answer with JSON: {\"ranking\": [...], "
                  "\"reasons\": {...}}.",
                  lambda a: (f"Criteria: {a.criteria or ['overall quality']}\n\nItems:\n"
                             f"{_dump(a.items)}")),
    ),
}

AGENT_TOOLS = [ServerTool(name, description, params, *_agent_steps(name, task))
               for name, (description, params, task) in AGENT_TASKS.items()]

ALL_TOOLS = {t.name: t for t in PROJECT_TOOLS + AGENT_TOOLS}
