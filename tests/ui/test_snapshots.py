"""Snapshots of the main screen, the approval modal, the 80x24 layout and each shipped theme.

Deterministic: events carry fixed times, the agent monitor's clock is frozen, the cursor does not
blink, and nothing shows a temporary path. Update with `pytest tests/ui --snapshot-update` after
looking at the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import wait_for
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    AgentSpawned,
    ApprovalRequested,
    PromptFinished,
    ReasoningDelta,
    TaskItem,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui.app import ValarMindApp
from valarmind_tui.faces.tui.widgets.answer import AssistantMessage
from valarmind_tui.faces.tui.widgets.prompt import PromptInput
from valarmind_tui.faces.tui.widgets.sidebar import AgentMonitor
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import Settings

T0 = 1_700_000_000.0
DIFF = (
    "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n"
    "-    return 'Hello ' + name\n+    return 'Hi ' + name\n"
)
ANSWER = (
    "I'll change the greeting.\n\n## Plan\n\n1. Edit `greet` in **app.py**\n"
    "2. Run the tests\n\n```python\ndef greet(name):\n    return 'Hi ' + name\n```\n"
)


def _conversation(bus: EventBus) -> None:
    publish = bus.publish
    publish(TaskListChanged(at=T0, tasks=(
        TaskItem("1", "Find greet callers", "completed", "search"),
        TaskItem("2", "Change the greeting", "in_progress", "code"),
        TaskItem("3", "Run the tests", "pending"),
    )))
    publish(TurnStarted(at=T0, turn=1, model="openai/fake-model"))
    publish(ReasoningDelta(at=T0, text="The user wants Hi instead of Hello."))
    publish(TextDelta(at=T0, text=ANSWER))
    publish(AgentSpawned(agent_id="search-1", parent_id="main", name="search",
                         task="find callers of greet", at=T0))
    publish(ToolCallStarted(agent_id="search-1", call_id="g1", name="grep",
                            arguments={"pattern": "greet("}, at=T0 + 1))
    publish(ToolCallStarted(at=T0 + 2, call_id="e1", name="edit_file", arguments={
        "path": "app.py", "old_string": "'Hello '", "new_string": "'Hi '"}))
    publish(ToolCallFinished(at=T0 + 3, call_id="e1", name="edit_file", status="ok",
                             output="Edited app.py (1 replacement)", diff=DIFF))
    publish(UsageUpdated(at=T0 + 3, prompt_tokens=1520, completion_tokens=240, cost_usd=None,
                         session_tokens=1760, session_cost_usd=0.0123))
    publish(PromptFinished(at=T0 + 4, status="done", text=ANSWER))


def _make_app(git_repo: Path, tmp_path: Path) -> ValarMindApp:
    settings = Settings(model="openai/fake-model", api_base="http://127.0.0.1:9/v1")
    session = build_session(settings, git_repo)
    session.sandbox = Sandbox("/usr/bin/bwrap")  # the same label whether bwrap runs here or not
    app = ValarMindApp(session, history_file=tmp_path / "history.jsonl", remember_theme=False)
    return app


async def _prepare(pilot: Any) -> None:
    app = pilot.app
    app.query_one(PromptInput).cursor_blink = False
    app.query_one(AgentMonitor).clock = lambda: T0 + 42
    _conversation(app.session.bus)
    await wait_for(pilot, lambda: any(m.status == "done" for m in app.query(AssistantMessage)))
    await wait_for(pilot, lambda: any(b.diff for b in app.query(ToolCallBlock)))
    await pilot.pause()


def test_main_screen(snap_compare, git_repo: Path, tmp_path: Path) -> None:
    assert snap_compare(_make_app(git_repo, tmp_path), terminal_size=(130, 40),
                        run_before=_prepare)


def test_narrow_80x24(snap_compare, git_repo: Path, tmp_path: Path) -> None:
    assert snap_compare(_make_app(git_repo, tmp_path), terminal_size=(80, 24),
                        run_before=_prepare)


def test_approval_modal_with_diff(snap_compare, git_repo: Path, tmp_path: Path) -> None:
    async def ask(pilot: Any) -> None:
        await _prepare(pilot)
        pilot.app.session.bus.publish(ApprovalRequested(
            at=T0, request_id="r1", tool="edit_file", summary="Edit app.py",
            reason="edits a file in the project", diff=DIFF, path="app.py"))
        await wait_for(pilot, lambda: pilot.app.screen.id != "_default")
        await pilot.pause()

    assert snap_compare(_make_app(git_repo, tmp_path), terminal_size=(120, 36), run_before=ask)


@pytest.mark.parametrize("theme", ["valarmind-dark", "valarmind-light", "valarmind-high-contrast"])
def test_theme(theme: str, snap_compare, git_repo: Path, tmp_path: Path) -> None:
    async def themed(pilot: Any) -> None:
        pilot.app.theme = theme
        await _prepare(pilot)

    assert snap_compare(_make_app(git_repo, tmp_path), terminal_size=(110, 32), run_before=themed)
