"""Whole ACP sessions against the fake model server: prompt, tools, approvals, modes, cancel."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from acp import (
    RequestError,
    embedded_text_resource,
    resource_block,
    resource_link_block,
    text_block,
)

from tests.acp.conftest import RecordingClient, acp_agent, ask, configure_model, new_session, until
from tests.fakes.model_server import ScriptedTurn
from tests.ui.scripts import CHANGED, ORIGINAL, edit_through_code_agent


async def test_initialize_new_session_and_a_streamed_answer(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    # the model pauses after "Hello" until the editor has shown it: pieces that arrive together
    # are sent together, so pacing alone let a loaded machine merge the whole answer into one
    more = threading.Event()
    fake_model.script(ScriptedTurn(text="Hello from ValarMind, streamed.", reasoning="Thinking.",
                                   chunk_size=5, pause_until=more))
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        init = conn.init_response
        assert init.agent_capabilities.load_session is True
        assert init.agent_capabilities.prompt_capabilities.embedded_context is True
        assert "FAKE_API_KEY" not in init.auth_methods[0].description
        assert "No provider key" in init.auth_methods[0].description
        response = await conn.new_session(cwd=str(git_repo), mcp_servers=[])
        assert response.modes.current_mode_id == "default"
        assert [m.id for m in response.modes.available_modes] == [
            "default", "accept-edits", "plan", "bypass"]
        answering = asyncio.create_task(ask(conn, response.session_id, "say hello"))
        try:
            await until(lambda: client.text() or answering.done())
            assert (client.text("agent_thought_chunk"), client.text()) == ("Thinking.", "Hello")
        finally:
            more.set()
        result = await answering
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert client.text() == "Hello from ValarMind, streamed."
    assert client.of("agent_message_chunk")[0].content.text == "Hello"
    assert client.kinds().index("agent_thought_chunk") < client.kinds().index(
        "agent_message_chunk")
    commands = client.of("available_commands_update")[0].available_commands
    assert {"clear", "compact"} <= {c.name for c in commands}
    assert {sid for sid, _ in client.updates} == {response.session_id}


async def test_a_read_is_a_tool_call_with_kind_location_and_output(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        ScriptedTurn(text="It greets."),
    )
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        result = await ask(conn, await new_session(conn, git_repo), "what does app.py do?")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    [start] = client.of("tool_call")
    assert (start.kind, start.status, start.title) == ("read", "in_progress", "read_file app.py")
    assert start.locations[0].path == str(git_repo.resolve() / "app.py")
    [done] = client.of("tool_call_update")
    assert done.tool_call_id == start.tool_call_id and done.status == "completed"
    assert "Hello" in done.content[0].content.text
    assert client.kinds().index("tool_call") < client.kinds().index("tool_call_update")
    assert client.text() == "It greets."


async def test_an_edit_allowed_in_the_editor_is_made_and_shown_as_a_diff(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(*edit_through_code_agent("Changed the greeting."))
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, git_repo, agent_log) as conn:
        result = await ask(conn, await new_session(conn, git_repo), "say Hi")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert (git_repo / "app.py").read_text() == CHANGED
    [(asked, options)] = client.permissions
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    assert asked.kind == "edit" and "app.py" in asked.title and asked.title.startswith("code:")
    edits = [u for u in client.of("tool_call") if u.kind == "edit"]
    assert [u.title for u in edits] == ["code: edit_file app.py"]
    assert asked.tool_call_id == edits[0].tool_call_id
    [diff] = [c for u in client.of("tool_call_update") if u.content for c in u.content
              if c.type == "diff"]
    assert (diff.old_text, diff.new_text) == (ORIGINAL, CHANGED)
    delegation = [u for u in client.of("tool_call") if u.title == "delegate: code"]
    assert delegation and delegation[0].kind == "think"
    assert client.text() == "Changed the greeting."


async def test_an_edit_rejected_in_the_editor_changes_nothing(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(*edit_through_code_agent("I was not allowed to edit."))
    client = RecordingClient(answers=["deny"])
    async with acp_agent(client, git_repo, agent_log) as conn:
        result = await ask(conn, await new_session(conn, git_repo), "say Hi")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert (git_repo / "app.py").read_text() == ORIGINAL
    assert len(client.permissions) == 1
    edit = next(u for u in client.of("tool_call") if u.kind == "edit")
    failed = [u for u in client.of("tool_call_update") if u.tool_call_id == edit.tool_call_id]
    assert failed[-1].status == "failed"
    rejected = fake_model.requests[2]["messages"][-1]["content"]
    assert "Rejected by the person in the editor" in rejected


async def test_plan_mode_set_by_the_client_refuses_the_write(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    delegation, *_ = edit_through_code_agent("")
    fake_model.script(delegation, ScriptedTurn(text="Here is the plan instead."))
    client = RecordingClient(answers=["allow_once"])
    async with acp_agent(client, git_repo, agent_log) as conn:
        session_id = await new_session(conn, git_repo)
        await conn.set_session_mode(session_id=session_id, mode_id="plan")
        result = await ask(conn, session_id, "say Hi")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert (git_repo / "app.py").read_text() == ORIGINAL
    assert client.permissions == []
    assert [u.current_mode_id for u in client.of("current_mode_update")] == ["plan"]
    [refused] = client.of("tool_call")
    assert (refused.title, refused.status) == ("delegate: code", "failed")
    assert "Plan mode is on" in refused.content[0].content.text
    assert client.text() == "Here is the plan instead."


async def test_cancel_mid_stream_ends_the_turn_cancelled(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(ScriptedTurn(text="word " * 200, chunk_size=5, chunk_delay_s=0.05))
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        session_id = await new_session(conn, git_repo)
        running = asyncio.create_task(ask(conn, session_id, "talk for a long time"))
        await until(lambda: client.of("agent_message_chunk"))
        await conn.cancel(session_id=session_id)
        result = await asyncio.wait_for(running, 30)
        assert result.stop_reason == "cancelled", agent_log.read_text()
        fake_model.script(ScriptedTurn(text="Still here."))
        again = await ask(conn, session_id, "are you there?")
    assert again.stop_reason == "end_turn"
    assert client.text().endswith("Still here.")
    assert len(client.text()) < len("word " * 200)


async def test_an_unknown_session_and_an_unknown_mode_are_errors_a_person_can_act_on(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        with pytest.raises(RequestError, match="session/new"):
            await ask(conn, "nope", "hello")
        session_id = await new_session(conn, git_repo)
        with pytest.raises(RequestError, match="accept-edits"):
            await conn.set_session_mode(session_id=session_id, mode_id="yolo")
        with pytest.raises(RequestError, match="not an absolute path"):
            await conn.new_session(cwd="relative/dir", mcp_servers=[])


async def test_without_a_model_authenticate_and_prompt_say_how_to_configure_one(
    git_repo: Path, agent_log: Path
) -> None:
    client = RecordingClient()
    async with acp_agent(client, git_repo, agent_log) as conn:
        with pytest.raises(RequestError, match="No model is configured") as raised:
            await conn.authenticate(method_id="provider-key")
        assert raised.value.code == -32000
        session_id = await new_session(conn, git_repo)
        with pytest.raises(RequestError, match="ANTHROPIC_API_KEY"):
            await ask(conn, session_id, "hello")
        result = await ask(conn, session_id, "/help")
    assert result.stop_reason == "end_turn"
    assert "/clear" in client.text()


async def test_authenticate_succeeds_with_a_configured_model(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    async with acp_agent(RecordingClient(), git_repo, agent_log) as conn:
        assert await conn.authenticate(method_id="provider-key") is not None


async def test_three_rejections_of_the_same_edit_end_the_turn_as_a_refusal(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    delegation, edit, *_ = edit_through_code_agent("")
    fake_model.script(delegation, edit, edit, edit, ScriptedTurn(text="unreachable"))
    client = RecordingClient(answers=["deny", "deny", "deny"])
    async with acp_agent(client, git_repo, agent_log) as conn:
        result = await ask(conn, await new_session(conn, git_repo), "say Hi")
    assert result.stop_reason == "refusal", agent_log.read_text()
    assert len(client.permissions) == 3
    assert (git_repo / "app.py").read_text() == ORIGINAL


async def test_resource_links_and_embedded_resources_reach_the_model_as_attached_files(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(ScriptedTurn(text="Seen."))
    blocks = [
        text_block("explain these"),
        resource_link_block("app.py", (git_repo / "app.py").resolve().as_uri()),
        resource_block(embedded_text_resource(
            (git_repo / "notes.md").resolve().as_uri(), "unsaved buffer text")),
        resource_link_block("elsewhere", "https://example.com/doc"),
    ]
    async with acp_agent(RecordingClient(), git_repo, agent_log) as conn:
        session_id = await new_session(conn, git_repo)
        result = await conn.prompt(session_id=session_id, prompt=blocks)
    assert result.stop_reason == "end_turn", agent_log.read_text()
    sent = fake_model.requests[0]["messages"][-1]["content"]
    assert sent.startswith("explain these\n[elsewhere](https://example.com/doc)")
    assert '<file path="app.py">\ndef greet(name):' in sent
    assert '<file path="notes.md">\nunsaved buffer text\n</file>' in sent


async def test_an_image_block_reaches_a_vision_model_as_an_image(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    import base64
    import io

    from acp import image_block
    from PIL import Image

    from tests.conftest import write_user_config
    from tests.media.helpers import openai_images

    write_user_config(f'model = "openai/gpt-4o"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(ScriptedTurn(text="An orange square."))
    out = io.BytesIO()
    Image.new("RGB", (2000, 2000), "orange").save(out, format="PNG")
    blocks = [text_block("what is this?"),
              image_block(base64.b64encode(out.getvalue()).decode(), "image/png")]
    async with acp_agent(RecordingClient(), git_repo, agent_log) as conn:
        assert conn.init_response.agent_capabilities.prompt_capabilities.image is True
        result = await conn.prompt(session_id=await new_session(conn, git_repo), prompt=blocks)
    assert result.stop_reason == "end_turn", agent_log.read_text()
    (image,) = openai_images(fake_model.requests[0])
    assert image.size == (1568, 1568)
