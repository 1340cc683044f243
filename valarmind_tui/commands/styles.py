"""/style: how the main agent writes its answers (context/styles.py), for this session."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.context.styles import NO_STYLE, find_styles

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


async def style(ctx: CommandContext, args: str) -> CommandResult:
    catalog = find_styles(ctx.project_root, Path.home())
    name = args.strip().lower()
    if name in NO_STYLE:
        ctx.output_style = None
        return CommandResult("Output style: the default (none).")
    if name:
        chosen = catalog.styles.get(name)
        if chosen is None:
            return CommandResult(f"No style {name!r}; there are: "
                                 f"{', '.join(sorted(catalog.styles))}.", ok=False)
        ctx.output_style = chosen
        return CommandResult(f"Output style: `{chosen.name}` ({chosen.description}). The next "
                             "answers follow it.")
    current = ctx.output_style.name if ctx.output_style else "default"
    rows = [f"- `{s.name}`{' (current)' if s.name == current else ''}: {s.description}"
            f"{'' if s.source == 'built-in' else f' · {s.source}'}"
            for s in catalog.styles.values()]
    text = (f"Output style: `{current}`. `/style NAME` to change it, `/style default` for none.\n"
            + "\n".join(rows))
    if catalog.problems:
        text += "\n\nSkipped:\n" + "\n".join(f"- {problem}" for problem in catalog.problems)
    return CommandResult(text)


def _names(ctx: CommandContext) -> list[str]:
    return [*find_styles(ctx.project_root, Path.home()).styles, "default"]


COMMANDS = [
    Command("style", "how the main agent writes: concise, explanatory, learning or your own",
            style, usage="[NAME]", choices=_names),
]
