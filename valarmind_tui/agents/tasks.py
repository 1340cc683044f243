"""The orchestrator's live task list; every change is published as TaskListChanged."""

from __future__ import annotations

from dataclasses import replace

from valarmind_tui.bus import EventBus
from valarmind_tui.errors import ToolError
from valarmind_tui.events import TaskItem, TaskListChanged

STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed", "blocked", "cancelled")
_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "blocked": "[!]",
         "cancelled": "[-]"}


class TaskList:
    """Tasks with status, owner agent and dependencies (reached by tools via ctx.extra["tasks"])."""

    def __init__(self, bus: EventBus | None = None, *, agent_id: str = "main") -> None:
        self._bus = bus
        self._agent_id = agent_id
        self._items: dict[str, TaskItem] = {}
        self._next = 1

    def items(self) -> tuple[TaskItem, ...]:
        return tuple(self._items.values())

    def get(self, task_id: str) -> TaskItem:
        item = self._items.get(task_id)
        if item is None:
            known = ", ".join(self._items) or "none yet"
            raise ToolError(f"unknown task {task_id!r}; tasks: {known}")
        return item

    def create(
        self, title: str, *, owner: str | None = None, depends_on: tuple[str, ...] = (),
        status: str = "pending",
    ) -> TaskItem:
        if not title.strip():
            raise ToolError("a task needs a title")
        self._check_status(status)
        for dep in depends_on:
            self.get(dep)
        item = TaskItem(id=f"t{self._next}", title=title.strip(), status=status,  # type: ignore[arg-type]
                        owner=owner, depends_on=tuple(depends_on))
        self._next += 1
        self._items[item.id] = item
        self._publish()
        return item

    def update(
        self, task_id: str, *, status: str | None = None, owner: str | None = None,
        depends_on: tuple[str, ...] | None = None, title: str | None = None,
    ) -> TaskItem:
        item = self.get(task_id)
        changes: dict[str, object] = {}
        if depends_on is not None:
            for dep in depends_on:
                self.get(dep)
                if dep == task_id or task_id in self._ancestors(dep):
                    raise ToolError(f"{task_id} cannot depend on {dep}: that makes a cycle")
            changes["depends_on"] = tuple(depends_on)
        if status is not None:
            self._check_status(status)
            deps = changes.get("depends_on", item.depends_on)
            open_deps = [d for d in deps if self._items[d].status != "completed"]  # type: ignore[union-attr]
            if status in ("in_progress", "completed") and open_deps:
                raise ToolError(
                    f"{task_id} depends on unfinished {', '.join(open_deps)}; finish those first "
                    "or mark this one blocked"
                )
            changes["status"] = status
        if owner is not None:
            changes["owner"] = owner or None
        if title is not None and title.strip():
            changes["title"] = title.strip()
        updated = replace(item, **changes)  # type: ignore[arg-type]
        self._items[task_id] = updated
        self._publish()
        return updated

    def clear(self) -> None:
        self._items.clear()
        self._next = 1
        self._publish()

    def render(self) -> str:
        """Markdown for /tasks and the task_list tool."""
        if not self._items:
            return "No tasks."
        lines = []
        for t in self._items.values():
            extra = []
            if t.owner:
                extra.append(f"@{t.owner}")
            if t.depends_on:
                extra.append("after " + ", ".join(t.depends_on))
            suffix = f" ({'; '.join(extra)})" if extra else ""
            lines.append(f"- {_MARK.get(t.status, '[?]')} {t.id} {t.title}{suffix} - {t.status}")
        done = sum(t.status == "completed" for t in self._items.values())
        return f"{done}/{len(self._items)} completed\n" + "\n".join(lines)

    def _ancestors(self, task_id: str) -> set[str]:
        seen: set[str] = set()
        stack = list(self._items[task_id].depends_on)
        while stack:
            dep = stack.pop()
            if dep not in seen:
                seen.add(dep)
                stack.extend(self._items[dep].depends_on)
        return seen

    @staticmethod
    def _check_status(status: str) -> None:
        if status not in STATUSES:
            raise ToolError(f"unknown status {status!r}; one of: {', '.join(STATUSES)}")

    def _publish(self) -> None:
        if self._bus is not None:
            self._bus.publish(TaskListChanged(agent_id=self._agent_id, tasks=self.items()))
