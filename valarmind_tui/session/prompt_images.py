"""The images a prompt takes to the model: those `/image` or an ACP client attached, then the
ones the prompt names (`@shot.png`, a pasted path), each told to the person in one line."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from valarmind_tui.context.image_mentions import image_paths
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.events import Notice
from valarmind_tui.media.images import ImageAttachment, load_image
from valarmind_tui.media.parts import image_line
from valarmind_tui.safety.paths import PathOutsideProject


async def images_for_prompt(
    prompt: str, attached: list[ImageAttachment], root: Path, bus: EventBus,
    sees_images: Callable[[], Awaitable[bool]], model: str | None,
) -> list[ImageAttachment]:
    """`attached` and the images `prompt` names, when the model reads images; otherwise none,
    and the person is told so once. An image that cannot be read is a warning, not a stop."""
    images = list(attached)
    for path in image_paths(prompt, root):
        try:
            images.append(await asyncio.to_thread(load_image, root, path))
        except PathOutsideProject as exc:  # the prompt's text may come from elsewhere
            bus.publish(Notice(level="warning", message=(
                f"{path} not attached: {exc} An image of yours elsewhere (a screenshot in "
                f"~/Desktop) goes with `/image {path}`.")))
        except (ValarMindError, OSError) as exc:
            bus.publish(Notice(level="warning", message=f"{path} not attached: {exc}"))
    if not images:
        return []
    if not await sees_images():
        names = ", ".join(image.name for image in images)
        bus.publish(Notice(level="warning", message=(
            f"{model} does not read images: the prompt goes without {names}. Choose a vision "
            "model (/model), or set [images] vision = true if it does read them.")))
        return []
    for image in images:
        bus.publish(Notice(level="info", message=image_line(image)))
    return images
