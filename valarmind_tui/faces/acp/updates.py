"""Bus events → ACP session updates (`agent_message_chunk`, `tool_call`, `plan`...).

One `UpdateTranslator` per ACP session keeps what a later event needs: which agent is which
specialist, the open tool calls, and a file's text before an edit (ACP shows an edit as old and
new text, our events carry a unified diff).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

from acp import helpers
from acp.schema import PlanEntryStatus, ToolCallLocation, ToolCallStatus, ToolCallUpdate

from valarmind_tui.agents.goal.state import progress_line
from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    ApprovalRequested,
    ApprovalResolved,
    CheckpointCreated,
    CommitMessageRequested,
    CommitStepFinished,
    Event,
    FilesRestored,
    GoalUpdated,
    HookRan,
    JobChanged,
    ModeChanged,
    ModelFellBack,
    Notice,
    PromptFinished,
    ReasoningDelta,
    ReviewerRan,
    SteeringChanged,
    TaskItem,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.safety.paths import resolve_in_project
from valarmind_tui.tools.base import Risk, Tool

KIND_BY_RISK = {Risk.READ: "read", Risk.WRITE: "edit", Risk.EXECUTE: "execute",
                Risk.WEB: "fetch", Risk.SPAWN: "think"}
STATUS_BY_OUTCOME: dict[str, ToolCallStatus] = {
    "ok": "completed", "error": "failed", "denied": "failed", "cancelled": "failed"}
PLAN_STATUS: dict[str, PlanEntryStatus] = {
    "pending": "pending", "in_progress": "in_progress", "completed": "completed",
    "blocked": "pending", "cancelled": "completed"}
MAX_OUTPUT = 4000
"""Characters of a tool's output shown in the client (the model may have read more)."""
MAX_FILE = 400_000
"""A file larger than this is not sent as an edit's old/new text."""


