"""/image PATH: a project image for the next prompt (the path checked like any attachment)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from valarmind_tui.commands.api import Command
from valarmind_tui.commands.result import CommandResult
from valarmind_tui.context.image_mentions import unquoted
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.media.parts import image_line

if TYPE_CHECKING:
    from valarmind_tui.commands.api import CommandContext


async def image(ctx: CommandContext, args: str) -> CommandResult:
    path = unquoted(args.strip())
    if not path:
        waiting = [image_line(i) for i in ctx.pending_images]
        if not waiting:
            return CommandResult("No image waits for the next prompt. Usage: /image PATH")
        return CommandResult("With the next prompt: " + "; ".join(waiting))
    try:
        attached = await asyncio.to_thread(ctx.attach_image, path)
    except (ValarMindError, OSError) as exc:
        return CommandResult(f"{path} not attached: {exc}", ok=False)
    return CommandResult(f"{image_line(attached)}: sent with your next prompt.")


COMMANDS = (
    Command("image", "attach an image (PNG, JPEG, GIF, WebP) to the next prompt",
            usage="PATH", handler=image),
)
