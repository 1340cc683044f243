"""The sidebar: the orchestrator's live task list and the agent monitor (agents, and the
session's background commands below them)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

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
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.tui.widgets.goal_panel import GoalPanel

_TASK_ICON = {
    "pending": ("○", "$text-muted"), "in_progress": ("◐", "$accent"),
    "completed": ("●", "$success"), "blocked": ("⊘", "$warning"),
    "cancelled": ("✕", "$text-muted"),
}


class TaskPanel(Static):
    """The task list, re-rendered whole on each TaskListChanged (lists are short)."""

    DEFAULT_CSS = """
    TaskPanel { height: auto; padding: 0 1; }
    """

    tasks: reactive[tuple[TaskItem, ...]] = reactive(tuple, layout=True)
    """layout=True: the widget's height follows the number of tasks (without it, it kept the
    height of the first list it drew and later rows were cut off)."""

    def render(self) -> Content:
        if not self.tasks:
            return Content.styled("No tasks yet.", "$text-muted")
        rows: list[Content | tuple[str, str] | str] = []
        for index, task in enumerate(self.tasks):
            icon, style = _TASK_ICON.get(task.status, ("?", ""))
            owner = f" ({task.owner})" if task.owner else ""
            title_style = "strike $text-muted" if task.status == "completed" else ""
            rows += ["\n" if index else "", (icon + " ", style), (task.title, title_style),
                     (owner, "$text-muted")]
        return Content.assemble(*rows)


@dataclass
class AgentRow:
    agent_id: str
    name: str
    task: str = ""
    tool: str | None = None
    started: float = field(default_factory=time.time)
    ended: float | None = None
    tokens: int = 0
    status: str = "running"


def _elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


@dataclass
class JobRow:
    handle: str
    command: str
    started: float
    state: str = "running"
    ended: float | None = None
    exit_code: int | None = None


class AgentMonitor(Static):
    """Which agents run, their task, current tool, elapsed time and tokens; then the
    background commands, running or how they ended."""

    DEFAULT_CSS = """
    AgentMonitor { height: auto; padding: 0 1; }
    """

    clock: Callable[[], float] = time.time
    """Where "now" comes from (tests freeze it)."""

    def __init__(self, **kwargs: object) -> None:
        # why the ignore below: Textual's typed keywords; ours pass through
        super().__init__(**kwargs)  # type: ignore[arg-type]  # why: above
        self.rows: dict[str, AgentRow] = {}
        self.jobs: dict[str, JobRow] = {}

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if (any(row.ended is None for row in self.rows.values())
                or any(job.ended is None for job in self.jobs.values())):
            self.refresh()

    def _row(self, event: Event, name: str | None = None) -> AgentRow:
        row = self.rows.get(event.agent_id)
        if row is None:
            row = AgentRow(event.agent_id, name or event.agent_id, started=event.at)
            self.rows[event.agent_id] = row
        return row

    def reset(self) -> None:
        """Forget every agent (another session was attached)."""
        self.rows.clear()
        self.jobs.clear()
        self.refresh(layout=True)

    def handle_event(self, event: Event) -> None:
        match event:
            case AgentSpawned():
                self.rows[event.agent_id] = AgentRow(
                    event.agent_id, event.name, event.task, started=event.at
                )
            case AgentFinished():
                row = self._row(event, event.name)
                row.status, row.ended, row.tool = event.status, event.at, None
            case PromptFinished():
                if event.agent_id in self.rows:
                    row = self.rows[event.agent_id]
                    row.status, row.ended, row.tool = event.status, event.at, None
            case TurnStarted():
                row = self._row(event)
                if row.ended is not None:  # the main agent answers a new prompt
                    row.started, row.ended, row.status = event.at, None, "running"
            case ToolCallStarted():
                self._row(event).tool = event.name
            case ToolCallFinished():
                self._row(event).tool = None
            case UsageUpdated():
                self._row(event).tokens += event.prompt_tokens + event.completion_tokens
            case JobChanged(state="running"):
                self.jobs[event.handle] = JobRow(event.handle, event.command, event.at)
            case JobChanged():
                job = self.jobs.setdefault(
                    event.handle, JobRow(event.handle, event.command, event.at))
                job.state, job.ended, job.exit_code = event.state, event.at, event.exit_code
            case (TextDelta() | ReasoningDelta() | TurnFinished() | ApprovalRequested()
                  | ApprovalResolved() | TaskListChanged() | Notice() | ModeChanged()
                  | HookRan() | CheckpointCreated() | FilesRestored() | CommitStepFinished()
                  | CommitMessageRequested() | ReviewerRan() | TraceRecorded()
                  | SteeringChanged() | ModelFellBack() | GoalUpdated()):
                return  # nothing an agent's row shows
            case _:
                assert_never(event)
        self.refresh(layout=True)

    def render(self) -> Content:
        if not self.rows and not self.jobs:
            return Content.styled("No agents running.", "$text-muted")
        now = self.clock()
        parts: list[Content | tuple[str, str] | str] = []
        if not self.rows:
            parts.append(("No agents running.", "$text-muted"))
        for index, row in enumerate(self.rows.values()):
            running = row.ended is None
            elapsed = _elapsed((now if running else row.ended or now) - row.started)
            parts += [
                "\n" if index else "",
                ("● " if running else "○ ", "$accent" if running else "$text-muted"),
                (row.name, "bold"), (f"  {row.status}", "$text-muted"),
                f"\n  {elapsed} · {row.tokens:,} tok",
            ]
            if row.tool:
                parts.append(("\n  ⚙ " + row.tool, "$accent"))
            if row.task:
                task = row.task if len(row.task) <= 60 else row.task[:59] + "…"
                parts.append(("\n  " + task, "$text-muted"))
        for job in self.jobs.values():
            running = job.ended is None
            elapsed = _elapsed((now if running else job.ended or now) - job.started)
            state = job.state if job.exit_code is None else f"{job.state} ({job.exit_code})"
            command = visible(job.command if len(job.command) <= 60 else job.command[:59] + "…")
            parts += ["\n" if parts else "",
                      ("⏵ " if running else "⏹ ", "$accent" if running else "$text-muted"),
                      (job.handle, "bold"), (f"  {state} · {elapsed}", "$text-muted"),
                      ("\n  $ " + command, "$text-muted")]
        return Content.assemble(*parts)


class Sidebar(VerticalScroll):
    """Task list above the agent monitor."""

    DEFAULT_CSS = """
    Sidebar { width: 36; background: $surface; border-left: vkey $panel; }
    Sidebar .sidebar-title { text-style: bold; color: $primary; padding: 0 1; margin-top: 1; }
    """

    def __init__(self, **kwargs: object) -> None:
        # why the ignore below: Textual's typed keywords; ours pass through
        super().__init__(**kwargs)  # type: ignore[arg-type]  # why: above
        # Held directly: events may arrive before this container has composed its children.
        self.task_list = TaskPanel(id="tasks")
        self.goal = GoalPanel(id="goal")
        self.monitor = AgentMonitor(id="agents")

    def compose(self) -> ComposeResult:
        yield Static("Tasks", classes="sidebar-title")
        yield self.goal
        yield self.task_list
        yield Static("Agents", classes="sidebar-title")
        yield self.monitor

    def reset(self) -> None:
        """Another session was attached (/resume): none of the old one's tasks or agents stay;
        the new session's own show as its events arrive."""
        self.task_list.tasks = ()
        self.goal.goal = None
        self.monitor.reset()

    def handle_event(self, event: Event) -> None:
        match event:
            case TaskListChanged():
                self.task_list.tasks = event.tasks
            case GoalUpdated():
                self.goal.goal = event
            case _:  # the monitor matches every other event itself
                self.monitor.handle_event(event)
