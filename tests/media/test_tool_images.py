"""Images from tools reach a vision model after the tool results: read_file of a PNG, a real
MCP server's image answer; a model without vision reads a line saying it cannot see them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.media.helpers import anthropic_images, openai_images, write_png
from valarmind_tui.media.parts import TOOL_IMAGES_HEADER
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp"


def settings_for(root: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, model: str,
                 anthropic: bool = False) -> Any:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    base = fake_model.anthropic_base if anthropic else fake_model.openai_base
    return load_settings(root, model=model, api_base=base, api_key_env="FAKE_API_KEY")


def tool_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_read_file_of_a_png_shows_it_to_a_vision_model(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "logo.png", (2000, 500), "blue")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "logo.png"}}]),
        ScriptedTurn(text="A blue banner."),
    )
    settings = settings_for(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    session = build_session(settings, git_repo, approver=PolicyApprover())
    await session.submit("describe logo.png")
    second = fake_model.requests[1]
    (result,) = tool_texts(second)
    assert result.startswith("image logo.png (") and "2000×500, sent as 1568×392" in result
    assert result.endswith(": shown below]")
    last = second["messages"][-1]
    assert last["role"] == "user" and last["content"][0]["text"] == TOOL_IMAGES_HEADER
    (image,) = openai_images(second)
    assert image.size == (1568, 392) and image.getpixel((3, 3))[:3] == (0, 0, 255)


async def test_read_file_of_a_png_tells_a_model_without_vision(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "logo.png", (20, 20))
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "logo.png"}}]),
        ScriptedTurn(text="I cannot see it."),
    )
    settings = settings_for(git_repo, fake_model, monkeypatch, "openai/fake-model")
    session = build_session(settings, git_repo, approver=PolicyApprover())
    await session.submit("describe logo.png")
    second = fake_model.requests[1]
    assert openai_images(second) == []
    (result,) = tool_texts(second)
    assert result.endswith(": not shown, openai/fake-model does not read images]")


async def test_an_mcp_servers_image_reaches_an_anthropic_model(
        tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_user_config(f'[mcp.servers.screens]\ncommand = "{sys.executable}"\n'
                      f'args = ["{FIXTURES / "screenshot_server.py"}"]\n')
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "mcp__screens__screenshot", "arguments": {}}]),
        ScriptedTurn(text="Red and blue."),
    )
    settings = settings_for(tmp_path, fake_model, monkeypatch, "anthropic/claude-sonnet-4-5",
                            anthropic=True)
    session = build_session(settings, tmp_path, approver=PolicyApprover())
    try:
        await session.start()
        result = await session.submit("what does the app look like?")
    finally:
        await session.close()
    assert result.text == "Red and blue."
    second = fake_model.requests[1]
    (image,) = anthropic_images(second)
    assert image.size == (1568, 784)
    assert image.getpixel((10, 10))[:3] == (255, 0, 0)
    assert image.getpixel((1500, 10))[:3] == (0, 0, 255)
    texts = [b.get("content") for m in second["messages"] if isinstance(m["content"], list)
             for b in m["content"] if b.get("type") == "tool_result"]
    assert any("the login screen" in str(t) and "screenshot image 1" in str(t) for t in texts)
