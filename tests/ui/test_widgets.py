"""Widgets fed by a real EventBus: what the core publishes is what the person sees."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from valarmind_tui.commands.registry import Command, CommandRegistry, CommandResult
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    AgentFinished,
    AgentSpawned,
    ApprovalRequested,
    PromptFinished,
    ReasoningDelta,
    TaskItem,
    TaskListChanged,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnStarted,
    UsageUpdated,
)
from valarmind_tui.faces.tui.bridge import SessionEvent, pump_events
from valarmind_tui.faces.tui.completion import complete_command, complete_path
from valarmind_tui.faces.tui.history import PromptHistory
from valarmind_tui.faces.tui.screens.approval import ApprovalScreen
from valarmind_tui.faces.tui.widgets.chat import ChatView
from valarmind_tui.faces.tui.widgets.prompt import PromptBar, PromptInput
from valarmind_tui.faces.tui.widgets.sidebar import AgentMonitor, Sidebar, TaskPanel
from valarmind_tui.faces.tui.widgets.streaming_markdown import StreamingMarkdown
from valarmind_tui.faces.tui.widgets.tool_call import ToolCallBlock
from valarmind_tui.safety.gate.approval import ApprovalAnswer

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old line\n+new line\n"


class Host(App[None]):
    """The widgets under test, wired to a bus exactly as the real app wires them."""

    def __init__(self, bus: EventBus, history: PromptHistory | None = None) -> None:
        super().__init__()
        self.bus = bus
        self.history = history or PromptHistory(None)
        self.submitted: list[str] = []
        registry = CommandRegistry()

        async def _answer(ctx: object, args: str) -> CommandResult:
            return CommandResult("answer")

        registry.register(Command("help", "list the commands", handler=_answer))
        registry.register(Command("model", "show or switch the model", handler=_answer))
        self.registry = registry

    def compose(self) -> ComposeResult:
        yield ChatView()
        yield Sidebar()
        yield PromptBar(self.history, completer=lambda t: complete_command(self.registry, t))

    def on_mount(self) -> None:
        self.run_worker(pump_events(self.bus, self))
        self.query_one(PromptInput).focus()

    async def on_session_event(self, message: SessionEvent) -> None:
        if not self.query(ChatView):  # torn down at the end of a test
            return
        await self.query_one(ChatView).handle_event(message.event)
        self.query_one(Sidebar).handle_event(message.event)
        if isinstance(message.event, PromptFinished):
            await self.query_one(ChatView).finish_answer(message.event.status)

    @on(PromptInput.Submitted)
    def _submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)


async def settle(pilot, until, timeout: float = 3.0) -> None:  # noqa: ANN001
    """Pause until `until()` is true (bounded)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not until():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


async def test_streamed_markdown_reasoning_and_tool_block() -> None:
    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 40)) as pilot:
        bus.publish(TurnStarted(turn=1, model="m"))
        bus.publish(ReasoningDelta(text="Look at app.py first."))
        for piece in ["# Plan\n\n", "Change **greet", "**:\n\n- step one\n", "- step two\n"]:
            bus.publish(TextDelta(text=piece))
        bus.publish(ToolCallStarted(call_id="c1", name="edit_file",
                                    arguments={"path": "app.py", "old": "old line"}))
        await settle(pilot, lambda: bool(app.query(ToolCallBlock)))
        block = app.query_one(ToolCallBlock)
        assert block.state == "running" and block.has_class("-running")
        header = str(block.render())
        assert "edit_file" in header and "path=app.py" in header and "running" in header

        bus.publish(ToolCallFinished(call_id="c1", name="edit_file", status="ok",
                                     output="Edited app.py\n", diff=DIFF))
        bus.publish(PromptFinished(status="done", text=""))
        await settle(pilot, lambda: block.state == "done" and block.diff)
        markdown = app.query_one(".answer", StreamingMarkdown)
        assert markdown.source == "# Plan\n\nChange **greet**:\n\n- step one\n- step two\n"
        assert markdown.plain_text.splitlines() == [
            "Plan", "", "Change greet:", "", " • step one", " • step two"]
        reasoning = app.query_one(".reasoning", Static)
        assert reasoning.display and str(reasoning.render()) == "▶ Reasoning"
        await pilot.click(reasoning)
        assert "Look at app.py first." in str(reasoning.render())
        shown = str(block.render()).splitlines()
        assert "+new line" in shown and "-old line" in shown
        assert shown[-1] == "▶ Edited app.py"  # the result, folded
        await pilot.click(block)
        assert str(block.render()).splitlines()[-2:] == ["▼ Edited app.py", "Edited app.py"]


