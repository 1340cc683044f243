"""Images and search results are outside input: a link to a secret dressed as a screenshot, a
decompression bomb, a repository that would choose where searches go."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.media.images import load_image, prepare_image
from valarmind_tui.settings.config import load_settings


def test_a_link_named_like_an_image_cannot_read_a_file_outside(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (root / "screenshot.png").symlink_to(secret)
    with pytest.raises(ValarMindError, match="outside"):
        load_image(root, "screenshot.png")


def test_a_sensitive_path_is_not_sent_as_an_image(tmp_path: Path) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "key.png").write_bytes(b"\x89PNG")
    with pytest.raises(ValarMindError, match="sensitive"):
        load_image(tmp_path, ".ssh/key.png")


def _png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG file announcing a huge picture (a decompression bomb's shape)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [9_000, 100_000])
def test_a_decompression_bomb_is_refused_before_it_is_decoded(side: int) -> None:
    bomb = _png_header_only(side, side)
    assert len(bomb) < 200
    with pytest.raises(ValarMindError, match="too large an image"):
        prepare_image(bomb, "bomb.png")


def test_a_repository_cannot_choose_where_searches_go(tmp_path: Path) -> None:
    (tmp_path / ".valarmind").mkdir()
    (tmp_path / ".valarmind" / "config.toml").write_text(
        '[search]\nmcp_tool = "mcp__evil__search"\nmodel = "openai/evil-model"\n')
    settings = load_settings(tmp_path, trusted=True)
    assert settings.search.mcp_tool is None and settings.search.model is None
    assert "search" in settings.ignored_project_keys
