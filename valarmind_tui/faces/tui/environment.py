"""Small facts about the surroundings the UI shows: git branch, Ollama on localhost, keys."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from valarmind_tui.core.safe_files import read_regular_text

OLLAMA_HOST, OLLAMA_PORT = "127.0.0.1", 11434


def git_branch(root: Path) -> str | None:
    """The checked-out branch (or short commit when detached), read from .git/HEAD."""
    git = root / ".git"
    if git.is_file():  # a worktree: "gitdir: <path>"
        try:
            text = read_regular_text(git, errors="replace").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            git = (root / text.split(":", 1)[1].strip()).resolve()
    try:
        head = read_regular_text(git / "HEAD").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return head[:8] or None


async def ollama_running(
    host: str = OLLAMA_HOST, port: int = OLLAMA_PORT, timeout_s: float = 1.0
) -> bool:
    """Whether something accepts TCP connections on Ollama's port."""
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), timeout=timeout_s
        )
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def offline_help(ollama: bool | None) -> str:
    """Markdown telling the person how to configure a model."""
    from valarmind_tui.settings.config import KNOWN_KEYS

    keys = ", ".join(f"`{name}`" for name in KNOWN_KEYS)
    if ollama is None:
        local = "Checking for Ollama on localhost…"
    elif ollama:
        local = (
            f"**Ollama is running on {OLLAMA_HOST}:{OLLAMA_PORT}**: try "
            "`/model ollama/<model>` (e.g. `ollama/qwen3`)."
        )
    else:
        local = f"Ollama was not found on {OLLAMA_HOST}:{OLLAMA_PORT}."
    return (
        "**No model configured.** Deterministic commands still work (try `/help`).\n\n"
        f"- Set one of {keys} in the environment and restart, or\n"
        "- choose a model with `/model <litellm-model>`, or set `model = \"...\"` in "
        "your `~/.config/valarmind/config.toml`.\n"
        f"- {local}"
    )