class UpdateTranslator:
    """Turns one session's events into ACP updates, in order."""

    def __init__(self, project_root: Path, tool_for: Callable[[str], Tool | None]) -> None:
        self.project_root = project_root
        self.tool_for = tool_for
        self._agents: dict[str, str] = {}
        self._open: dict[str, ToolCallStarted] = {}
        self._before: dict[str, str | None] = {}
        self._ids: dict[tuple[str, str], str] = {}
        self._count = 0

    def updates(self, event: Event) -> list[Any]:
        """The ACP updates for one event (none for events the client has no use for)."""
        match event:
            case TextDelta(agent_id="main"):
                return [helpers.update_agent_message_text(event.text)]
            case ReasoningDelta(agent_id="main"):
                return [helpers.update_agent_thought_text(event.text)]
            case ToolCallStarted():
                return self._started(event)
            case ToolCallFinished():
                return self._finished(event)
            case AgentSpawned():
                self._agents[event.agent_id] = event.name
                return [helpers.start_tool_call(
                    agent_call_id(event.agent_id), f"delegate: {event.name}", kind="think",
                    status="in_progress", content=[_text(event.task)],
                    raw_input={"agent": event.name, "task": event.task})]
            case AgentFinished() if event.agent_id in self._agents:
                status: ToolCallStatus = "completed" if event.status == "done" else "failed"
                return [helpers.update_tool_call(agent_call_id(event.agent_id), status=status,
                                                 content=[_text(event.summary or event.status)])]
            case TaskListChanged():
                return [helpers.update_plan(plan_entries(event.tasks))]
            case ModeChanged():
                return [helpers.update_current_mode(event.mode)]
            case GoalUpdated():
                return [helpers.update_agent_thought_text(f"\n{progress_line(event)}\n")]
            case Notice(level="warning" | "error"):
                return [helpers.update_agent_thought_text(f"\n[{event.level}] {event.message}\n")]
            case ModelFellBack():
                return [helpers.update_agent_thought_text(
                    f"\n[fallback] {event.failed_model} failed, {event.model} answers: "
                    f"{event.reason}\n")]
            case (TextDelta() | ReasoningDelta() | AgentFinished() | Notice() | TurnStarted()
                  | TurnFinished() | ApprovalRequested() | ApprovalResolved() | UsageUpdated()
                  | PromptFinished() | HookRan() | CheckpointCreated() | FilesRestored()
                  | CommitStepFinished() | CommitMessageRequested() | ReviewerRan()
                  | TraceRecorded() | JobChanged() | SteeringChanged()):
                return []  # the approval is asked by the link (request_permission)
            case _:
                assert_never(event)

    def call_id(self, event: ToolCallStarted | ToolCallFinished) -> str:
        """Our call ids are unique per agent and turn only (some providers reuse them): the
        client sees them qualified and numbered."""
        key = (event.agent_id, event.call_id)
        if isinstance(event, ToolCallStarted) or key not in self._ids:
            self._count += 1
            self._ids[key] = f"{event.agent_id}:{event.call_id}:{self._count}"
        return self._ids[key]

    def _title(self, event: ToolCallStarted) -> str:
        subject = next((str(v) for k, v in event.arguments.items()
                        if k in ("path", "command", "pattern", "url", "query") and v), "")
        title = f"{event.name} {subject}".strip()
        agent = self._agents.get(event.agent_id)
        return f"{agent}: {title}" if agent else title

    def _started(self, event: ToolCallStarted) -> list[Any]:
        call_id = self.call_id(event)
        self._open[call_id] = event
        if event.name == "delegate":  # AgentSpawned shows the specialist's work instead
            return []
        tool = self.tool_for(event.name)
        kind = KIND_BY_RISK.get(tool.risk, "other") if tool is not None else "other"
        locations = self._locations(event, tool)
        if kind == "edit" and locations:
            self._before[call_id] = _read(Path(locations[0].path))
        return [helpers.start_tool_call(
            # why the ignore below: kind is one of the SDK's ToolKind values
            call_id, self._title(event), kind=kind, status="in_progress",  # type: ignore[arg-type]  # why: above
            locations=locations or None, raw_input=event.arguments)]

    def _finished(self, event: ToolCallFinished) -> list[Any]:
        call_id = self.call_id(event)
        started = self._open.pop(call_id, None)
        status = STATUS_BY_OUTCOME.get(event.status, "failed")
        content: list[Any] = []
        if event.name == "delegate":
            if event.status == "ok":
                return []
            # no specialist ran (unknown agent, denied...): show why as a call of its own
            title = f"delegate: {started.arguments.get('agent', '?')}" if started else "delegate"
            return [helpers.start_tool_call(call_id, title, kind="think", status=status,
                                            content=[_text(event.output[:MAX_OUTPUT])])]
        if event.status == "ok" and call_id in self._before and started is not None:
            path = self._locations(started, self.tool_for(started.name))[0].path
            after = _read(Path(path))
            if after is not None:
                content.append(helpers.tool_diff_content(path, after, self._before[call_id]))
        self._before.pop(call_id, None)
        if event.output and not content:
            content.append(_text(event.output[:MAX_OUTPUT]))
        return [helpers.update_tool_call(call_id, status=status, content=content or None,
                                         raw_output={"status": event.status})]

    def _locations(self, event: ToolCallStarted, tool: Tool | None) -> list[ToolCallLocation]:
        names = tool.path_params if tool is not None else ("path",)
        found = []
        for name in names:
            value = event.arguments.get(name)
            if not isinstance(value, str) or not value:
                continue
            try:
                path = resolve_in_project(self.project_root, value)
            except Exception:  # the gate refuses it; the client just gets no location
                continue
            found.append(ToolCallLocation(path=str(path)))
        return found

    def approval_call(self, event: ApprovalRequested) -> ToolCallUpdate:
        """The tool call a permission request is about: the agent's last open call of that
        tool (the gate asks right after ToolCallStarted), else one named after the request."""
        call_id = next((cid for cid, started in reversed(self._open.items())
                        if started.agent_id == event.agent_id and started.name == event.tool),
                       f"approval:{event.request_id}")
        content = [_text(event.summary + (f"\n{event.reason}" if event.reason else ""))]
        if event.warning:
            content.append(_text(event.warning))
        if event.diff:
            content.append(_text(f"```diff\n{event.diff[:MAX_OUTPUT]}\n```"))
        if event.command:
            content.append(_text(f"```sh\n{event.command}\n```"))
        tool = self.tool_for(event.tool)
        kind = KIND_BY_RISK.get(tool.risk, "other") if tool is not None else "other"
        locations = [ToolCallLocation(path=event.path)] if event.path else None
        agent = self._agents.get(event.agent_id)
        title = f"{agent}: {event.summary}" if agent else event.summary
        # why the ignore below: kind is one of the SDK's ToolKind values
        return ToolCallUpdate(tool_call_id=call_id, title=title, kind=kind,  # type: ignore[arg-type]  # why: above
                              status="pending", content=content, locations=locations)


def agent_call_id(agent_id: str) -> str:
    return f"agent:{agent_id}"


def plan_entries(tasks: tuple[TaskItem, ...]) -> list[Any]:
    """The task list as an ACP plan: the running task is high priority, blocked ones low."""
    entries = []
    for task in tasks:
        priority = "high" if task.status == "in_progress" else (
            "low" if task.status == "blocked" or task.depends_on else "medium")
        title = task.title + (f" ({task.owner})" if task.owner else "")
        if task.status in ("blocked", "cancelled"):
            title += f" [{task.status}]"
        # why the ignore below: priority is one of the SDK's values
        entries.append(helpers.plan_entry(title, priority=priority,  # type: ignore[arg-type]  # why: above
                                          status=PLAN_STATUS[task.status]))
    return entries


def _text(text: str) -> Any:
    return helpers.tool_content(helpers.text_block(text))


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
