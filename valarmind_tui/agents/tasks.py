"""The orchestrator's live task list; every change is published as TaskListChanged.

Tasks linked to a specialist (owned by it, or naming it: "Review and QA") follow its delegations
(DelegationFollower): in progress while it runs, completed when every agent they name finished
`done`, blocked when one did not, and, for review, QA and tests, what the quality gates decided.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection, Mapping
from dataclasses import replace

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ToolError
from valarmind_tui.core.events import RunStatus, TaskItem, TaskListChanged

STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed", "blocked", "cancelled")
_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "blocked": "[!]",
         "cancelled": "[-]"}


class TaskList:
    """Tasks with status, owner agent and dependencies (tools reach it as `ctx.services.tasks`)."""

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
        # why the ignore below: status checked by the tool's Params
        item = TaskItem(id=f"t{self._next}", title=title.strip(), status=status,  # type: ignore[arg-type]  # why: above
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
            deps = tuple(depends_on) if depends_on is not None else item.depends_on
            open_deps = [d for d in deps if self._items[d].status != "completed"]
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
        # why the ignore below: fields checked by the tool's Params
        updated = replace(item, **changes)  # type: ignore[arg-type]  # why: above
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


def agents_named(item: TaskItem, agents: Collection[str]) -> set[str]:
    """The specialists a task belongs to: its owner when that is one, else those its title
    names (`Review and QA` → review, qa; `Run the tests` → test)."""
    if item.owner and item.owner.lower() in agents:
        return {item.owner.lower()}
    words = set(re.findall(r"[a-z]+", item.title.lower()))
    words |= {w[:-1] for w in words if w.endswith("s")}
    return {a for a in agents if a in words}


_AFTER_DELEGATION = {RunStatus.DONE: "completed", RunStatus.CANCELLED: "cancelled"}
"""A task's status once its agent finished (anything else - failed, timeout... - blocks it)."""
_AFTER_GATE = {"passed": "completed", "failed": "blocked", "not_run": "blocked"}


class DelegationFollower:
    """Moves linked tasks along as the orchestrator's delegations start and finish."""

    def __init__(self, tasks: TaskList, agents: Collection[str]) -> None:
        self.tasks = tasks
        self.agents = set(agents)
        self.finished: dict[str, RunStatus] = {}

    def started(self, agent: str) -> None:
        self.finished.pop(agent, None)
        for item, _named in self._linked(agent):
            if item.status in ("pending", "blocked"):
                self._set(item.id, "in_progress")

    def ended(self, agent: str, status: RunStatus) -> None:
        self.finished[agent] = status
        for item, named in self._linked(agent):
            if item.status in ("completed", "cancelled"):
                continue
            if status != RunStatus.DONE:
                self._set(item.id, _AFTER_DELEGATION.get(status, "blocked"))
            elif all(self.finished.get(a) == RunStatus.DONE for a in named):
                self._set(item.id, "completed")

    def settle(self, verdicts: Mapping[str, str]) -> None:
        """The quality gates decided: tasks naming review, QA or tests take their verdict
        (whatever the model marked them)."""
        for item in self.tasks.items():
            named = agents_named(item, self.agents) & set(verdicts)
            if not named:
                continue
            worst = [v for v in ("failed", "not_run") if any(verdicts[a] == v for a in named)]
            self._set(item.id, _AFTER_GATE[worst[0] if worst else "passed"])

    def _linked(self, agent: str) -> list[tuple[TaskItem, set[str]]]:
        found = [(item, agents_named(item, self.agents)) for item in self.tasks.items()]
        return [(item, named) for item, named in found if agent in named]

    def _set(self, task_id: str, status: str) -> None:
        with contextlib.suppress(ToolError):  # an unfinished dependency: the status stays
            self.tasks.update(task_id, status=status)
