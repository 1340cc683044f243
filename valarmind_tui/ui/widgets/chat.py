"""The conversation pane: renders the main agent's events as they arrive."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.widget import Widget

from valarmind_tui.context.transcript import (
    AnswerItem,
    SummaryItem,
    ToolItem,
    Transcript,
    UserItem,
)
from valarmind_tui.events import (
    Event,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnStarted,
)
from valarmind_tui.ui.widgets.messages import NoticeLine, UserMessage
from valarmind_tui.ui.widgets.tool_call import ToolCallBlock

if TYPE_CHECKING:
    from valarmind_tui.ui.widgets.answer import AssistantMessage


def _new_answer() -> AssistantMessage:
    from valarmind_tui.ui.widgets.answer import AssistantMessage  # Markdown: not at first frame

    return AssistantMessage()


class ChatView(VerticalScroll):
    """Streams assistant text, reasoning and tool-call blocks; stays scrolled to the end."""

    DEFAULT_CSS = """
    ChatView { padding: 0 1; background: $background; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.current: AssistantMessage | None = None
        self.tool_blocks: dict[tuple[str, str], ToolCallBlock] = {}
        """By (agent id, call id): ids are only unique within one agent's conversation."""

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> Widget:
        """Append any widget to the conversation."""
        await self.mount(widget)
        return widget

    async def handle_event(self, event: Event) -> None:
        """Render one bus event (events of specialist agents show only as tool blocks)."""
        main = event.agent_id == "main"
        if isinstance(event, TextDelta) and main:
            (await self._assistant()).append_text(event.text)
        elif isinstance(event, ReasoningDelta) and main:
            (await self._assistant()).append_reasoning(event.text)
        elif isinstance(event, TurnStarted) and main:
            await self._close_current("done")
        elif isinstance(event, ToolCallStarted):
            await self.start_tool(event.agent_id, event.call_id, event.name, event.arguments)
        elif isinstance(event, ToolCallFinished):
            await self.finish_tool(event.agent_id, event.call_id, event.status, event.output,
                                   event.diff)
        elif isinstance(event, Notice):
            await self.mount(NoticeLine(event.message, event.level))

    async def start_tool(
        self, agent_id: str, call_id: str, name: str, arguments: dict[str, Any],
    ) -> ToolCallBlock:
        await self._close_current("done")
        block = ToolCallBlock(call_id, name, arguments, agent_id)
        self.tool_blocks[(agent_id, call_id)] = block
        await self.mount(block)
        return block

    async def finish_tool(
        self, agent_id: str, call_id: str, status: str, output: str, diff: str | None = None,
    ) -> None:
        block = self.tool_blocks.get((agent_id, call_id))
        if block is not None:
            await block.finish(status, output, diff)

    async def replay(self, transcript: Transcript) -> None:
        """Draw a stored conversation again, finished, before anything new."""
        await self._close_current("done")
        for item in transcript.items:
            if isinstance(item, UserItem):
                await self.mount(UserMessage(item.text, item.attachments))
            elif isinstance(item, AnswerItem):
                answer = _new_answer()
                await self.mount(answer)
                answer.append_text(item.text)
                await answer.finish("done")
            elif isinstance(item, ToolItem):
                await self.start_tool("main", item.call_id, item.name, item.arguments)
                await self.finish_tool("main", item.call_id, item.status, item.output, item.diff)
            elif isinstance(item, SummaryItem):
                await self.mount(NoticeLine(item.text))

    async def _assistant(self) -> AssistantMessage:
        if self.current is None:
            self.current = _new_answer()
            await self.mount(self.current)
        return self.current

    async def _close_current(self, status: str) -> None:
        current, self.current = self.current, None
        if current is not None:
            await current.finish(status)

    async def finish_answer(self, status: str) -> None:
        """The prompt ended: flush the answer and mark it when it is not complete."""
        if self.current is None and status != "done":
            self.current = _new_answer()
            await self.mount(self.current)
        await self._close_current(status)
        for block in self.tool_blocks.values():
            if block.state == "running" and status == "cancelled":
                block.state = "cancelled"

    async def clear(self) -> None:
        await self._close_current("done")
        self.tool_blocks.clear()
        await self.remove_children()
