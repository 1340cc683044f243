"""The task list tools and their TaskListChanged events."""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.agents.tasks import TaskList
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.events import Event, TaskListChanged, event_from_dict, event_to_dict
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.planning.task_tools import task_tools
from valarmind_tui.tools.services import ToolServices


async def test_task_tools_publish_the_whole_list(tmp_path: Path) -> None:
    bus = EventBus()
    events: list[Event] = []
    bus.add_listener(events.append)
    ctx = ToolContext(project_root=tmp_path, services=ToolServices(tasks=TaskList(bus)))
    create, update, listing = task_tools()

    async def run(tool, **args):  # noqa: ANN001, ANN202
        return await tool.run(tool.parse(args), ctx)

    await run(create, title="find greet", owner="search")
    await run(create, title="add farewell", owner="code", depends_on=["t1"])
    with pytest.raises(ToolError, match="depends on unfinished t1"):
        await run(update, id="t2", status="in_progress")
    await run(update, id="t1", status="completed")
    result = await run(update, id="t2", status="in_progress")
    assert not result.is_error
    shown = await run(listing)
    assert shown.output.splitlines() == [
        "1/2 completed",
        "- [x] t1 find greet (@search) - completed",
        "- [~] t2 add farewell (@code; after t1) - in_progress",
    ]
    changes = [e for e in events if isinstance(e, TaskListChanged)]
    assert len(changes) == 4  # two creates, two successful updates
    last = changes[-1].tasks
    assert [(t.id, t.status, t.owner, t.depends_on) for t in last] == [
        ("t1", "completed", "search", ()), ("t2", "in_progress", "code", ("t1",))]
    assert event_from_dict(event_to_dict(changes[-1])) == changes[-1]


def test_task_list_refuses_cycles_and_unknown_ids() -> None:
    tasks = TaskList()
    tasks.create("a")
    tasks.create("b", depends_on=("t1",))
    with pytest.raises(ToolError, match="cycle"):
        tasks.update("t1", depends_on=("t2",))
    with pytest.raises(ToolError, match="unknown task 't9'"):
        tasks.update("t9", status="completed")
    with pytest.raises(ToolError, match="unknown status"):
        tasks.update("t1", status="done")


async def test_task_tools_without_a_list_say_so(tmp_path: Path) -> None:
    create = task_tools()[0]
    with pytest.raises(ToolError, match="no task list"):
        await create.run(create.parse({"title": "x"}), ToolContext(project_root=tmp_path))