async def test_tool_states_denied_and_cancelled_prompt() -> None:
    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 40)) as pilot:
        bus.publish(ToolCallStarted(call_id="a", name="bash", arguments={"command": "rm -rf x"}))
        bus.publish(ToolCallFinished(call_id="a", name="bash", status="denied",
                                     output="Denied.\nFeedback from the user: no"))
        bus.publish(TextDelta(text="partial ans"))
        bus.publish(ToolCallStarted(call_id="b", name="grep", arguments={"pattern": "x"}))
        bus.publish(PromptFinished(status="cancelled", text="partial ans"))
        await settle(pilot, lambda: app.query(".answer-end"))
        blocks = {b.call_id: b for b in app.query(ToolCallBlock)}
        assert blocks["a"].state == "denied" and blocks["a"].has_class("-denied")
        assert blocks["b"].state == "cancelled"
        marker = str(app.query_one(".answer-end", Static).render())
        assert "cancelled" in marker
        assert app.query_one(".answer", StreamingMarkdown).source == "partial ans"


async def test_sidebar_tasks_and_agent_monitor() -> None:
    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 40)) as pilot:
        monitor = app.query_one(AgentMonitor)
        monitor.clock = lambda: 1065.0
        bus.publish(TaskListChanged(tasks=(TaskItem("1", "Find callers", "completed"),
                                           TaskItem("2", "Edit greet", "in_progress", "code"))))
        bus.publish(AgentSpawned(agent_id="s1", parent_id="main", name="search",
                                 task="find greet", at=1000.0))
        bus.publish(ToolCallStarted(agent_id="s1", call_id="g", name="grep", arguments={}))
        bus.publish(UsageUpdated(agent_id="s1", prompt_tokens=1200, completion_tokens=34,
                                 cost_usd=None))
        await settle(pilot, lambda: "s1" in monitor.rows and monitor.rows["s1"].tokens)
        text = str(monitor.render())
        assert "search" in text and "1m05s" in text and "1,234 tok" in text and "⚙ grep" in text
        tasks = str(app.query_one(TaskPanel).render())
        assert "Find callers" in tasks and "Edit greet (code)" in tasks
        bus.publish(AgentFinished(agent_id="s1", name="search", status="done", at=1010.0))
        await settle(pilot, lambda: monitor.rows["s1"].ended is not None)
        text = str(monitor.render())
        assert "done" in text and "10s" in text and "grep" not in text


