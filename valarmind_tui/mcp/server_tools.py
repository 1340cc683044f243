"""The tools `valarmind mcp serve` exposes: input schemas, what each gathers, how it is asked.

Project tools (review, search, init, qa) gather real data first (seed 003) and then think about
it; the agent_* tools (seed 004) are pure thinking tasks, agent_delegate with a tool loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from valarmind_tui.mcp import server_data as data

_STR = {"type": "string"}
_OBJ = {"type": "object", "description": "Context data for the agent"}
_STRS = {"type": "array", "items": {"type": "string"}}


def _schema(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


@dataclass(frozen=True)
class ServerTool:
    """One exposed tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    system: str
    """System prompt when a model thinks about the task."""
    prompt: Callable[[dict[str, Any], Any], str]
    """(arguments, gathered data) -> the user message for the model."""
    gather: Callable[[Path, dict[str, Any]], Any] | None = None
    """Collects real data from the project; None for pure thinking tasks."""
    summarize: Callable[[Any], str] = field(default=lambda raw: "")
    """One line describing the gathered data (raw mode's summary)."""
    read_only: bool = True


def _dump(value: Any, limit: int = 60_000) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)
    return text[:limit]


def _ctx(args: dict[str, Any]) -> str:
    return f"\n\nContext:\n{_dump(args['context'])}" if args.get("context") else ""


def _review_summary(raw: dict[str, Any]) -> str:
    files = raw["stat"].splitlines()[-1].strip() if raw["stat"] else "no changes"
    return f"Diff of {raw['target']}: {files}; {len(raw['findings'])} static finding(s)"


def _search_summary(raw: dict[str, Any]) -> str:
    return (f"{len(raw['files'])} file name(s) and {len(raw['matches'])} line(s) "
            f"match {raw['query']!r}")


PROJECT_TOOLS = [
    ServerTool(
        "review", "Review the working tree or a git ref range: diff, static findings, and "
        "(with a model) a prioritized list of issues.",
        _schema([], target={**_STR, "description": "ref or range (e.g. HEAD~1..HEAD); "
                            "default: uncommitted changes"},
                paths={**_STRS, "description": "limit to these paths"},
                focus={**_STR, "description": "what to look at especially"}),
        "You are an expert code reviewer. Report concrete issues (file, line, severity, fix), "
        "most severe first. Be brief.",
        lambda a, raw: (f"Review this change. {a.get('focus') or ''}\n\nStatic findings:\n"
                        f"{_dump(raw['findings'])}\n\nDiff:\n{_dump(raw['diff'])}"),
        gather=lambda root, a: data.review(root, a.get("target"), a.get("paths")),
        summarize=_review_summary,
    ),
    ServerTool(
        "search", "Search the project: file names and contents matching a query (regex or text).",
        _schema(["query"], query={**_STR, "description": "text or regular expression"},
                glob={**_STR, "description": "only files matching this glob"},
                max_results={"type": "integer", "description": "default 50"}),
        "You are a code search specialist. From the findings, say where the answer is "
        "(path:line) and why, briefly.",
        lambda a, raw: f"Search: {a['query']}\n\nFindings:\n{_dump(raw)}",
        gather=lambda root, a: data.search(root, a["query"], a.get("glob"),
                                           int(a.get("max_results") or 50)),
        summarize=_search_summary,
    ),
    ServerTool(
        "init", "Draft VALARMIND.md (project guide for agents); with write=true and a server "
        "started with --permission-mode accept-edits or bypass, write it.",
        _schema([], write={"type": "boolean", "description": "write VALARMIND.md"}),
        "You write concise VALARMIND.md project guides for coding agents: purpose, layout, "
        "commands, conventions. Output only the Markdown.",
        lambda a, raw: f"Improve this draft using the facts given.\n\n{_dump(raw)}",
        gather=lambda root, a: data.init_draft(root),
        summarize=lambda raw: f"Draft from {raw['file_count']} files; commands: "
                              f"{', '.join(raw['commands']) or 'none detected'}",
        read_only=False,
    ),
    ServerTool(
        "qa", "Quality checks: detected test/lint commands; with run=true (server started with "
        "--permission-mode bypass) run them and report.",
        _schema([], run={"type": "boolean", "description": "run the detected commands"}),
        "You are a QA engineer. Summarize the checks' results: what failed and the likely cause.",
        lambda a, raw: f"QA data:\n{_dump(raw)}",
        gather=lambda root, a: {"commands": data.qa_commands(root)},
        summarize=lambda raw: f"{len(raw['commands'])} command(s) detected",
        read_only=False,
    ),
]

