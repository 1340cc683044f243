"""The person's own slash commands (`setup/commands.py`) and skills typed as `/name`, in the
registry beside the built-in ones, and `/skills`.

A name a built-in (or a plugin) already has is never taken over and never silent: the file's
command is `/project:name` or `/user:name`, its /help line says which built-in kept the name,
and the session starts with a notice. Running one puts the arguments in, runs each inlined
command through `ctx.run_shell` (the gate and the sandbox, asked like any command), reads each
inlined file as an `@mention` is read (inside the project, links included), and sends the text
as a prompt: it is the file's text, never read again as a slash command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from valarmind_tui.commands.registry import Command, CommandRegistry, CommandResult, Handler
from valarmind_tui.context.attachments import read_attachment
from valarmind_tui.core.errors import ToolError, ValarMindError
from valarmind_tui.providers.call_origin import calls_for
from valarmind_tui.setup.command_text import expand
from valarmind_tui.setup.commands import CustomCommand
from valarmind_tui.setup.report import Scope
from valarmind_tui.setup.skills import Skill
from valarmind_tui.tools.skills.skill import skill_text

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


def register_custom_commands(
    registry: CommandRegistry, commands: list[CustomCommand], skills: list[Skill]
) -> list[str]:
    """Register each command and skill; one notice per name that had to move."""
    notices: list[str] = []
    for command in commands:
        where = f"{command.scope.value} command, {command.path}"
        help_ = command.description or f"{command.tool} command"
        notices += _register(registry, command.name, f"{command.scope.value}:{command.name}",
                             help_, where, command.argument_hint, _command_handler(command))
    for command in commands:  # Claude Code names `frontend/component.md` just /component
        bare = command.name.rpartition(":")[2]
        if command.tool == "claude" and bare != command.name and registry.get(bare) is None:
            registry.register(Command(bare, f"same as /{command.name}",
                                      _command_handler(command), usage=command.argument_hint,
                                      idle_only=True))
    for skill in skills:
        help_ = f"skill: {skill.description or skill.name}"
        notices += _register(registry, skill.name, f"skill:{skill.name}", help_,
                             f"skill, {skill.path}", "[what to do]", _skill_handler(skill))
    registry.register(Command("skills", "the skills the model may load, and where each is from",
                              handler=_skills_handler(skills)))
    return notices


def _register(registry: CommandRegistry, name: str, fallback: str, help_: str, where: str,
              usage: str, handler: Handler) -> list[str]:
    if registry.register(Command(name, f"{help_} ({where})", handler, usage=usage,
                                 idle_only=True)):
        return []
    taken = f"/{name} is {'built in' if registry.get(name) else 'taken'}"
    moved = Command(fallback, f"{help_} ({where}; {taken}, so this one is /{fallback})",
                    handler, usage=usage, idle_only=True)
    if registry.register(moved):
        return [f"/{name} from {where.split(', ', 1)[-1]} is /{fallback}: the built-in /{name} "
                "keeps its name."]
    return [f"/{name} from {where.split(', ', 1)[-1]} was left out: /{name} and /{fallback} "
            "are both taken."]


def _command_handler(command: CustomCommand) -> Handler:
    async def run(ctx: CommandContext, args: str) -> CommandResult:
        parts: list[str] = []
        for piece in expand(command.template, args, command.syntax):
            if piece.kind == "text":
                parts.append(piece.value)
            elif piece.kind == "shell":
                result = await ctx.run_shell(piece.value)
                denied = isinstance(result.data, dict) and result.data.get("denied") is True
                parts.append(f"[`{piece.value}` was not run: {result.output.strip()}]"
                             if denied else result.output.rstrip())
            else:
                try:
                    content = read_attachment(ctx.project_root, piece.value)
                except (ValarMindError, OSError) as exc:  # outside the project, a link out, gone
                    if piece.optional:
                        parts.append(f"@{piece.value}")
                        continue
                    return CommandResult(f"/{command.name} ({command.path}): {exc}", ok=False)
                parts.append(f"\n<file path=\"{piece.value}\">\n{content.rstrip()}\n</file>\n")
        with ctx.models.for_one_turn(turn_model(command, ctx.settings.aliases)):
            answer = await ctx.submit("".join(parts))
        return CommandResult(answer.text, ok=answer.status == "done")

    return run


def turn_model(command: CustomCommand, aliases: Mapping[str, str]) -> str | None:
    """The file's `model` for its turn: one of the person's aliases (`haiku`, `fast`), or for
    their own command a `provider/model`; a repository's file never names a model of its own.
    None: the session's model."""
    model = command.model.strip()
    if model in aliases or (command.scope is Scope.USER and "/" in model):
        return model
    return None


def _skill_handler(skill: Skill) -> Handler:
    async def run(ctx: CommandContext, args: str) -> CommandResult:
        try:
            text = skill_text(skill)
        except ToolError as exc:  # the file changed or went since the session started
            return CommandResult(f"/{skill.name}: {exc}", ok=False)
        request = args or "Apply this skill to the task at hand."
        with calls_for(skill=skill.name):  # the ledger names the skill on the prompt's calls
            answer = await ctx.submit(f"Use the skill {skill.name}:\n\n{text}\n\n{request}")
        return CommandResult(answer.text, ok=answer.status == "done")

    return run


def _skills_handler(skills: list[Skill]) -> Handler:
    async def run(ctx: CommandContext, args: str) -> CommandResult:
        if not skills:
            return CommandResult(
                "No skills found. A skill is a folder with a SKILL.md in .valarmind/skills/, "
                ".agents/skills/, .claude/skills/ or .gemini/skills/ (trusted projects), or "
                "~/.config/valarmind/skills/, ~/.agents/skills/, ~/.claude/skills/, "
                "~/.codex/skills/, ~/.gemini/skills/.")
        rows = ["| skill | from | description |", "|---|---|---|"]
        rows += [f"| {s.name} | {s.scope.value} ({s.tool}): `{s.path}` | {s.description} |"
                 for s in skills]
        return CommandResult("\n".join(rows), data=skills)

    return run

