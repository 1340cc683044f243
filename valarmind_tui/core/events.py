"""Every visible thing ValarMind does is one of these immutable events on the EventBus.

Faces render them, the session store appends them, the headless writer prints them as JSONL
(`type` is the snake_case class name). `agent_id` is "main" for the top-level agent; specialists
get their own id and name their parent in AgentSpawned.

`Event` is the closed union of every event class: a face handles it with `match event:` and ends
with `case _: assert_never(event)` (or lists the events it ignores), so adding an event makes mypy
name each face that does not handle it yet. `EventBase` only holds the fields every event has.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypeAlias, get_args


class RunStatus(StrEnum):
    """How a prompt or an agent's run ended. A StrEnum: it compares equal to its value and is
    written as the plain string in JSON, events and the store."""

    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INCOMPLETE = "incomplete"
    """The agent stopped before finishing (turn limit, time limit)."""
    ESCALATED = "escalated"
    """Repeated denials stopped the prompt; the text says why."""
    UNVERIFIED = "unverified"
    """A required quality gate could not run."""
    REJECTED = "rejected"
    """A required quality gate failed."""
    TIMEOUT = "timeout"
    """The orchestrator's own time limit ran out."""
    BUDGET = "budget"
    """A budget (cost, tokens, turns, time) was spent; stopped before the next model call."""


ToolStatus = Literal["ok", "error", "denied", "cancelled", "timeout"]
ApprovalDecision = Literal["allow_once", "allow_session", "allow_project", "deny"]


def _now() -> float:
    return time.time()


@dataclass(frozen=True, kw_only=True)
class EventBase:
    """The fields every event has. Not an event itself: type against `Event`, the union."""

    agent_id: str = "main"
    """Which agent produced the event."""
    at: float = field(default_factory=_now)
    """Unix time the event was created."""


@dataclass(frozen=True, kw_only=True)
class TurnStarted(EventBase):
    """A model request is about to be sent."""

    turn: int
    """1-based turn number within this agent's run."""
    model: str
    """The LiteLLM model string used."""


@dataclass(frozen=True, kw_only=True)
class TextDelta(EventBase):
    """A piece of streamed assistant text."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ReasoningDelta(EventBase):
    """A piece of streamed reasoning ("thinking")."""

    text: str


@dataclass(frozen=True, kw_only=True)
class TurnFinished(EventBase):
    """The model finished one response (it may still have asked for tools)."""

    turn: int
    text: str
    """The whole assistant text of this response."""
    tool_calls: int = 0
    """How many tool calls the response asked for."""
    finish_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted(EventBase):
    """The model asked for a tool and it is about to pass the gate and run."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished(EventBase):
    """A tool call ended: ran, failed, was denied or cancelled."""

    call_id: str
    name: str
    status: ToolStatus
    output: str
    """What the model receives (possibly truncated)."""
    diff: str | None = None
    """Unified diff for file changes."""
    exit_code: int | None = None
    """A command's exit code when it ran (bash); None when it did not run or is not a command.
    The quality gates read it as evidence of what QA and the test agent really ran."""
    ran: bool = True
    """False when the tool never ran: refused by the gate or a reviewer, an unknown tool,
    arguments that did not parse, cancelled before it started."""


@dataclass(frozen=True, kw_only=True)
class ApprovalRequested(EventBase):
    """The gate asks the person; the agent waits for ApprovalResolved."""

    request_id: str
    tool: str
    summary: str
    """One line: what will happen."""
    reason: str = ""
    """Why the gate asks (write, execute, sensitive path...)."""
    diff: str | None = None
    command: str | None = None
    cwd: str | None = None
    path: str | None = None
    warning: str = ""
    """Said when the command, path or diff holds characters a terminal would act on or hide
    (shown as `␛`, `␍`, `<U+202E>`...): faces show it beside the exact text."""


@dataclass(frozen=True, kw_only=True)
class ApprovalResolved(EventBase):
    """The person (or a policy) answered an approval request."""

    request_id: str
    decision: ApprovalDecision
    feedback: str | None = None


@dataclass(frozen=True, kw_only=True)
class AgentSpawned(EventBase):
    """A specialist agent started; `agent_id` is the new agent's id."""

    parent_id: str | None
    name: str
    """The agent definition's name (search, code, review...)."""
    task: str


@dataclass(frozen=True, kw_only=True)
class AgentFinished(EventBase):
    """An agent run ended."""

    name: str
    status: RunStatus
    summary: str = ""


@dataclass(frozen=True)
class TaskItem:
    """One row of the orchestrator's task list."""

    id: str
    title: str
    status: Literal["pending", "in_progress", "completed", "blocked", "cancelled"] = "pending"
    owner: str | None = None
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TaskListChanged(EventBase):
    """The task list changed; carries the whole new list."""

    tasks: tuple[TaskItem, ...]


