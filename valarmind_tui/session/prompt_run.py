"""One prompt through the main agent: masked, UserPromptSubmit hooks, the history compacted
when the window is near, the orchestrator run within the time budget between the checkpoint's
begin and end, and its outcome published as PromptFinished."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from valarmind_tui.agents.loop import LoopDeps
from valarmind_tui.agents.orchestrator import Orchestrator
from valarmind_tui.agents.steering import SteeringQueue
from valarmind_tui.agents.time_limit import within_time_budget
from valarmind_tui.context.attachments import split_attachments
from valarmind_tui.context.history_size import fits_uncounted
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.events import Notice, PromptFinished, RunStatus
from valarmind_tui.core.tokenizer import encoding_ready
from valarmind_tui.providers.model_info import context_window, known_context_window
from valarmind_tui.session.records import keep_reported_size, offline_help
from valarmind_tui.tools.base import ToolContext

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session


@dataclass(frozen=True)
class PromptResult:
    """The outcome of one submitted prompt."""

    status: RunStatus
    text: str
    gates: tuple[dict[str, Any], ...] = ()
    """The quality gates' verdicts when they were required: {name, verdict, evidence}."""


def finish(bus: EventBus, status: RunStatus, text: str,
           gates: tuple[dict[str, Any], ...] = ()) -> PromptResult:
    bus.publish(PromptFinished(status=status, text=text, gates=gates))
    return PromptResult(status, text, gates)


async def run_prompt(session: Session, prompt: str, steering: SteeringQueue) -> PromptResult:
    bus = session.bus
    prompt = session.secrets.mask(prompt, fresh=True)  # a pasted token, an attached .env
    typed = split_attachments(prompt)[0]  # images come from the person's words only
    verdict = await session.hooks.user_prompt_submit(prompt)
    if verdict.blocked is not None:
        message = ("The prompt was not sent: a UserPromptSubmit hook blocked it. "
                   + verdict.blocked)
        bus.publish(Notice(level="warning", message=message))
        return finish(bus, RunStatus.FAILED, message)
    context = "\n".join(c for c in (session.hook_context, verdict.context) if c)
    if context:
        session.hook_context = ""
        prompt = f"{prompt}\n\n<hook-context>\n{context}\n</hook-context>"
    if session.offline:  # the prompt names the session all the same (`valarmind sessions`)
        if session.store is not None and session.session_id is not None:
            session.store.name_session(session.session_id, prompt)
        return finish(bus, RunStatus.FAILED, offline_help())
    try:
        provider = session.provider()
    except ValarMindError as exc:
        bus.publish(Notice(level="error", message=str(exc)))
        return finish(bus, RunStatus.FAILED, str(exc))
    # The window is asked of the model process once per model (a round trip per prompt).
    window = known_context_window(session.model)
    if window is None:
        window = await asyncio.to_thread(context_window, session.model)
    session.window = window
    # The tokenizer the history is measured with (compaction), loaded off the loop (it froze
    # the screen 0.2-0.5 s) and only once the model's reported count and the bytes since
    # come near the window: until then they say it fits, and the 24 MB of an encoding are
    # never resident. Loaded already: no thread round trip (it let a frame in before the
    # request).
    if session.history and not encoding_ready() and fits_uncounted(
            session.history, window, session.reported_size, session.model) is None:
        await asyncio.to_thread(count_tokens, "")
    # The session's model is asked first again (a fallback may have answered the last
    # prompt), from the summary on: the history was measured against its window.
    session.models.new_prompt()
    await session.compact_if_needed()
    images = await session.prompt_images(typed)
    ctx = ToolContext(project_root=session.project_root, sandbox=session.sandbox,
                      services=session.services)
    deps = LoopDeps(
        provider=provider, tools=session.tools, gate=session.gate, bus=bus, ctx=ctx,
        totals=session.totals, on_message=session.persist_message, vision=session.sees_images,
    )
    orchestrator = Orchestrator(
        deps, session.agents, model=session.model, settings=session.settings,
        tasks=session.tasks, max_turns=session.settings.max_turns,
        system_prompt_for=session.system_prompt, steering=steering,
    )
    session.checkpoints.begin(prompt)
    session.spending.begin_prompt()
    try:
        outcome = await within_time_budget(session.spending, orchestrator.run(
            prompt, history=session.history or None,
            system_prompt=session.system_prompt(orchestrator.spec), images=images,
        ))
    finally:
        session.turn_messages = []
        session.spending.end_scope("prompt")
        await session.checkpoints.end()
    session.history = outcome.messages
    session.reported_size = outcome.reported_size or session.reported_size
    failed = outcome.status == RunStatus.FAILED
    if failed and outcome.error:
        bus.publish(Notice(level="error", message=outcome.error))
    text = (outcome.error or outcome.text) if failed else outcome.text
    gates = tuple(orchestrator.gates.gates()) if orchestrator.gates is not None else ()
    result = finish(bus, outcome.status, text, gates)
    if outcome.reported_size is not None:  # after the answer is shown: 0.7 ms at 130 KB
        keep_reported_size(session.store, session.session_id, outcome.reported_size,
                           session.secrets)
    return result
