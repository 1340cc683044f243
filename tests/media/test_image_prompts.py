"""Images in prompts reach the model as image content, downscaled, through real LiteLLM against
the fake server (OpenAI and Anthropic wire formats); a model without vision gets none and the
person is told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.media.helpers import anthropic_images, openai_images, write_png
from valarmind_tui.core.events import Event, Notice
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


def session_on(root: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, model: str,
               anthropic: bool = False) -> tuple[Session, list[Event]]:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    base = fake_model.anthropic_base if anthropic else fake_model.openai_base
    settings = load_settings(root, model=model, api_base=base, api_key_env="FAKE_API_KEY")
    session = build_session(settings, root, approver=PolicyApprover())
    events: list[Event] = []
    session.bus.add_listener(events.append)
    return session, events


def notices(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


async def test_a_mentioned_screenshot_reaches_an_openai_model_downscaled(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "shot.png", (3000, 2000))
    fake_model.script(ScriptedTurn(text="A green screen."))
    session, events = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    result = await session.submit("what is in @shot.png?")
    assert result.text == "A green screen."
    (image,) = openai_images(fake_model.requests[0])
    assert image.size == (1568, 1045)
    assert image.getpixel((10, 10))[:3] == (0, 128, 0)
    user = fake_model.requests[0]["messages"][-1]
    assert user["content"][0] == {"type": "text", "text": "what is in @shot.png?"}
    assert any(n.startswith("image shot.png (") and "3000×2000, sent as 1568×1045" in n
               for n in notices(events))


async def test_a_pasted_path_reaches_an_anthropic_model_as_a_base64_image(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (git_repo / "shots").mkdir()
    shot = write_png(git_repo / "shots" / "Screen Shot 1.png", (800, 600), "red")
    fake_model.script(ScriptedTurn(text="Red."))
    session, _ = session_on(git_repo, fake_model, monkeypatch, "anthropic/claude-sonnet-4-5",
                            anthropic=True)
    pasted = str(shot).replace(" ", "\\ ")  # how a terminal pastes a dropped file
    await session.submit(f"{pasted} what colour is this?")
    (image,) = anthropic_images(fake_model.requests[0])
    assert image.size == (800, 600)  # small enough: not downscaled
    assert image.getpixel((5, 5))[:3] == (255, 0, 0)


async def test_a_quoted_pasted_path_alone_is_sent(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    shot = write_png(git_repo / "my shot.png", (100, 50))
    fake_model.script(ScriptedTurn(text="ok"))
    session, _ = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    await session.submit(f"'{shot}'")
    assert [i.size for i in openai_images(fake_model.requests[0])] == [(100, 50)]


async def test_a_model_without_vision_gets_no_image_and_the_person_is_told(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "shot.png", (300, 200))
    fake_model.script(ScriptedTurn(text="I cannot see it."))
    session, events = session_on(git_repo, fake_model, monkeypatch, "openai/fake-model")
    await session.submit("look at @shot.png")
    assert openai_images(fake_model.requests[0]) == []
    assert fake_model.requests[0]["messages"][-1]["content"] == "look at @shot.png"
    told = [n for n in notices(events) if "does not read images" in n]
    assert told == ["openai/fake-model does not read images: the prompt goes without shot.png. "
                    "Choose a vision model (/model), or set [images] vision = true if it does "
                    "read them."]


async def test_an_image_outside_the_project_is_refused_with_the_reason(
        git_repo: Path, tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = write_png(tmp_path / "elsewhere.png", (10, 10))
    (git_repo / "link.png").symlink_to(outside)
    fake_model.script(ScriptedTurn(text="ok"))
    session, events = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    await session.submit("see @link.png")
    assert openai_images(fake_model.requests[0]) == []
    assert any(n.startswith("link.png not attached:") and "outside" in n
               for n in notices(events))


async def test_a_screenshot_from_outside_the_project_goes_with_the_image_command(
        git_repo: Path, tmp_path: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common case: a screenshot lives in ~/Desktop or /tmp. A prompt's text may come from
    elsewhere (a check's output in a goal round, a command file), so a path in it stays in the
    project and the notice says how; `/image PATH`, the person's own command, takes it. A key
    folder's picture and a file that is not an image by its bytes are refused even so."""
    desktop = tmp_path / "Desktop"
    desktop.mkdir()
    shot = write_png(desktop / "Screenshot 2026-11-28.png", (1200, 800), "blue")
    (tmp_path / ".ssh").mkdir()
    key_shot = write_png(tmp_path / ".ssh" / "key.png", (10, 10))
    fake = desktop / "notes.png"
    fake.write_text("not an image at all\n")
    fake_model.script(ScriptedTurn(text="Nothing."), ScriptedTurn(text="Blue."))
    session, events = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    pasted = str(shot).replace(" ", "\\ ")  # how a terminal pastes a dropped file
    await session.submit(f"{pasted} what colour is this?")
    assert openai_images(fake_model.requests[0]) == []
    assert any("not attached" in n and "/image" in n for n in notices(events))
    result = await session.run_command(f"/image {pasted}")
    assert result.ok, result.text
    for refused in (key_shot, fake):
        assert not (await session.run_command(f"/image {refused}")).ok
    await session.submit("what colour is this?")
    (image,) = openai_images(fake_model.requests[1])
    assert image.size == (1200, 800) and image.getpixel((5, 5))[:3] == (0, 0, 255)


async def test_image_command_attaches_to_the_next_prompt(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "mock.png", (640, 480))
    fake_model.script(ScriptedTurn(text="ok"))
    session, _ = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    shown = await session.run_command("/image mock.png")
    assert shown.ok and shown.text.startswith("image mock.png (")
    assert "640×480" in shown.text
    await session.submit("build this page")
    assert [i.size for i in openai_images(fake_model.requests[0])] == [(640, 480)]
    refused = await session.run_command("/image missing.png")
    assert not refused.ok and refused.text.startswith("missing.png not attached:")


async def test_an_attached_files_text_cannot_pull_in_an_image(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from valarmind_tui.context.attachments import with_attachments

    write_png(git_repo / "private.png", (10, 10))
    fake_model.script(ScriptedTurn(text="ok"))
    session, _ = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    readme = f"see @private.png and {git_repo / 'private.png'}"  # a repository file's words
    await session.submit(with_attachments("summarise @README.md", {"README.md": readme}))
    assert openai_images(fake_model.requests[0]) == []


async def test_a_specialist_gets_the_prompts_image_with_its_task(
        git_repo: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_png(git_repo / "mock.png", (400, 300), "yellow")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "search", "task": "find the page this mock-up shows"}}]),
        ScriptedTurn(text='{"query": "page", "findings": [], "summary": "app.py", '
                          '"confidence": 0.5}'),
        ScriptedTurn(text="It is app.py."),
    )
    session, _ = session_on(git_repo, fake_model, monkeypatch, "openai/gpt-4o")
    result = await session.submit("which page is @mock.png?")
    assert result.text == "It is app.py."
    specialist = fake_model.requests[1]
    assert specialist["messages"][-1]["content"][0]["text"].startswith(
        "find the page this mock-up shows")
    assert [i.size for i in openai_images(specialist)] == [(400, 300)]
