"""A real orchestrator stack (LiteLLM provider → fake model server, real tools, real gate)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.agents.loop import LoopDeps
from valarmind_tui.agents.orchestrator import Orchestrator
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Event
from valarmind_tui.safety.gate.approval import Approver, PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.settings.config import Settings, load_settings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.services import ToolServices


@dataclass
class Stack:
    orchestrator: Orchestrator
    gate: PermissionGate
    bus: EventBus
    settings: Settings
    events: list[Event] = field(default_factory=list)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def commit_all(repo: Path, message: str = "more") -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message],
                   cwd=repo, check=True)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data)


@pytest.fixture
def stack(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """make(root, approver=..., mode=...) -> Stack wired like a session would; `approver` may
    be built with the bus (`approver=InteractiveApprover`)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")

    def make(
        root: Path, *, approver: Approver | Callable[[EventBus], Approver] | None = None,
        mode: PermissionMode = PermissionMode.DEFAULT,
    ) -> Stack:
        from valarmind_tui.providers.litellm_provider import provider_from_settings

        settings = load_settings(root, trusted=True, model="openai/fake-model",
                                 api_base=fake_model.openai_base,
                                 api_key_env="FAKE_API_KEY")
        bus = EventBus()
        if callable(approver):
            approver = approver(bus)
        gate = PermissionGate(root, approver or PolicyApprover(allow_writes=True,
                                                               allow_execute=True),
                              mode=mode, bus=bus)
        ctx = ToolContext(project_root=root.resolve(),
                          services=ToolServices.for_gate(gate, bus))
        deps = LoopDeps(provider=provider_from_settings(settings), tools=builtin_tools(),
                        gate=gate, bus=bus, ctx=ctx)
        orchestrator = Orchestrator(deps, AgentRegistry.load(root, settings),
                                    model=settings.resolve_model(), settings=settings)
        made = Stack(orchestrator, gate, bus, settings)
        bus.add_listener(made.events.append)
        return made

    return make