async def test_prompt_enter_sends_ctrl_j_newline_and_history(tmp_path: Path) -> None:
    history_file = tmp_path / "history.jsonl"
    app = Host(EventBus(), PromptHistory(history_file))
    async with app.run_test() as pilot:
        await pilot.press(*"first", "ctrl+j", *"line two", "enter")
        assert app.submitted == ["first\nline two"]
        prompt = app.query_one(PromptInput)
        assert prompt.text == ""
        await pilot.press(*"second", "enter", "up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "first\nline two"
    reloaded = PromptHistory(history_file)
    assert reloaded.entries == ["first\nline two", "second"]


async def test_slash_completion_shows_help_and_completes() -> None:
    app = Host(EventBus())
    async with app.run_test() as pilot:
        await pilot.press("/", "m")
        options = app.query_one("#completions", OptionList)
        assert options.display and options.option_count == 1
        assert "show or switch the model" in str(options.get_option_at_index(0).prompt)
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "/model"
        assert not options.display
        await pilot.press("enter")
        assert app.submitted == ["/model"]


def test_path_completion_stays_inside_project(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("x")
    (tmp_path / "setup.cfg").write_text("x")
    values = [c.value for c in complete_path(tmp_path, "look at @s")]
    assert values == ["@src/", "@setup.cfg"]
    assert [c.value for c in complete_path(tmp_path, "@src/m")] == ["@src/main.py"]
    assert complete_path(tmp_path, "@../") == []


class ModalHost(App[None]):
    def __init__(self, request: ApprovalRequested) -> None:
        super().__init__()
        self.request = request
        self.answers: list[ApprovalAnswer | None] = []

    def on_mount(self) -> None:
        self.push_screen(ApprovalScreen(self.request), callback=self.answers.append)


async def _answer(keys: list[str], request: ApprovalRequested) -> ApprovalAnswer | None:
    app = ModalHost(request)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await settle(pilot, lambda: bool(app.answers))
    return app.answers[0]


async def test_approval_keys() -> None:
    edit = ApprovalRequested(request_id="r", tool="edit_file", summary="edit app.py",
                             reason="writes a file", diff=DIFF, path="app.py")
    assert await _answer(["y"], edit) == ApprovalAnswer("allow_once")
    assert await _answer(["n"], edit) == ApprovalAnswer("deny")
    assert await _answer(["a", "s"], edit) == ApprovalAnswer("allow_session")
    assert await _answer(["a", "p"], edit) == ApprovalAnswer("allow_project")
    assert await _answer(["f", *"use hi", "enter"], edit) == ApprovalAnswer("deny", "use hi")


async def test_approval_shows_command_and_cwd() -> None:
    bash = ApprovalRequested(request_id="r", tool="bash", summary="run a command",
                             command="make test", cwd="/work/project")
    app = ModalHost(bash)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        assert str(screen.query_one("#command", Static).render()) == "$ make test"
        assert str(screen.query_one("#cwd", Static).render()) == "in /work/project"
        await pilot.press("a", "escape", "y")
        await settle(pilot, lambda: bool(app.answers))
    assert app.answers == [ApprovalAnswer("allow_once")]


async def test_a_long_conversation_folds_old_items_and_unfolds_them_on_scroll_up() -> None:
    from valarmind_tui.faces.tui.widgets import chat as chat_module

    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 30)) as pilot:
        chat = app.query_one(ChatView)
        for i in range(chat_module.LIVE_ITEMS + chat_module.FOLD_STEP + 5):  # 65 tool calls
            bus.publish(ToolCallStarted(call_id=f"c{i}", name="read_file",
                                        arguments={"path": f"file{i}.py"}))
            bus.publish(ToolCallFinished(call_id=f"c{i}", name="read_file", status="ok",
                                         output=f"line one of {i}\nline two\n"))
        total = chat_module.LIVE_ITEMS + chat_module.FOLD_STEP + 5
        await settle(pilot, lambda: len(chat.items) == total and chat.folded > 0, timeout=10)
        shown = [item for item in chat.items if item.display]
        # The layout holds only recent items (folded in steps, not one per new item).
        assert chat_module.LIVE_ITEMS <= len(shown) < chat_module.LIVE_ITEMS + chat_module.FOLD_STEP
        assert chat.folded == total - len(shown) and not chat.items[0].display
        newest = shown[-1]
        assert isinstance(newest, ToolCallBlock) and newest.call_id == "c64"
        bottom = newest.virtual_region.bottom
        assert chat.virtual_size.height >= bottom  # the spacer keeps the full height

        chat.scroll_home(animate=False)  # the person scrolls back up
        await settle(pilot, lambda: chat.folded == 0)
        first = chat.items[0]
        assert isinstance(first, ToolCallBlock) and first.call_id == "c0" and first.display
        assert newest.virtual_region.bottom == bottom  # unfolding moved nothing


