"""Images written for tests and read back from what reached the fake model server."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from PIL import Image


def write_png(path: Path, size: tuple[int, int], colour: str = "green") -> Path:
    Image.new("RGB", size, colour).save(path, format="PNG")
    return path


def decoded(data: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data)))


def openai_images(body: dict[str, Any]) -> list[Image.Image]:
    """The images of an OpenAI chat request, decoded from their data URLs."""
    found = []
    for message in body["messages"]:
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "image_url":
                url = part["image_url"]["url"] if isinstance(part["image_url"], dict) \
                    else part["image_url"]
                head, _, data = url.partition(",")
                assert head.startswith("data:image/") and head.endswith(";base64"), head
                found.append(decoded(data))
    return found


def anthropic_images(body: dict[str, Any]) -> list[Image.Image]:
    """The images of an Anthropic messages request (tool results' included)."""
    found = []

    def walk(blocks: Any) -> None:
        for block in blocks if isinstance(blocks, list) else ():
            if block.get("type") == "image":
                assert block["source"]["type"] == "base64"
                found.append(decoded(block["source"]["data"]))
            elif block.get("type") == "tool_result":
                walk(block.get("content"))

    for message in body["messages"]:
        walk(message.get("content"))
    return found
