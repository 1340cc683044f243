"""The built-in slash commands. Every face runs them through `Session.run_command`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from valarmind_tui.commands.agent import register_agent_commands
from valarmind_tui.commands.commit import register_commit_commands
from valarmind_tui.commands.knowledge import register_context_commands
from valarmind_tui.commands.registry import (
    CommandRegistry,
    CommandResult,
    command,
    refused_while_busy,
)
from valarmind_tui.commands.session import register_session_commands
from valarmind_tui.safety.approval import PermissionMode

if TYPE_CHECKING:
    from valarmind_tui.session import Session


def builtin_commands() -> CommandRegistry:
    """A fresh registry with the built-in commands; plugins add theirs to it."""
    registry = CommandRegistry()

    @command(registry, "help", "list the commands")
    async def help_(session: Session, args: str) -> CommandResult:
        rows = [f"- `/{c.name}{' ' + c.usage if c.usage else ''}`: {c.help}"
                for c in session.commands.all()]
        return CommandResult("Commands:\n" + "\n".join(rows))

    @command(registry, "model", "show or switch the model", usage="[NAME|ALIAS]")
    async def model(session: Session, args: str) -> CommandResult:
        settings = session.settings
        if args:
            session.set_model(args)
            return CommandResult(f"Model set to `{session.model}`.")
        aliases = "\n".join(f"- `{k}` → `{v}`" for k, v in settings.aliases.items())
        current = session.model or "none (offline mode)"
        text = f"Current model: `{current}`."
        if aliases:
            text += "\n\nAliases:\n" + aliases
        return CommandResult(text + "\n\nSwitch with `/model NAME` (any LiteLLM model string).")

    @command(registry, "mode", "show or set the permission mode",
             usage="[default|accept-edits|plan|bypass]")
    async def mode(session: Session, args: str) -> CommandResult:
        if args:
            try:
                session.set_mode(PermissionMode(args))
            except ValueError:
                modes = ", ".join(m.value for m in PermissionMode)
                return CommandResult(f"Unknown mode {args!r}; one of: {modes}.", ok=False)
        return CommandResult(f"Permission mode: `{session.mode.value}`.")

    @command(registry, "plan", "plan mode: read-only research, then a plan to approve")
    async def plan(session: Session, args: str) -> CommandResult:
        if args and session.busy:  # a question runs a turn; the mode alone is safe mid-turn
            return refused_while_busy("plan QUESTION")
        session.set_mode(PermissionMode.PLAN)
        if args:
            result = await session.submit(args)
            return CommandResult(result.text, ok=result.status == "done")
        return CommandResult("Plan mode on: only read tools run until a plan is approved.")

    @command(registry, "clear", "start a fresh conversation", idle_only=True)
    async def clear(session: Session, args: str) -> CommandResult:
        await session.clear_with_hooks()
        return CommandResult("Conversation cleared.", action="clear")

    @command(registry, "cost", "tokens and cost of this session (the reviewers' share apart)")
    async def cost(session: Session, args: str) -> CommandResult:
        totals = session.totals
        reviewers = session.gate.reviewers
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

    @command(registry, "theme", "switch the colour theme", usage="NAME")
    async def theme(session: Session, args: str) -> CommandResult:
        if not args:
            return CommandResult("Usage: /theme NAME", ok=False)
        return CommandResult(f"Theme: {args}", action=f"theme:{args}")

    @command(registry, "sandbox", "what commands the assistant runs may do (bubblewrap)")
    async def sandbox(session: Session, args: str) -> CommandResult:
        box = session.sandbox
        return CommandResult(box.describe(session.project_root), ok=not box.unavailable,
                             data={"active": box.active, "reason": box.reason})

    @command(registry, "trust", "whether this folder's own configuration is loaded",
             usage="[yes|no]")
    async def trust(session: Session, args: str) -> CommandResult:
        from valarmind_tui.trust import remember, repository_config

        present = ", ".join(repository_config(session.project_root)) or "none"
        now = "trusted" if session.settings.project_trusted else "not trusted"
        answer = args.strip().lower()
        if answer not in ("yes", "no"):
            return CommandResult(
                f"This folder is {now}. Its own configuration: {present}. `/trust yes` loads it "
                "from the next start; `/trust no` stops loading it. A repository can never set "
                "the mode, endpoints, keys or sandbox either way.")
        path = remember(session.project_root, answer == "yes")
        verb = "trusted" if answer == "yes" else "no longer trusted"
        return CommandResult(f"This folder is {verb} (saved in {path}); restart ValarMind for "
                             "it to take effect.")

    @command(registry, "hooks", "the active hooks and the config file each came from")
    async def hooks(session: Session, args: str) -> CommandResult:
        active = session.hooks.hooks
        if not active:
            where = "your config" + (" or this project's" if session.settings.project_trusted
                                     else " (this project's is not read: it is not trusted)")
            return CommandResult(f"No hooks are configured. Add `[[hooks.PreToolUse]]` tables to "
                                 f"{where}; see the README's Hooks section.")
        rows = [f"- {h.event} `{h.matcher or '*'}`: `{h.command}` (timeout {h.timeout:g} s) "
                f"from {h.source}" for h in active]
        data = [{"event": h.event, "matcher": h.matcher, "command": h.command,
                 "timeout": h.timeout, "source": h.source} for h in active]
        return CommandResult("Active hooks:\n" + "\n".join(rows), data={"hooks": data})

    @command(registry, "quit", "leave ValarMind")
    async def quit_(session: Session, args: str) -> CommandResult:
        return CommandResult("Bye.", action="quit")

    register_context_commands(registry)
    register_agent_commands(registry)
    register_session_commands(registry)
    register_commit_commands(registry)
    return registry
