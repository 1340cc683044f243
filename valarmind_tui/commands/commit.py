"""/commit: the commit chain (agents/commit_chain.py) for every face."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from valarmind_tui.agents.commit.chain import ChainDeps, CommitOptions, run_commit_chain
from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.core.errors import UsageError, ValarMindError

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext

USAGE = "[--push] [--no-review] [--all] [-m MESSAGE]"


async def commit(ctx: CommandContext, args: str) -> CommandResult:
    try:
        options = parse_options(args)
        provider = None
        if not ctx.offline and (options.review or options.message is None):
            provider = ctx.provider()
        deps = ChainDeps(
            root=ctx.project_root, run_check=ctx.run_shell, bus=ctx.bus,
            trusted=ctx.settings.project_trusted, provider=provider,
            model=ctx.settings.model_for_agent("commit"), settings=ctx.settings,
            sandbox=ctx.sandbox,
            editor=ctx.message_editor if ctx.message_editor.interactive else None)
        outcome = await run_commit_chain(deps, options)
    except ValarMindError as exc:  # nothing staged, no repository, no key for the model
        return CommandResult(str(exc), ok=False)
    return CommandResult(outcome.render(), ok=outcome.status == "done", data=outcome)


COMMANDS = (
    Command("commit", "check, review, write the message and commit what is staged",
            usage=USAGE, idle_only=True, handler=commit),
)


def parse_options(args: str) -> CommitOptions:
    """`--push --no-review --all -m MESSAGE`; anything else is a UsageError."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise UsageError(f"/commit: {exc}") from None
    flags = {"--push": "push", "--no-review": "no_review", "--all": "stage_all", "-a": "stage_all"}
    seen: set[str] = set()
    message: str | None = None
    while words:
        word = words.pop(0)
        if word in ("-m", "--message"):
            if not words:
                raise UsageError(f"/commit: {word} needs a message")
            message = words.pop(0)
        elif word.startswith("--message="):
            message = word.partition("=")[2]
        elif word in flags:
            seen.add(flags[word])
        else:
            raise UsageError(f"/commit: unknown argument {word!r}; usage: /commit {USAGE}")
    return CommitOptions(push="push" in seen, review="no_review" not in seen,
                         stage_all="stage_all" in seen, message=message)
