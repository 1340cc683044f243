"""task_create / task_update / task_list: the orchestrator's live task list.

They only touch the orchestrator's in-memory task list, `ctx.services.tasks` (risk READ).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.events import TaskItem
from valarmind_tui.tools.base import Risk, Tool, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.services import TaskBoard

Status = Literal["pending", "in_progress", "completed", "blocked", "cancelled"]


def _tasks(ctx: ToolContext) -> TaskBoard:
    tasks = ctx.services.tasks
    if tasks is None:
        raise ToolError("no task list for this agent: only the main agent keeps one")
    return tasks


def _row(item: TaskItem) -> dict[str, Any]:
    return {"id": item.id, "title": item.title, "status": item.status, "owner": item.owner,
            "depends_on": list(item.depends_on)}


class TaskCreateParams(ToolParams):
    title: str = Field(description="What has to be done.")
    owner: str | None = Field(None, description="Agent that will do it (code, test...).")
    depends_on: list[str] = Field(default_factory=list, description="Ids of blocking tasks.")


class TaskCreateTool(Tool[TaskCreateParams]):
    name = "task_create"
    risk = Risk.READ
    description = "Add a task to the task list (title, owner agent, dependencies by task id)."

    Params = TaskCreateParams

    async def run(self, params: TaskCreateParams, ctx: ToolContext) -> ToolResult:
        tasks = _tasks(ctx)
        item = tasks.create(params.title, owner=params.owner, depends_on=tuple(params.depends_on))
        return ToolResult(f"Created {item.id}.\n{tasks.render()}", data=_row(item))


class TaskUpdateParams(ToolParams):
    id: str = Field(description="Task id, e.g. t1.")
    status: Status | None = None
    owner: str | None = None
    depends_on: list[str] | None = None
    title: str | None = None


class TaskUpdateTool(Tool[TaskUpdateParams]):
    name = "task_update"
    risk = Risk.READ
    description = "Change a task's status, owner, dependencies or title."

    Params = TaskUpdateParams

    async def run(self, params: TaskUpdateParams, ctx: ToolContext) -> ToolResult:
        tasks = _tasks(ctx)
        item = tasks.update(
            params.id, status=params.status, owner=params.owner, title=params.title,
            depends_on=tuple(params.depends_on) if params.depends_on is not None else None,
        )
        return ToolResult(f"Updated {item.id}.\n{tasks.render()}", data=_row(item))


class TaskListParams(ToolParams):
    pass


class TaskListTool(Tool[TaskListParams]):
    name = "task_list"
    risk = Risk.READ
    description = "Show the task list with status, owners and dependencies."

    Params = TaskListParams

    async def run(self, params: TaskListParams, ctx: ToolContext) -> ToolResult:
        tasks = _tasks(ctx)
        return ToolResult(tasks.render(), data=[_row(t) for t in tasks.items()])


def task_tools() -> list[Tool]:
    return [TaskCreateTool(), TaskUpdateTool(), TaskListTool()]
