"""General slash commands: /help, /model, /mode, /plan, /clear, /cost, /theme, /sandbox, /trust,
/hooks, /quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from valarmind_tui.commands.registry import Command, CommandResult, refused_while_busy
from valarmind_tui.safety.approval import PermissionMode

if TYPE_CHECKING:
    from valarmind_tui.commands.context import CommandContext


async def help_(ctx: CommandContext, args: str) -> CommandResult:
    rows = [f"- `/{c.name}{' ' + c.usage if c.usage else ''}`: {c.help}"
            for c in ctx.commands.all()]
    return CommandResult("Commands:\n" + "\n".join(rows))


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
    return CommandResult("Conversation cleared.", action="clear")


async def cost(ctx: CommandContext, args: str) -> CommandResult:
    totals = ctx.totals
    reviewers = ctx.gate.reviewers
    spent = reviewers.usage() if reviewers is not None else {}
    prompt = totals.prompt_tokens + sum(u.prompt_tokens for u in spent.values())
    completion = totals.completion_tokens + sum(u.completion_tokens for u in spent.values())
    usd = totals.cost_usd + sum(u.cost_usd for u in spent.values())
    text = (f"Tokens: {prompt:,} in, {completion:,} out. Cost: ${usd:.4f} (LiteLLM's "
            "local cost map; unknown models count 0).")
    rows = [f"- {name}: {u.calls} reviews, {u.prompt_tokens:,} in, "
            f"{u.completion_tokens:,} out, ${u.cost_usd:.4f}" for name, u in spent.items()]
    if rows:
        text += (f"\n\nAgents: {totals.prompt_tokens:,} in, {totals.completion_tokens:,} "
                 f"out, ${totals.cost_usd:.4f}. Reviewers:\n" + "\n".join(rows))
    data = {"prompt_tokens": prompt, "completion_tokens": completion, "cost_usd": usd,
            "reviewers": {n: {"calls": u.calls, "prompt_tokens": u.prompt_tokens,
                              "completion_tokens": u.completion_tokens,
                              "cost_usd": u.cost_usd} for n, u in spent.items()}}
    return CommandResult(text, data=data)


async def theme(ctx: CommandContext, args: str) -> CommandResult:
    if not args:
        return CommandResult("Usage: /theme NAME", ok=False)
    return CommandResult(f"Theme: {args}", action=f"theme:{args}")


async def sandbox(ctx: CommandContext, args: str) -> CommandResult:
    box = ctx.sandbox
    return CommandResult(box.describe(ctx.project_root), ok=not box.unavailable,
                         data={"active": box.active, "reason": box.reason})


async def trust(ctx: CommandContext, args: str) -> CommandResult:
    from valarmind_tui.trust import remember, repository_config

    present = ", ".join(repository_config(ctx.project_root)) or "none"
    now = "trusted" if ctx.settings.project_trusted else "not trusted"
    answer = args.strip().lower()
    if answer not in ("yes", "no"):
        return CommandResult(
            f"This folder is {now}. Its own configuration: {present}. `/trust yes` loads it "
            "from the next start; `/trust no` stops loading it. A repository can never set "
            "the mode, endpoints, keys or sandbox either way.")
    path = remember(ctx.project_root, answer == "yes")
    verb = "trusted" if answer == "yes" else "no longer trusted"
    return CommandResult(f"This folder is {verb} (saved in {path}); restart ValarMind for "
                         "it to take effect.")


async def hooks(ctx: CommandContext, args: str) -> CommandResult:
    active = ctx.hooks.hooks
    if not active:
        where = "your config" + (" or this project's" if ctx.settings.project_trusted
                                 else " (this project's is not read: it is not trusted)")
        return CommandResult(f"No hooks are configured. Add `[[hooks.PreToolUse]]` tables to "
                             f"{where}; see the README's Hooks section.")
    rows = [f"- {h.event} `{h.matcher or '*'}`: `{h.command}` (timeout {h.timeout:g} s) "
            f"from {h.source}" for h in active]
    data = [{"event": h.event, "matcher": h.matcher, "command": h.command,
             "timeout": h.timeout, "source": h.source} for h in active]
    return CommandResult("Active hooks:\n" + "\n".join(rows), data={"hooks": data})


async def quit_(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult("Bye.", action="quit")


COMMANDS = (
    Command("help", "list the commands", handler=help_),
    Command("model", "show or switch the model", usage="[NAME|ALIAS]", handler=model),
    Command("mode", "show or set the permission mode",
            usage="[default|accept-edits|plan|bypass]", handler=mode),
    Command("plan", "plan mode: read-only research, then a plan to approve", handler=plan),
    Command("clear", "start a fresh conversation", idle_only=True, handler=clear),
    Command("cost", "tokens and cost of this session (the reviewers' share apart)",
            handler=cost),
    Command("theme", "switch the colour theme", usage="NAME", handler=theme),
    Command("sandbox", "what commands the assistant runs may do (bubblewrap)", handler=sandbox),
    Command("trust", "whether this folder's own configuration is loaded", usage="[yes|no]",
            handler=trust),
    Command("hooks", "the active hooks and the config file each came from", handler=hooks),
    Command("quit", "leave ValarMind", handler=quit_),
)
