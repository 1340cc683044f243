"""/init in a session: the init agent's verbose answer is cut to the budget, the person is warned
(a Notice and the command's text), and the file written stays within it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.context.init.valarmind_md import TARGET_TOKENS
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.core.events import AgentSpawned, Notice
from valarmind_tui.providers.litellm_call import load_litellm
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session


async def test_init_command_runs_the_agent_and_warns_when_it_cuts(
        git_repo: Path, fake_model: Any, model_settings: Any) -> None:
    sections = [{"name": "Objective", "body": "A greeting library."},
                {"name": "References", "body": "\n".join(
                    f"- docs/page_{i}.md: how greeting number {i} is chosen and said"
                    for i in range(900))}]
    fake_model.script(ScriptedTurn(text=json.dumps({"project_name": "demo",
                                                    "sections": sections})))
    load_litellm()  # its first import is slow; the init agent's 90 s are not for that
    session = build_session(model_settings(git_repo), git_repo,
                            approver=PolicyApprover(allow_writes=True))
    events: list[Any] = []
    session.bus.add_listener(events.append)
    result = await session.run_command("/init")

    assert [e.name for e in events if isinstance(e, AgentSpawned)] == ["init"]
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any("token budget" in w and "references" in w for w in warnings)
    assert "written by the init agent" in result.text and "warning: " in result.text
    # the demo repository has no manifest: the person is asked to fill those in
    assert "please fill in: Main Dependencies, Commands" in result.text
    written = (git_repo / "VALARMIND.md").read_text()
    assert written.startswith("# demo\n") and "A greeting library." in written
    assert count_tokens(written) <= TARGET_TOKENS[1]