async def test_the_chats_scrollbar_shows_once_the_person_scrolls_up() -> None:
    """Following the end (a growing answer), the bar is not drawn; its column stays, so
    showing it again rewraps nothing."""
    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 30)) as pilot:
        chat = app.query_one(ChatView)
        for i in range(20):
            bus.publish(ToolCallStarted(call_id=f"c{i}", name="read_file",
                                        arguments={"path": f"file{i}.py"}))
        await settle(pilot, lambda: chat.max_scroll_y > 0 and len(chat.items) == 20)
        width = chat.scrollable_content_region.width
        assert chat.styles.scrollbar_visibility == "hidden"
        chat.scroll_home(animate=False)  # the person scrolls up
        await settle(pilot, lambda: chat.styles.scrollbar_visibility == "visible")
        assert chat.scrollable_content_region.width == width
        chat.scroll_end(animate=False)
        await settle(pilot, lambda: chat.styles.scrollbar_visibility == "hidden")
        assert chat.scrollable_content_region.width == width


async def test_status_bar_shows_the_sandbox() -> None:
    from valarmind_tui.faces.tui.widgets.status import StatusBar

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    app = Host()
    async with app.run_test(size=(160, 3)) as pilot:
        status = app.query_one(StatusBar)
        status.sandbox = "sandbox on · no network"
        await pilot.pause()
        assert "sandbox on · no network" in status.render().plain
        status.sandbox, status.sandbox_alert = "sandbox off", True
        await pilot.pause()
        assert "⚠ SANDBOX OFF" in status.render().plain


async def test_a_narrow_status_bar_keeps_the_sandbox_and_drops_the_rest_first() -> None:
    """At 40 columns the sandbox's state fell off the end of the bar."""
    from valarmind_tui.faces.tui.widgets.status import StatusBar

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    app = Host()
    async with app.run_test(size=(40, 3)) as pilot:
        status = app.query_one(StatusBar)
        status.model, status.branch, status.tokens = "fake-model", "main", 1234
        status.sandbox = "sandbox on · no network"
        await pilot.pause()
        shown = status.render().plain
        assert "sandbox on·no net" in shown and "default" in shown
        assert "shift+tab" not in shown and len(shown) <= status.content_size.width
    wide = Host()
    async with wide.run_test(size=(160, 3)) as pilot:
        status = wide.query_one(StatusBar)
        status.model, status.branch, status.sandbox = "fake-model", "main", "sandbox on"
        await pilot.pause()
        assert "(shift+tab)" in status.render().plain and "⎇ main" in status.render().plain


async def test_a_growing_answer_costs_one_layout_pass_per_frame(monkeypatch) -> None:  # noqa: ANN001
    """Textual re-asked for layout when a pass resized the chat, the answer and its Markdown:
    every frame of a stream was laid out and drawn twice."""
    from textual.screen import Screen

    from valarmind_tui.core.events import TextDelta

    passes: list[float] = []
    real = Screen._refresh_layout

    def counted(self: Screen, *args: object, **kwargs: object) -> None:
        passes.append(asyncio.get_running_loop().time())
        real(self, *args, **kwargs)  # type: ignore[arg-type]  # why: passed through unchanged

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    bus = EventBus()
    app = Host(bus)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause(0.2)
        passes.clear()
        for n in range(20):  # 20 frames, each adding lines to the answer
            bus.publish(TextDelta(text=f"Line {n} of the answer.\n\n" * 3))
            await pilot.pause(0.12)
        markdown = app.query_one(StreamingMarkdown)
        assert "Line 19 of the answer." in markdown.plain_text
        assert len(passes) <= 20 + 3, len(passes)  # one per frame (it was two)


async def test_a_small_terminal_keeps_the_approvals_keys_and_warning_in_view() -> None:
    """At 40x12 the dialog's key hints fell off the screen under a long diff."""
    long_diff = "--- a/app.py\n+++ b/app.py\n@@ -1,40 +1,40 @@\n" + "".join(
        f"-old {i}\n+new {i}\n" for i in range(40))
    edit = ApprovalRequested(request_id="r", tool="edit_file", summary="edit app.py",
                             reason="writes a file", diff=long_diff, path="app.py",
                             warning="this edit contains control characters")
    app = ModalHost(edit)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        for name in ("#hints", "#warning", "#title"):
            region = screen.query_one(name).region
            assert region.height >= 1 and region.y >= 0 and region.bottom <= 12, name
        await pilot.press("y")
        await settle(pilot, lambda: bool(app.answers))
    assert app.answers == [ApprovalAnswer("allow_once")]
