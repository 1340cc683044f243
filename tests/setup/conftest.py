"""Setups people already have, placed where their authors put them, read by real code."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import ApprovalRequested
from valarmind_tui.safety.gate.approval import ApprovalAnswer, PermissionMode
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import GateDecision, PermissionGate
from valarmind_tui.session.session import InteractiveApprover
from valarmind_tui.session.wiring import build_gate
from valarmind_tui.settings.config import load_settings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.web.web_fetch import WebFetchTool

SETUPS = Path(__file__).resolve().parents[1] / "fixtures" / "setups"
TOOLS = builtin_tools()
TOOLS.register(WebFetchTool())  # the orchestrator's; the gate sees it as any agent's


def place(name: str, where: Path) -> Path:
    """Copy the vendored setup `name` (a folder, or one file) to `where`, byte for byte."""
    source = SETUPS / name
    if source.is_dir():
        shutil.copytree(source, where, dirs_exist_ok=True, symlinks=True)
    else:
        where.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, where)
    return where


def user_settings(home: Path, name: str = "documented/user-settings.json") -> Path:
    """The person's ~/.claude/settings.json, from a vendored file."""
    return place(name, home / ".claude" / "settings.json")


class Person:
    """Answers every approval request with `answer`, and counts the questions."""

    def __init__(self, bus: EventBus, approver: InteractiveApprover,
                 answer: ApprovalAnswer) -> None:
        self.asked: list[ApprovalRequested] = []
        self._approver, self._answer = approver, answer
        bus.add_listener(self._on_event)

    def _on_event(self, event: Any) -> None:
        if isinstance(event, ApprovalRequested):
            self.asked.append(event)
            self._approver.answer(event.request_id, self._answer)


def gate_for(root: Path, *, trusted: bool, mode: PermissionMode = PermissionMode.DEFAULT,
             answer: ApprovalAnswer | None = None) -> tuple[PermissionGate, Person]:
    """The gate a session in `root` gets (build_gate: our config and Claude's settings.json),
    with a person who answers `answer`."""
    settings = load_settings(root, trusted=trusted)
    bus = EventBus()
    approver = InteractiveApprover(bus)
    person = Person(bus, approver, answer or ApprovalAnswer("deny"))
    return build_gate(settings, root, approver, bus, mode=mode, hooks=None), person


async def check(gate: PermissionGate, root: Path, name: str, **args: Any) -> GateDecision:
    tool = TOOLS.get(name)
    assert tool is not None
    ctx = ToolContext(project_root=root, agent_id="main")
    return await gate.check(tool, tool.parse(args), ctx, AgentPermissions.full())