@dataclass(frozen=True, kw_only=True)
class UsageUpdated(EventBase):
    """Tokens and cost of the last model response and of the session so far."""

    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """Cost of this response, None when the model is not in LiteLLM's cost map."""
    session_tokens: int = 0
    session_cost_usd: float = 0.0
    session_unpriced: int = 0
    """The session's responses without a known price (not in `session_cost_usd`)."""


@dataclass(frozen=True, kw_only=True)
class TraceRecorded(EventBase):
    """A trace record of an MCP server's sampling loop (seed 004): `agent_iteration` after each
    answer of our model, `agent_complete` at the end; /export jsonl writes them too."""

    kind: Literal["agent_iteration", "agent_complete"]
    record: dict[str, Any]
    """The record: trace_id, server, iteration or totals, duration_ms, tool_call_ids..."""
    tool_call_ids: tuple[str, ...] = ()
    """The agents' tool calls to that server running when it asked (what caused the request)."""


NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, kw_only=True)
class Notice(EventBase):
    """Something the person should know (a retry, a compaction, a server crash)."""

    level: NoticeLevel
    message: str


@dataclass(frozen=True, kw_only=True)
class ModeChanged(EventBase):
    """The permission mode changed."""

    mode: str


@dataclass(frozen=True, kw_only=True)
class PromptFinished(EventBase):
    """The answer to one submitted prompt is complete."""

    status: RunStatus
    text: str
    gates: tuple[dict[str, Any], ...] = ()
    """The quality gates' verdicts when they were required: {name, verdict, evidence}."""


@dataclass(frozen=True, kw_only=True)
class HookRan(EventBase):
    """One hook handler ran (config `hooks`, Claude Code's format)."""

    event: str
    """The hook event: PreToolUse, PostToolUse, UserPromptSubmit, Stop..."""
    matcher: str
    """The matcher of the group the handler belongs to ("" matches everything)."""
    command: str
    exit_code: int | None
    """None when the command was killed (timeout) or could not start."""
    duration_ms: int
    outcome: Literal["ok", "blocked", "error", "timeout", "invalid_output", "not_run"]
    """ok: exit 0; blocked: exit 2 or a blocking decision; error: another exit code or the
    command could not start; timeout: killed after its timeout; invalid_output: stdout was
    not valid JSON; not_run: a prompt handler with no model to ask (offline)."""
    detail: str = ""
    """The reason or stderr shown with the outcome, cut to a few hundred characters."""


@dataclass(frozen=True, kw_only=True)
class CheckpointCreated(EventBase):
    """The work tree was recorded in the project's shadow repository (see checkpoints/)."""

    turn: int
    """The session's turn (1-based, counting prompts that changed files)."""
    step: int
    """1 before the turn's first write or command, then one more per later checkpoint."""
    kind: Literal["before", "after"]
    """before a write or command, or after: the state the turn left."""
    commit: str
    """The checkpoint's commit in the shadow repository."""
    tool: str | None = None
    """The tool call about to run (None for `after`)."""
    skipped: tuple[str, ...] = ()
    """Files over the size cap: noted, not stored, so undo cannot restore them."""
    changed: tuple[str, ...] = ()
    """For `after`: the files the turn changed, created or removed."""


@dataclass(frozen=True, kw_only=True)
class FilesRestored(EventBase):
    """/undo, /redo or /rewind put files back."""

    action: Literal["undo", "redo", "rewind"]
    turn: int
    restored: tuple[str, ...] = ()
    """Files written back byte for byte (with their executable bit)."""
    removed: tuple[str, ...] = ()
    """Files removed (the turn had created them)."""
    conflicts: tuple[str, ...] = ()
    """Files changed by hand since the checkpoint: left as they are."""
    not_restored: tuple[str, ...] = ()
    """Files over the size cap or of a kind git does not store."""


@dataclass(frozen=True, kw_only=True)
class CommitStepFinished(EventBase):
    """One step of the commit chain (/commit, `valarmind commit`) ended."""

    step: Literal["check", "confirm", "message", "commit", "push"]
    outcome: Literal["passed", "failed", "not_run", "skipped", "cancelled"]
    """passed; failed (a check failed, the review DECLINED, git failed); not_run (it could
    not run: a check was denied, no model for the review); skipped (nothing to run, or the
    person said so: --no-review); cancelled (the person closed the message editor)."""
    exit_code: int | None = None
    """The failing (or last) command's exit code; None when nothing ran."""
    detail: str = ""
    """One line saying why, shown beside the outcome."""


@dataclass(frozen=True, kw_only=True)
class CommitMessageRequested(EventBase):
    """The commit chain waits for the person to edit the message; the face answers with
    `Session.answer_commit_message`."""

    request_id: str
    message: str
    drafted_by: Literal["model", "files"]
    """model: written by the model from the diff; files: drafted from the changed files
    without a model."""