AGENT_TOOLS = [
    ServerTool(
        "agent_delegate", "Delegate a sub-task to an autonomous agent that may use read-only "
        "project tools (read_file, list_files, grep, git_diff).",
        _schema(["goal"], goal={**_STR, "description": "What the agent should accomplish"},
                context=_OBJ, allowedTools={**_STRS, "description": "Tool patterns"},
                maxIterations={"type": "number", "description": "Max iterations (default 5)"}),
        "You are an autonomous agent working on a software project. Use the tools when they "
        "help, then give the final answer.",
        lambda a, raw: a["goal"] + _ctx(a),
    ),
    ServerTool(
        "agent_decide", "Make a decision: yes/no or one of the given options, with the reason.",
        _schema(["question"], question=_STR, options=_STRS, context=_OBJ),
        "You make decisions. Answer with JSON: {\"decision\": ..., \"reason\": ...}.",
        lambda a, raw: (f"Question: {a['question']}\nOptions: "
                        f"{a.get('options') or ['yes', 'no']}" + _ctx(a)),
    ),
    ServerTool(
        "agent_analyze", "Analyze data and report structured observations.",
        _schema(["data"], data={"description": "the data to analyze"}, focus=_STR),
        "You analyze data. Answer with JSON: {\"observations\": [...], \"conclusion\": ...}.",
        lambda a, raw: f"Analyze{' for ' + a['focus'] if a.get('focus') else ''}:\n"
                       f"{_dump(a['data'])}",
    ),
    ServerTool(
        "agent_extract", "Extract data from content following a JSON schema.",
        _schema(["content"], content=_STR, schema={"type": "object"}),
        "You extract data. Answer only with JSON that matches the schema.",
        lambda a, raw: f"Schema:\n{_dump(a.get('schema') or {})}\n\nContent:\n{a['content']}",
    ),
    ServerTool(
        "agent_classify", "Classify content into one of the given categories.",
        _schema(["content", "categories"], content=_STR, categories=_STRS),
        "You classify. Answer with JSON: {\"category\": ..., \"confidence\": 0..1}.",
        lambda a, raw: f"Categories: {a['categories']}\n\nContent:\n{a['content']}",
    ),
    ServerTool(
        "agent_summarize", "Summarize content.",
        _schema(["content"], content=_STR, max_words={"type": "integer"}),
        "You summarize faithfully and briefly.",
        lambda a, raw: (f"Summarize in at most {a.get('max_words') or 100} words:\n"
                        f"{a['content']}"),
    ),
    ServerTool(
        "agent_generate", "Generate content (code, text...) from instructions.",
        _schema(["instructions"], instructions=_STR, context=_OBJ,
                format={**_STR, "description": "e.g. python, markdown, json"}),
        "You generate exactly what is asked, nothing else.",
        lambda a, raw: (a["instructions"] + (f"\nFormat: {a['format']}" if a.get("format")
                                             else "") + _ctx(a)),
    ),
    ServerTool(
        "agent_compare", "Compare and rank options against criteria.",
        _schema(["items"], items={"type": "array"}, criteria=_STRS),
        "You compare options. Answer with JSON: {\"ranking\": [...], \"reasons\": {...}}.",
        lambda a, raw: f"Criteria: {a.get('criteria') or ['overall quality']}\n\nItems:\n"
                       f"{_dump(a['items'])}",
    ),
]

ALL_TOOLS = {t.name: t for t in PROJECT_TOOLS + AGENT_TOOLS}
