"""The conversation pane: renders the main agent's events as they arrive."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, assert_never

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

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
    RunStatus,
    SteeringChanged,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TraceRecorded,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui.widgets.messages import NoticeLine, UserMessage
from valarmind_tui.faces.tui.widgets.one_layout import OneLayoutPass
from valarmind_tui.faces.tui.widgets.steering import SteeringMessage
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.safety.visible_fields import visible_fields

if TYPE_CHECKING:
    from valarmind_tui.context.transcript import Transcript
    from valarmind_tui.faces.tui.widgets.answer import AssistantMessage


def _new_answer() -> AssistantMessage:
    from valarmind_tui.faces.tui.widgets.answer import (
        AssistantMessage,  # Markdown: not at first frame
    )

    return AssistantMessage()


def _frame_now(screen: Screen[Any]) -> None:
    """Draw the screen's pending changes now. Textual draws on a grid (TEXTUAL_FPS, 120 a
    second here: cli/main.py): the answer's last words, coming a few ms after the frame of its
    first ones, waited up to a tick for the next (8.3 ms; more on a loaded machine, whose timer
    wakes late). The tick finds nothing to draw."""
    if screen.is_current and not screen.app._batch_count:
        screen._on_timer_update()


WORDS_FRAME_WAIT_S = 0.1
"""The longest the end of a turn's decorations wait for the frame of its last words."""
LIVE_ITEMS = 40
"""Items of the conversation kept in the layout while the view follows the end."""
FOLD_STEP = 20
"""Older items are hidden this many at a time (not one per new item)."""


class _Folded(Widget):
    """Stands in, at its exact height, for the items hidden above the live ones."""

    DEFAULT_CSS = "_Folded { height: 0; }"


