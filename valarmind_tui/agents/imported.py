"""Subagents from Claude Code, OpenCode and Gemini CLI files as our AgentSpecs.

Their tool names are mapped to ours (Claude's `Read`, OpenCode's `read`, Gemini's `read_file`);
no tools line gives a general-purpose agent's tools; `disallowedTools` removes; the permissions
follow from the tools (a reader never writes). `Bash(git diff:*)` keeps only its command
prefixes (`execute_allow`), so a scoped tool stays scoped. `model` goes through the person's
aliases (`sonnet`, `opus`, `haiku` mean what their config says they mean; `inherit` and an
unknown alias are the session's model); a repository's file never names a model of its own."""

from __future__ import annotations

import re

from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.settings.config import Settings
from valarmind_tui.setup.report import Scope
from valarmind_tui.setup.subagents import SubagentFile

GENERAL_TOOLS = ("read_file", "read_many_files", "glob", "grep", "tree_view", "git_status",
                 "git_diff", "repo_map", "write_file", "edit_file", "bash", "web_fetch",
                 "web_search", "skill", "mcp__*")
"""What an agent whose file has no tools line may use: everything but spawning agents."""
_NAMES: dict[str, tuple[str, ...]] = {
    # Claude Code and OpenCode (compared in lower case)
    "read": ("read_file", "read_many_files"), "write": ("write_file",),
    "edit": ("edit_file",), "multiedit": ("edit_file",), "notebookedit": ("edit_file",),
    "patch": ("edit_file",), "bash": ("bash",), "glob": ("glob",), "grep": ("grep",),
    "ls": ("tree_view",), "list": ("tree_view",), "webfetch": ("web_fetch",),
    "websearch": ("web_search", "web_fetch"), "task": ("delegate",), "skill": ("skill",),
    "todowrite": (), "todoread": (),
    # Gemini CLI
    "read_file": ("read_file",), "read_many_files": ("read_many_files",),
    "write_file": ("write_file",), "replace": ("edit_file",), "run_shell_command": ("bash",),
    "search_file_content": ("grep",), "grep_search": ("grep",), "list_directory": ("tree_view",),
    "web_fetch": ("web_fetch",), "google_web_search": ("web_search", "web_fetch"),
    "activate_skill": ("skill",),
}
_SCOPED = re.compile(r"^(\w+)\((.*)\)$")


def spec_from_file(agent: SubagentFile, settings: Settings | None) -> tuple[AgentSpec, list[str]]:
    """The spec, and a note per tool name or model that could not be used."""
    notes: list[str] = []
    if agent.tools is None:
        tools = list(GENERAL_TOOLS)
        prefixes: list[str] | None = None
    else:
        tools, prefixes = _mapped(agent.tools, notes)
    removed, _ = _mapped(agent.disallowed, notes)
    if agent.skills:
        tools.append("skill")
    tools = [t for t in dict.fromkeys(tools) if t not in removed]
    if "bash" in removed:
        prefixes = None
    permissions = AgentPermissions(
        read=True, write=bool({"write_file", "edit_file"} & set(tools)),
        execute="bash" in tools, web=bool({"web_fetch", "web_search"} & set(tools)),
        spawn="delegate" in tools,
        execute_allow=tuple(prefixes) if prefixes else None,
    )
    return AgentSpec(
        name=agent.name, description=agent.description or f"{agent.tool} agent {agent.name}",
        system_prompt=agent.prompt, tools=tuple(tools), permissions=permissions,
        model=_model(agent, settings, notes), max_turns=agent.max_turns or 50,
        source=f"{agent.scope.value} ({agent.tool})", path=str(agent.path),
        skills=agent.skills or None,
    ), notes


def _mapped(names: tuple[str, ...], notes: list[str]) -> tuple[list[str], list[str] | None]:
    """Our tool names for theirs, and the command prefixes of `Bash(...)` when every Bash
    entry is scoped (None: any command, as the mode allows)."""
    tools: list[str] = []
    prefixes: list[str] = []
    unscoped_bash = False
    for name in names:
        scoped = _SCOPED.match(name)
        base, scope = (scoped[1], scoped[2]) if scoped else (name, "")
        if base.startswith("mcp__"):
            tools.append(base if base.count("__") >= 2 else f"{base}__*")
            continue
        ours = _NAMES.get(base.lower())
        if ours is None:
            notes.append(f"tool {name!r} has no equivalent here")
            continue
        tools.extend(ours)
        if "bash" in ours:
            prefix = scope.removesuffix(":*").removesuffix("*").strip()
            if prefix:
                prefixes.append(prefix)
            else:
                unscoped_bash = True
    return tools, None if unscoped_bash or not prefixes else prefixes


def _model(agent: SubagentFile, settings: Settings | None, notes: list[str]) -> str | None:
    model = agent.model.strip()
    if not model or model == "inherit":
        return None
    aliases = settings.aliases if settings is not None else {}
    if model in aliases:
        return model
    if agent.scope is Scope.USER and "/" in model:
        return model
    notes.append(f"model {model!r} is not one of your aliases: the session's model runs it "
                 f"(set [aliases] {model} = \"provider/model\" to choose)")
    return None
