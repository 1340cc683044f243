"""Images inside chat messages: OpenAI-format content parts (LiteLLM turns them into each
provider's own: Anthropic's base64 `source`, Gemini's inline data), the line the person reads,
and the hash references a stored message holds instead of the bytes."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from valarmind_tui.media.images import ImageAttachment, human_size

STORED_PREFIX = "valarmind-image:"
"""A stored message's image URL: this prefix, then the sha256 of the bytes in the store."""
TOOL_IMAGES_HEADER = "Images the tool calls above returned:"
"""Starts the user message that carries tool results' images (tool messages hold text only in
OpenAI's format, so the images follow them)."""
_DATA_URL = re.compile(r"data:(image/[a-z+.-]+);base64,([A-Za-z0-9+/=]*)")


def image_line(image: ImageAttachment) -> str:
    """What the person and the model are told: name, size and dimensions."""
    shown = f"{image.source_width}×{image.source_height}"
    if image.downscaled:
        shown += f", sent as {image.width}×{image.height}"
    return f"image {image.name} ({human_size(image.source_bytes)}, {shown})"


def image_part(image: ImageAttachment) -> dict[str, Any]:
    """The OpenAI content part carrying `image` as a data URL."""
    encoded = base64.b64encode(image.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime};base64,{encoded}"}}


def with_images(text: str, images: list[ImageAttachment]) -> str | list[dict[str, Any]]:
    """A message's content: `text` alone, or text parts and each image after its line."""
    if not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for image in images:
        parts.append({"type": "text", "text": f"[{image_line(image)}]"})
        parts.append(image_part(image))
    return parts


def image_url(part: Any) -> str | None:
    """The URL of an image content part, or None when `part` is not one."""
    if not isinstance(part, dict) or part.get("type") != "image_url":
        return None
    inner = part.get("image_url")
    url = inner.get("url") if isinstance(inner, dict) else inner
    return url if isinstance(url, str) else None



def decode_data_url(url: str) -> tuple[str, bytes] | None:
    """(mime, bytes) of a base64 image data URL."""
    match = _DATA_URL.fullmatch(url)
    if match is None:
        return None
    return match.group(1), base64.b64decode(match.group(2))



def replace_images(message: dict[str, Any], swap: Callable[[str], str]) -> dict[str, Any]:
    """`message` with each image URL replaced by `swap(url)` (the same dict when it has none)."""
    content = message.get("content")
    if not isinstance(content, list) or not any(image_url(p) for p in content):
        return message
    parts = []
    for part in content:
        url = image_url(part)
        parts.append(part if url is None else {"type": "image_url",
                                                "image_url": {"url": swap(url)}})
    return {**message, "content": parts}


def message_text(content: Any) -> str:
    """A message's text: the string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""
