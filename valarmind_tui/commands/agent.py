"""Slash commands about agents and tools: /review, /tasks, /agents, /mcp, /lsp, /qa, MCP
prompts."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command, Handler
from valarmind_tui.commands.result import CommandResult

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext
    from valarmind_tui.commands.registry import CommandRegistry
    from valarmind_tui.mcp_client.manager import McpPrompt


async def review(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.agents.review.runner import run_review

    words = shlex.split(args)
    as_json = "--json" in words
    target = [w for w in words if w != "--json"]
    provider = None if ctx.offline else ctx.provider()
    report = await run_review(ctx.project_root, target, provider=provider,
                              settings=ctx.settings, bus=ctx.bus,
                              sandbox=ctx.sandbox)
    if as_json:
        return CommandResult(json.dumps(report.to_dict(), indent=2), data=report)
    return CommandResult(report.to_markdown(), data=report)


async def tasks(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(ctx.tasks.render() or "No tasks yet.", data=ctx.tasks)


async def agents(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(ctx.agents.render(), data=ctx.agents)


async def qa(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.context.project_commands import detect_commands

    found = detect_commands(ctx.project_root)
    if not found:
        return CommandResult("No build, lint or test commands detected.", ok=False)
    parts, ok = [], True
    for cmd in found:
        result = await ctx.run_shell(cmd.command)
        ok = ok and not result.is_error
        denied = isinstance(result.data, dict) and result.data.get("denied") is True
        mark = "not run (denied)" if denied else "failed" if result.is_error else "passed"
        parts.append(f"### `{cmd.command}` ({cmd.kind}): {mark}\n```\n"
                     f"{result.output[-3000:]}\n```")
    return CommandResult("\n\n".join(parts), ok=ok)


async def mcp(ctx: CommandContext, args: str) -> CommandResult:
    rows = ctx.mcp.status()
    if not rows:
        return CommandResult(
            "No MCP servers configured. Add `[mcp.servers.NAME]` to config.toml or an "
            "`.mcp.json` in the project."
        )
    lines = ["| server | state | transport | tools | schema tokens | prompts | note |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        note = r.error or (f"started in {r.start_s:.1f} s" if r.start_s else "")
        tokens = f"{r.schema_tokens:,}" + (" (on demand)" if r.on_demand else "")
        lines.append(f"| {r.name} | {r.state} | {r.transport} | {r.tools} | {tokens} | "
                     f"{r.prompts} | {note} |")
    if ctx.mcp.on_demand:
        lines.append("\nThe schemas exceed the share of the context window set by "
                     "mcp.schema_share: agents see short forms and load full ones with "
                     "mcp_tool_schema.")
    return CommandResult("\n".join(lines), data=rows)


async def lsp(ctx: CommandContext, args: str) -> CommandResult:
    if not ctx.lsp.settings.enabled:
        return CommandResult("Language servers are turned off (`[lsp] enabled = false` in your "
                             "config).", data=[])
    rows = ctx.lsp.status()
    lines = ["| language | server | state | found on | pid | open files | restarts | started in |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        took = f"{r.start_s:.1f} s" if r.start_s is not None else "-"
        lines.append(f"| {r.language} | {r.server or '-'} | {r.state} | {r.source or '-'} | "
                     f"{r.pid or '-'} | {r.open_files} | {r.restarts} | {took} |")
    problems = [f"- {p}" for r in rows for p in r.problems]
    if problems:
        lines += ["", "What went wrong:", *problems]
    lines += ["", "A server starts when an agent reads or edits a file of its language; it runs "
              "in the sandbox with the project read-only and no network."]
    return CommandResult("\n".join(lines), data=rows)


COMMANDS = (
    Command("review", "review the working tree, --staged, a ref range or files",
            usage="[--staged | A..B | FILES] [--json]", handler=review),
    Command("tasks", "the orchestrator's task list", handler=tasks),
    Command("agents", "the agents and what each may do", handler=agents),
    Command("qa", "run the project's detected build, lint and test commands", handler=qa),
    Command("mcp", "MCP servers: state, tools, prompts", handler=mcp),
    Command("lsp", "language servers: which run, what went wrong", handler=lsp),
)


def register_mcp_prompts(registry: CommandRegistry, prompts: list[McpPrompt]) -> None:
    """Each MCP prompt becomes `/mcp__<server>__<name> ARG=VALUE ...`, sent as a prompt."""
    for prompt in prompts:
        registry.register(Command(
            name=prompt.command, help=prompt.description or f"MCP prompt from {prompt.server}",
            handler=_prompt_handler(prompt),
            usage=" ".join(f"{name}=…" for name, _required, _ in prompt.arguments),
            idle_only=True,  # it runs a turn
        ))


def _prompt_handler(prompt: McpPrompt) -> Handler:
    async def run(ctx: CommandContext, args: str) -> CommandResult:
        """The prompt's text is the server's, untrusted: it goes to the model as a prompt
        (`submit` never reads it as a slash command)."""
        values = dict(word.split("=", 1) for word in shlex.split(args) if "=" in word)
        missing = [n for n, required, _ in prompt.arguments if required and n not in values]
        if missing:
            return CommandResult(f"Missing arguments: {', '.join(missing)}", ok=False)
        text = await ctx.mcp.get_prompt(prompt.server, prompt.name, values)
        result = await ctx.submit(text)
        return CommandResult(result.text, ok=result.status == "done")

    return run