class ChatView(OneLayoutPass, VerticalScroll):
    """Streams assistant text, reasoning and tool-call blocks; stays scrolled to the end.

    Textual lays out every displayed widget of the chat on each frame, so a long session would
    slow every keystroke and streamed token. While the view follows the end, items older than
    the last LIVE_ITEMS are hidden behind one spacer of the same height; scrolling up near it,
    or a new width, shows them again.
    """

    DEFAULT_CSS = """
    ChatView { padding: 0 1; background: $background; }
    ChatView.-following { scrollbar-visibility: hidden; }
    """
    """While the view follows the end, its scrollbar is not drawn (its place stays, so nothing
    rewraps): a growing answer moved the thumb every frame and Textual drew the whole bar again,
    ~5% of a core at 1,000 tokens/s. Scrolling up shows it."""

    def __init__(self, **kwargs: object) -> None:
        # why the ignore below: Textual's typed keywords; ours pass through
        super().__init__(**kwargs)  # type: ignore[arg-type]  # why: above
        self.current: AssistantMessage | None = None
        self.tool_blocks: dict[tuple[str, str], ToolCallBlock] = {}
        """By (agent id, call id): ids are only unique within one agent's conversation."""
        self._folded_width = 0
        self._drawn_from = 0
        """Items before this one have forgotten what they drew (forget_drawn_off_screen)."""

    def compose(self) -> ComposeResult:
        yield _Folded()

    def on_mount(self) -> None:
        self.anchor()
        self.add_class("-following")

    async def _append(self, widget: Widget) -> None:
        awaited = self.current
        if awaited is not None and widget is not awaited and self._answer_awaited():
            # Anything else shown before the answer's first words comes before the answer, as
            # it would have: the empty one goes, and the words will mount a new one after it.
            self.current = None
            await awaited.remove()
        await self.mount(widget)
        if self.is_mounted:
            self.call_after_refresh(self._fold_old_items)

    @property
    def folded(self) -> int:
        """How many items are hidden behind the spacer."""
        return sum(1 for item in self.items if not item.display)

    @property
    def items(self) -> list[Widget]:
        """The conversation's widgets, in order (hidden ones included)."""
        return [child for child in self.children if not isinstance(child, _Folded)]

    def _fold_old_items(self) -> None:
        if self._anchor_released or self.max_scroll_y <= 0:
            return  # the person is reading up there: leave the layout alone
        shown = [item for item in self.items if item.display]
        if len(shown) < LIVE_ITEMS + FOLD_STEP:
            return
        first_live = shown[-LIVE_ITEMS]
        spacer = self.query_one(_Folded)
        # Everything above the first live item, less the top margin it keeps for itself.
        height = first_live.virtual_region.y - first_live.styles.margin.top
        for item in shown[:-LIVE_ITEMS]:
            item.display = False
        spacer.styles.height = max(0, height)
        self._folded_width = self.size.width

    def _unfold(self) -> None:
        if not self.folded:
            return
        with self.app.batch_update():
            for item in self.items:
                item.display = True
            self.query_one(_Folded).styles.height = 0

    def scroll_end(self, *args: Any, **kwargs: Any) -> None:
        # Going to the end anchors the view again at once; the scroll itself may then be done
        # by a layout pass (Textual's anchor), which calls no watch_scroll_y.
        super().scroll_end(*args, **kwargs)
        self._show_following()

    def release_anchor(self) -> None:
        super().release_anchor()
        self._show_following()

    def _show_following(self) -> None:
        self.set_class(not self._anchor_released, "-following")

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._show_following()
        if new_value < old_value:
            self._drawn_from = 0  # what comes into view is drawn again
        if new_value < old_value and self.folded:
            spacer = self.query_one(_Folded)
            if new_value < spacer.outer_size.height + self.size.height:
                self._unfold()

    def on_resize(self) -> None:
        if self.folded and self.size.width != self._folded_width:
            self._unfold()  # the hidden items' heights were for the old width

    async def add(self, widget: Widget) -> Widget:
        """Append any widget to the conversation."""
        await self._append(widget)
        return widget

    async def handle_event(self, event: Event) -> None:
        """Render one bus event (events of specialist agents show only as tool blocks)."""
        match event:
            case TextDelta(agent_id="main"):
                (await self._assistant()).append_text(event.text)
            case ReasoningDelta(agent_id="main"):
                (await self._assistant()).append_reasoning(event.text)
            case TurnStarted(agent_id="main"):
                await self._close_current(RunStatus.DONE)
                # The answer is mounted (empty) now, while its request is out, and drawn in the
                # prompt's frame (EventRouter): its mount, styles and first layout are then not
                # in the frame of its last words (last chunk -> screen 9.3 -> 8.3 and 9.1 ->
                # 8.6 ms, that frame's CPU 4.8 -> 3.9 and 5.0 -> 3.6 ms: last_chunk_bench,
                # 20 prompts a side in each of two sittings).
                await self._assistant()
            case TurnFinished(agent_id="main") if self.current is not None:
                self.current.answer.flush()  # the last words now, not at the next frame
            case ToolCallStarted():
                await self.start_tool(event.agent_id, event.call_id, event.name,
                                      event.arguments)
            case ToolCallFinished():
                await self.finish_tool(event.agent_id, event.call_id, event.status,
                                       event.output, event.diff)
            case Notice():
                await self._append(NoticeLine(event.message, event.level))
            case JobChanged() if event.state != "running":
                await self._append(NoticeLine(
                    f"{event.handle} {event.state} (exit {event.exit_code}): {event.command}",
                    "info"))
            case SteeringChanged(state="queued"):
                await self._append(SteeringMessage(event.message_id, event.text))
            case SteeringChanged():
                for shown in self.query(f"#{event.message_id}").results(SteeringMessage):
                    shown.show(event.state)
            case ModelFellBack():
                await self._append(NoticeLine(
                    f"{event.failed_model} failed ({event.reason}); {event.model} answers "
                    "instead (fallback_models)", "warning"))
            case GoalUpdated():
                level = "info" if event.status in ("running", "done") else "warning"
                await self._append(NoticeLine(progress_line(event), level))
            case (TextDelta() | ReasoningDelta() | TurnStarted() | TurnFinished()
                  | ApprovalRequested() | ApprovalResolved() | AgentSpawned() | AgentFinished()
                  | TaskListChanged() | UsageUpdated() | ModeChanged() | PromptFinished()
                  | HookRan() | CheckpointCreated() | FilesRestored() | CommitStepFinished()
                  | CommitMessageRequested() | ReviewerRan() | TraceRecorded() | JobChanged()):
                pass  # a specialist's text, or shown elsewhere (sidebar, status, a modal)
            case _:
                assert_never(event)

    def draw_now(self, *changed: Widget) -> None:
        """Draw the screen's pending changes (the chat's own and `changed`'s) as soon as the
        screen has their messages, not at Textual's next frame tick: resumed after a pause, its
        timer ticks one to two periods later (its skip arithmetic), up to 17 ms at 120 a
        second."""
        for widget in (*changed, self):
            # Its refresh reaches the screen now: posted at its next Idle, an idle screen
            # could draw before it.
            widget._check_refresh()
        # Behind the Update and Layout messages just posted: the screen has them when it runs.
        self.screen.call_later(_frame_now, self.screen)

    async def last_words_drawn(self) -> None:
        """Wait (at most WORDS_FRAME_WAIT_S) for the frame that shows what TurnFinished
        flushed. The events after it (the usage in the status bar and the sidebar, the run's
        end) wait here, so that frame draws the answer's changed lines alone: the decorations
        joined it when they came before it, and their work and layout came first."""
        widget: Widget = self if self.current is None else self.current.answer
        self.draw_now(widget)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(widget.wait_for_refresh(), WORDS_FRAME_WAIT_S)

    async def start_tool(
        self, agent_id: str, call_id: str, name: str, arguments: dict[str, Any],
    ) -> ToolCallBlock:
        await self._close_current(RunStatus.DONE)
        block = ToolCallBlock(call_id, name, arguments, agent_id)
        self.tool_blocks[(agent_id, call_id)] = block
        await self._append(block)
        return block

    async def finish_tool(
        self, agent_id: str, call_id: str, status: str, output: str, diff: str | None = None,
    ) -> None:
        block = self.tool_blocks.get((agent_id, call_id))
        if block is not None:
            await block.finish(status, output, diff)

    async def replay(self, transcript: Transcript) -> None:
        """Draw a stored conversation again, finished, before anything new."""
        from valarmind_tui.context.transcript import AnswerItem, SummaryItem, ToolItem, UserItem

        await self._close_current(RunStatus.DONE)
        for item in map(visible_fields, transcript.items):
            if isinstance(item, UserItem):
                await self._append(UserMessage(item.text, item.attachments))
            elif isinstance(item, AnswerItem):
                answer = _new_answer()
                await self._append(answer)
                answer.append_text(item.text)
                await answer.finish(RunStatus.DONE)
            elif isinstance(item, ToolItem):
                await self.start_tool("main", item.call_id, item.name, item.arguments)
                await self.finish_tool("main", item.call_id, item.status, item.output, item.diff)
            elif isinstance(item, SummaryItem):
                await self._append(NoticeLine(item.text))

    async def _assistant(self) -> AssistantMessage:
        if self.current is None:
            self.current = _new_answer()
            await self._append(self.current)
        return self.current

    def _answer_awaited(self) -> bool:
        """The current answer was mounted before its words and none came yet."""
        current = self.current
        return (current is not None and current.status is None and not current.text
                and not current.reasoning)

    async def _close_current(self, status: RunStatus) -> None:
        awaited = status == RunStatus.DONE and self._answer_awaited()
        current, self.current = self.current, None
        if current is not None and awaited:
            await current.remove()  # a turn of tool calls only, or no words: no answer
        elif current is not None:
            await current.finish(status)

    async def finish_answer(self, status: RunStatus, report: str = "") -> None:
        """The prompt ended: flush the answer, add the quality gates' `report` (it is not
        streamed), and mark the answer when it is not complete or the gates did not pass."""
        if self.current is None and (status != RunStatus.DONE or report):
            self.current = _new_answer()
            await self._append(self.current)
        if report and self.current is not None:
            self.current.append_text(("\n\n" if self.current.text else "") + report)
        for block in self.tool_blocks.values():  # before the answer's end mark is mounted
            if block.state == "running" and status == RunStatus.CANCELLED:
                block.state = "cancelled"
        await self._close_current(status)
        if self.is_mounted:
            self.call_after_refresh(self.forget_drawn_off_screen)

    def forget_drawn_off_screen(self) -> None:
        """Drop the drawn lines of the items more than a screen away from the view: Textual
        keeps every line it styled, and each of our Markdown widgets keeps its Strips, ~260
        Strips with their caches for an answer of ~2,000 tokens. After 30 such answers 8,000
        Strips were alive, 2,500 now; they are drawn again when the person scrolls back."""
        height = self.size.height
        near = Region(0, round(self.scroll_y) - height, max(1, self.size.width), 3 * height)
        items = self.items
        first_near = len(items)
        for index, item in enumerate(items[self._drawn_from:], self._drawn_from):
            if item.display and item.virtual_region.overlaps(near):
                first_near = min(first_near, index)
                continue
            for widget in item.walk_children(with_self=True):
                forget = getattr(widget, "forget_drawn", None)  # StreamingMarkdown's own Strips
                if forget is not None:
                    forget()
                else:
                    widget.refresh()
        self._drawn_from = first_near  # those above were forgotten, until a scroll up

    async def clear(self) -> None:
        await self._close_current(RunStatus.DONE)
        self.tool_blocks.clear()
        await self.remove_children()
        self._drawn_from = 0
        await self.mount(_Folded())
