"""General slash commands: /help, /model, /mode, /plan, /clear, /cost, /theme, /sandbox, /trust,
/hooks, /quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import (
    Clear,
    CommandResult,
    Quit,
    SwitchTheme,
    refused_while_busy,
)
from valarmind_tui.oversight.spending import session_usage
from valarmind_tui.safety.gate.approval import PermissionMode

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


HELP_KEYS = """Keys (TUI):
- Enter sends; Shift+Enter or Ctrl+J adds a line; Up/Down walk your earlier prompts
- Tab completes a command, its argument or an @path (nothing else: it never leaves the prompt)
- Shift+Tab cycles the permission mode; Esc stops the agent; Ctrl+B shows or hides the sidebar
- Ctrl+C twice quits

Also: `!command` runs a shell command (through the gate, in the sandbox); `@path` attaches a
file to the prompt; `# note` saves a note to a memory file you pick (/memory opens them)."""


async def help_(ctx: CommandContext, args: str) -> CommandResult:
    rows = [f"- `/{c.name}{' ' + c.usage if c.usage else ''}`: {c.help}"
            for c in ctx.commands.all()]
    return CommandResult("Commands:\n" + "\n".join(rows) + "\n\n" + HELP_KEYS)


async def model(ctx: CommandContext, args: str) -> CommandResult:
    settings = ctx.settings
    if args:
        ctx.set_model(args)
        return CommandResult(f"Model set to `{ctx.model}`.")
    aliases = "\n".join(f"- `{k}` → `{v}`" for k, v in settings.aliases.items())
    current = ctx.model or "none (offline mode)"
    text = f"Current model: `{current}`."
    if aliases:
        text += "\n\nAliases:\n" + aliases
    return CommandResult(text + "\n\nSwitch with `/model NAME` (any LiteLLM model string).")


async def mode(ctx: CommandContext, args: str) -> CommandResult:
    if args:
        try:
            ctx.set_mode(PermissionMode(args))
        except ValueError:
            modes = ", ".join(m.value for m in PermissionMode)
            return CommandResult(f"Unknown mode {args!r}; one of: {modes}.", ok=False)
    return CommandResult(f"Permission mode: `{ctx.mode.value}`.")


async def plan(ctx: CommandContext, args: str) -> CommandResult:
    if args and ctx.busy:  # a question runs a turn; the mode alone is safe mid-turn
        return refused_while_busy("plan QUESTION")
    ctx.set_mode(PermissionMode.PLAN)
    if args:
        result = await ctx.submit(args)
        return CommandResult(result.text, ok=result.status == "done")
    return CommandResult("Plan mode on: only read tools run until a plan is approved.")


async def clear(ctx: CommandContext, args: str) -> CommandResult:
    await ctx.clear_with_hooks()
    return CommandResult("Conversation cleared.", action=Clear())


async def cost(ctx: CommandContext, args: str) -> CommandResult:
    spent = session_usage(ctx.totals, ctx.gate.reviewers)
    return CommandResult(spent.describe(), data=spent.to_dict())


async def theme(ctx: CommandContext, args: str) -> CommandResult:
    """The face that has themes switches and answers (the TUI); a line-mode face has none."""
    return CommandResult("Themes apply to the TUI (`valarmind` without --plain).",
                         action=SwitchTheme(args))


async def sandbox(ctx: CommandContext, args: str) -> CommandResult:
    box = ctx.sandbox
    return CommandResult(box.describe(ctx.project_root), ok=not box.unavailable,
                         data={"active": box.active, "reason": box.reason})


async def trust(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.settings.trust.decision import CHANGED, decide, remember, repository_config

    present = ", ".join(repository_config(ctx.project_root)) or "none"
    now = "trusted" if ctx.settings.project_trusted else "not trusted"
    answer = args.strip().lower()
    if answer not in ("yes", "no"):
        decision = decide(ctx.project_root)
        changed = ""
        if decision.how == CHANGED and decision.changes is not None:
            changed = (f" Its configuration {CHANGED} ({decision.changes.names()}):\n"
                       f"{decision.changes.diff}\n")
        return CommandResult(
            f"This folder is {now}. Its own configuration: {present}.{changed} `/trust yes` "
            "loads it as it is now from the next start; `/trust no` stops loading it. A "
            "repository can never set the mode, endpoints, keys or sandbox either way.")
    path = remember(ctx.project_root, answer == "yes")
    verb = "trusted" if answer == "yes" else "no longer trusted"
    return CommandResult(f"This folder is {verb} (saved in {path}); restart ValarMind for "
                         "it to take effect.")


async def hooks(ctx: CommandContext, args: str) -> CommandResult:
    active = ctx.hooks.hooks
    if not active:
        where = "your config" + (" or this project's" if ctx.settings.project_trusted
                                 else " (this project's is not read: it is not trusted)")
        return CommandResult(
            f"No hooks are configured. Add them to {where}, in Claude Code's format, e.g.:\n\n"
            "```toml\n[[hooks.PostToolUse]]\nmatcher = \"Edit|Write\"\n"
            "[[hooks.PostToolUse.hooks]]\ntype = \"command\"\ncommand = \"ruff format --quiet .\"\n"
            "```\n\nEvents: PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, "
            "UserPromptSubmit, SubagentStart, "
            "Stop, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification. A hook "
            "gets the call as JSON on stdin; exit 2 blocks it.")
    rows = [f"- {h.event} `{h.matcher or '*'}`: `{h.command}` (timeout {h.timeout:g} s) "
            f"from {h.source}" for h in active]
    data = [{"event": h.event, "matcher": h.matcher, "command": h.command,
             "timeout": h.timeout, "source": h.source} for h in active]
    return CommandResult("Active hooks:\n" + "\n".join(rows), data={"hooks": data})


async def quit_(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult("Bye.", action=Quit())


COMMANDS = (
    Command("help", "list the commands", handler=help_),
    Command("model", "show or switch the model", usage="[NAME|ALIAS]", handler=model,
            choices=lambda ctx: [*ctx.settings.aliases, *([ctx.model] if ctx.model else [])]),
    Command("mode", "show or set the permission mode",
            usage="[default|accept-edits|plan|bypass]", handler=mode,
            choices=lambda ctx: [m.value for m in PermissionMode]),
    Command("plan", "plan mode: read-only research, then a plan to approve", handler=plan),
    Command("clear", "start a fresh conversation", idle_only=True, handler=clear),
    Command("cost", "tokens and cost of this session (the reviewers' share apart)",
            handler=cost),
    Command("theme", "switch the colour theme", usage="NAME", handler=theme),
    Command("sandbox", "what commands the assistant runs may do (bubblewrap)", handler=sandbox),
    Command("trust", "whether this folder's own configuration is loaded", usage="[yes|no]",
            handler=trust, choices=lambda ctx: ["yes", "no"]),
    Command("hooks", "the active hooks and the config file each came from", handler=hooks),
    Command("quit", "leave ValarMind", handler=quit_),
)
