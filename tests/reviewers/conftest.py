"""Sessions with model reviewers on, LiteLLM against the fake model server.

The reviewers and the agents share the fake server's queue: a test scripts the answers in the
order the requests are made, and tells them apart by the system prompt each request carries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.core.events import Event, Notice, ReviewerRan
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.tools.base import ToolContext


def verdict(decision: str, reason: str = "", **usage: int) -> dict[str, Any]:
    """A scripted reviewer answer: the JSON verdict as the model's text."""
    turn: dict[str, Any] = {"text": json.dumps({"decision": decision, "reason": reason})}
    if usage:
        turn["usage"] = usage
    return turn


class Person:
    """An approver standing in for the person: records what it is asked, answers in order."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        decision = self.answers.pop(0) if self.answers else "deny"
        return ApprovalAnswer(decision, feedback="no" if decision == "deny" else None)  # type: ignore[arg-type]


@dataclass
class Live:
    session: Session
    person: Person
    root: Path
    events: list[Event] = field(default_factory=list)

    def reviews(self, reviewer: str | None = None) -> list[ReviewerRan]:
        return [e for e in self.events if isinstance(e, ReviewerRan)
                and (reviewer is None or e.reviewer == reviewer)]

    def warnings(self) -> list[str]:
        return [e.message for e in self.events if isinstance(e, Notice) and e.level == "warning"]

    async def call(self, name: str, agent_id: str = "main",
                   permissions: AgentPermissions | None = None, **arguments: Any) -> Any:
        """One tool call by an agent, through the gate (as the agent loop makes it)."""
        tool = self.session.tools.get(name)
        if tool is None:
            from valarmind_tui.tools.planning.appeal_denial import AppealDenialTool

            tool = AppealDenialTool(self.session.gate)
        ctx = ToolContext(project_root=self.root, agent_id=agent_id,
                          sandbox=self.session.sandbox)
        return await run_gated(tool, tool.parse(arguments), ctx, self.session.gate,
                               permissions or AgentPermissions.full())


def reviewers_table(*names: str, extra: str = "") -> str:
    """`[reviewers.NAME]` tables switching the reviewers on (a loaded test machine gets a long
    time limit: the limit is not what these tests check)."""
    return "".join(f"[reviewers.{n}]\nenabled = true\ntimeout_s = 600\n{extra}\n"
                   for n in names)


@pytest.fixture
def live(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """live(root, config, *answers) -> Live: a started session whose person answers in order."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    made: list[Session] = []

    async def make(root: Path, config: str, *answers: str) -> Live:
        write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n' + config)
        settings = load_settings(root, model="openai/fake-model",
                                 api_base=fake_model.openai_base)
        person = Person(*answers)
        session = build_session(settings, root, approver=person)
        result = Live(session, person, root)
        session.bus.add_listener(result.events.append)
        made.append(session)
        await session.start()
        return result

    yield make
    for session in made:
        session.cancel()


def system_prompts(fake_model: Any) -> list[str]:
    """The first words of each request's system prompt, in order (who asked the model)."""
    return [str(r["messages"][0]["content"])[:60] for r in fake_model.requests]