@dataclass(frozen=True, kw_only=True)
class ReviewerRan(EventBase):
    """A model reviewer (config `[reviewers]`) gave its verdict, or gave none."""

    reviewer: str
    """tool-approve, tool-appeal, intent-check, plan-validate or error-acknowledge."""
    subject: str
    """What was reviewed, in one line (the call, the plan, the answer)."""
    verdict: str
    """The reviewer's decision (approve, deny, ask, overturn, uphold, done, not_done, accept,
    reject, acknowledged, ignored), or `none` when it gave no usable one."""
    reason: str = ""
    """The reviewer's reason, or why there was no verdict (malformed answer, model failure,
    budget spent, time limit)."""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    duration_ms: int = 0


@dataclass(frozen=True, kw_only=True)
class JobChanged(EventBase):
    """A background command started or ended (`bash` with `run_in_background`, `!cmd &`);
    `agent_id` is who started it ("user" for the person)."""

    handle: str
    """What command_output, command_stop and /jobs name it by (`job-1`)."""
    command: str
    state: Literal["running", "exited", "stopped", "killed"]
    """running; exited by itself; stopped (command_stop, /jobs stop); killed with the
    session."""
    exit_code: int | None = None
    network: bool = False
    """It may reach the network (and later commands with network reach a server it runs)."""


@dataclass(frozen=True, kw_only=True)
class SteeringChanged(EventBase):
    """A message the person typed while the agent worked: queued, then delivered to the main
    agent at its next model request (after the tool results), or dropped when the run ended
    first (the faces give it back to the person)."""

    message_id: str
    text: str
    state: Literal["queued", "delivered", "dropped"]


@dataclass(frozen=True, kw_only=True)
class ModelFellBack(EventBase):
    """A model call failed in a way another model may not (overload, 5xx, a context window
    too small) and moved to the next of the person's `fallback_models`: `model` answers now."""

    failed_model: str
    model: str
    reason: str
    """What the failed model's provider said."""


@dataclass(frozen=True)
class GoalCheckState:
    """One check of a goal and its last verdict (agents/goal/)."""

    command: str
    kind: str = "check"
    """test, lint, typecheck (detected), or check (named by the person)."""
    source: str | None = None
    """The file a detected check came from; None for the person's own."""
    exit_code: int | None = None
    """The last run's exit code; None before it ran or when it did not finish."""
    ran: bool = False
    seconds: float = 0.0
    at: float = 0.0
    """Unix time of the last run."""
    round: int = 0
    """The round whose tree it last ran on (0: the tree the goal started from)."""
    tail: str = ""
    """The last lines of its output."""

    @property
    def passed(self) -> bool:
        return self.ran and self.exit_code == 0


@dataclass(frozen=True, kw_only=True)
class GoalUpdated(EventBase):
    """A goal started, finished a round (its checks ran on the tree the round left) or ended.
    The session store keeps them: `--resume` continues an unfinished goal from the last one."""

    goal_id: str
    text: str
    status: str
    """running, or how it ended: done, stalled, weakened, budget, max_rounds, cancelled,
    failed."""
    round: int
    """Rounds finished so far."""
    checks: tuple[GoalCheckState, ...] = ()
    tree: str = ""
    """The work tree's id in the shadow repository after this round's checks."""
    stalled_rounds: int = 0
    """Rounds in a row with no new passing check and no new change."""
    passed_ever: tuple[str, ...] = ()
    """Checks that passed on some round's tree."""
    evidence: tuple[str, ...] = ()
    """What weakened the judge (`path:line: kind: detail`), when it did."""
    detail: str = ""
    """One line saying why it ended."""


Event: TypeAlias = (
    TurnStarted | TextDelta | ReasoningDelta | TurnFinished | ToolCallStarted | ToolCallFinished
    | ApprovalRequested | ApprovalResolved | AgentSpawned | AgentFinished | TaskListChanged
    | UsageUpdated | Notice | ModeChanged | PromptFinished | HookRan | CheckpointCreated
    | FilesRestored | CommitStepFinished | CommitMessageRequested | ReviewerRan
    | TraceRecorded | JobChanged | SteeringChanged | ModelFellBack | GoalUpdated
)

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def event_type(event: Event) -> str:
    """The snake_case name used in JSONL output and the session store (`tool_call_started`)."""
    return _CAMEL.sub("_", type(event).__name__).lower()


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with `type` first."""
    return {"type": event_type(event), **dataclasses.asdict(event)}


EVENT_TYPES: dict[str, type[Event]] = {
    _CAMEL.sub("_", cls.__name__).lower(): cls for cls in get_args(Event)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from `event_to_dict` output (for replaying a stored session)."""
    data = dict(data)
    cls = EVENT_TYPES[data.pop("type")]
    if cls is TraceRecorded:
        data["tool_call_ids"] = tuple(data.get("tool_call_ids", ()))
    if cls is TaskListChanged:
        data["tasks"] = tuple(
            TaskItem(**{**t, "depends_on": tuple(t.get("depends_on", ()))}) for t in data["tasks"]
        )
    if cls is GoalUpdated:
        for key in ("passed_ever", "evidence"):
            data[key] = tuple(data.get(key, ()))
        data["checks"] = tuple(GoalCheckState(**c) for c in data.get("checks", ()))
    return cls(**data)
