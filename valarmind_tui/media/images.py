"""One image made ready for a model: read through the attachment check, size-limited and
downscaled (Pillow, imported when an image is first read)."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path, PurePath

from valarmind_tui.core.errors import UsageError
from valarmind_tui.safety.content import not_regular_reason, read_regular_bytes
from valarmind_tui.safety.paths import is_sensitive, resolve_in_project

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
"""What providers take as images (OpenAI, Anthropic and Gemini all read these four)."""
MAX_FILE_BYTES = 20_000_000
"""A bigger file is refused before it is decoded."""
MAX_PIXELS = 60_000_000
"""A bigger picture is refused before it is decoded (a decompression bomb is small on disk)."""
MAX_SIDE = 1568
"""The longest side sent: Anthropic's advice (it downsizes anything larger itself, after
charging for it), and within what OpenAI keeps at high detail."""
MAX_SENT_BYTES = 3_750_000
"""Anthropic refuses an image over 5 MB of base64: 3.75 MB of bytes."""


@dataclass(frozen=True)
class ImageAttachment:
    """An image as it is sent: encoded bytes and what the person is told about it."""

    name: str
    mime: str
    data: bytes
    width: int
    height: int
    source_bytes: int
    source_width: int
    source_height: int

    @property
    def downscaled(self) -> bool:
        return (self.width, self.height) != (self.source_width, self.source_height)


def is_image_path(path: str | PurePath) -> bool:
    return str(path).lower().endswith(IMAGE_SUFFIXES)


def load_image(project_root: Path, path: str) -> ImageAttachment:
    """The project file `path` as an image to send; UsageError saying why when it cannot be
    one (outside the project, a link out of it, a sensitive path, not an image, too big)."""
    resolved = resolve_in_project(project_root, path)
    if is_sensitive(resolved):
        raise UsageError(f"{path}: a sensitive path, not attached")
    if not resolved.is_file():
        raise UsageError(not_regular_reason(resolved, path) or f"{path}: not a file")
    data = read_regular_bytes(resolved, path, MAX_FILE_BYTES + 1)
    return prepare_image(data, PurePath(path).name)


def load_persons_image(project_root: Path, path: str) -> ImageAttachment:
    """An image the person attached by name with `/image PATH`: a project file as `load_image`
    reads it, or, outside the project, a regular image file wherever the person keeps it (a
    screenshot in ~/Desktop or /tmp), never a sensitive path (`.ssh/`, keys...) and never what
    is not an image by its own bytes. Paths in a prompt's text (which may be a check's output
    or a command file's) and a model's go through `load_image`, which stays in the project."""
    expanded = Path(path).expanduser()
    where = Path(os.path.normpath(expanded if expanded.is_absolute() else project_root / expanded))
    root = project_root.resolve()
    if where.is_relative_to(root) or where.is_relative_to(project_root):
        # named in the project: its checks hold (a link leading out of it is refused there)
        return load_image(project_root, path)
    resolved = where.resolve()
    if not is_image_path(resolved):
        raise UsageError(f"{path}: not an image file (png, jpg, gif, webp)")
    if is_sensitive(resolved):
        raise UsageError(f"{path}: a sensitive path, not attached")
    if not resolved.is_file():
        raise UsageError(not_regular_reason(resolved, path) or f"{path}: not a file")
    data = read_regular_bytes(resolved, path, MAX_FILE_BYTES + 1)
    return prepare_image(data, resolved.name)


def prepare_image(data: bytes, name: str) -> ImageAttachment:
    """`data` decoded, downscaled to MAX_SIDE and re-encoded (PNG when it has transparency or
    was lossless, else JPEG) within MAX_SENT_BYTES. UsageError when it is not an image."""
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"{name}: {human_size(len(data))} is over the image limit "
                         f"({human_size(MAX_FILE_BYTES)})")
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as opened:
            width, height = opened.size
            if width * height > MAX_PIXELS:
                raise UsageError(f"{name}: {width}×{height} pixels is too large an image")
            source_format = opened.format or ""
            opened.seek(0)  # an animation's first frame
            mode = "RGBA" if _has_alpha(opened) else "RGB"
            opened.load()  # decoded now: the image outlives the `with`
            image = opened if opened.mode == mode else opened.convert(mode)
    except Image.DecompressionBombError:
        raise UsageError(f"{name}: too large an image (a decompression bomb?)") from None
    except UnidentifiedImageError:
        raise UsageError(f"{name}: not an image that can be read (a PNG, JPEG, GIF or WebP)"
                         ) from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{name}: the image could not be decoded ({exc})") from None
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.BICUBIC)  # half of LANCZOS's time
    lossless = image.mode == "RGBA" or source_format in ("PNG", "GIF")
    encoded, mime = _encode(image, lossless)
    return ImageAttachment(name=name, mime=mime, data=encoded, width=image.width,
                           height=image.height, source_bytes=len(data), source_width=width,
                           source_height=height)


def _has_alpha(image: object) -> bool:
    mode = getattr(image, "mode", "")
    info = getattr(image, "info", {})
    return mode in ("RGBA", "LA", "PA") or (mode == "P" and "transparency" in info)


def _encode(image: object, lossless: bool) -> tuple[bytes, str]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    if lossless:
        out = io.BytesIO()
        image.save(out, format="PNG")  # optimize=True: 5x the time for 2% fewer bytes
        if out.tell() <= MAX_SENT_BYTES:
            return out.getvalue(), "image/png"
    flat = image
    if image.mode == "RGBA":  # JPEG has no transparency: on white, as a viewer shows it
        flat = Image.new("RGB", image.size, "white")
        flat.paste(image, mask=image.getchannel("A"))
    for quality in (85, 70, 50):
        out = io.BytesIO()
        flat.save(out, format="JPEG", quality=quality)
        if out.tell() <= MAX_SENT_BYTES:
            break
    return out.getvalue(), "image/jpeg"


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
