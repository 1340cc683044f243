"""Whole ACP sessions against the fake model server: prompt, tools, approvals, modes, cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp.conftest import RecordingClient, acp_agent, ask, configure_model, new_session
from tests.fakes.model_server import ScriptedTurn


async def test_initialize_new_session_and_a_streamed_answer(
    git_repo: Path, fake_model: Any, agent_log: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(ScriptedTurn(text="Hello from ValarMind, streamed.", reasoning="Thinking.",
                                   chunk_size=5))
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
        result = await ask(conn, response.session_id, "say hello")
    assert result.stop_reason == "end_turn", agent_log.read_text()
    assert client.text() == "Hello from ValarMind, streamed."
    assert len(client.of("agent_message_chunk")) > 1
    assert client.text("agent_thought_chunk") == "Thinking."
    commands = client.of("available_commands_update")[0].available_commands
    assert {"clear", "compact"} <= {c.name for c in commands}
    assert {sid for sid, _ in client.updates} == {response.session_id}
