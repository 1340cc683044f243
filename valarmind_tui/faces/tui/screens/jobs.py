"""/jobs in the TUI: the session's background commands, each with a tail that follows its
output while the screen is open (read from the command's ring twice a second: the output does
not travel on the bus)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from valarmind_tui.core.visible_text import visible
from valarmind_tui.tools.shell.jobs import BackgroundJobs, Job

TAIL_LINES = 12
REFRESH_S = 0.5


class JobTail(Static):
    """One background command: its line (handle, state, time, command) and its last lines."""

    DEFAULT_CSS = """
    JobTail { height: auto; margin: 0 0 1 0; }
    """

    def __init__(self, job: Job) -> None:
        super().__init__(id=f"tail-{job.handle}")
        self.job = job

    def render(self) -> Content:
        job = self.job
        tail = visible(job.ring.tail(TAIL_LINES)) or "(no output yet)"
        style = "$accent" if job.running else "$text-muted"
        return Content.assemble(("⏵ " if job.running else "⏹ ", style),
                                (visible(job.describe()), "bold"), "\n",
                                (tail, "$text-muted"))


class JobsScreen(ModalScreen[None]):
    """Every background command of the session; Esc closes."""

    DEFAULT_CSS = """
    JobsScreen { align: center middle; background: $background 60%; }
    JobsScreen #dialog {
        width: 90%; max-width: 140; height: auto; max-height: 90%; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    JobsScreen #title { text-style: bold; color: $accent; }
    JobsScreen #tails { height: auto; max-height: 40; margin: 1 0; }
    JobsScreen #hints { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss", "Close", show=False),
                Binding("q", "dismiss", "Close", show=False)]

    def __init__(self, jobs: BackgroundJobs) -> None:
        super().__init__()
        self.jobs = jobs

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Background commands", id="title")
            with VerticalScroll(id="tails"):
                for job in self.jobs.jobs():
                    yield JobTail(job)
                if not self.jobs.jobs():
                    yield Static("None in this session: start one with `!command &`.",
                                 id="empty")
            yield Static("Esc closes · /jobs stop HANDLE · /jobs keep HANDLE", id="hints")

    def on_mount(self) -> None:
        self.set_interval(REFRESH_S, self.follow)

    async def follow(self) -> None:
        """New output into the tails; a command started meanwhile gets a tail of its own."""
        shown = {tail.job.handle for tail in self.query(JobTail)}
        tails = self.query_one("#tails", VerticalScroll)
        for job in self.jobs.jobs():
            if job.handle not in shown:
                for empty in self.query("#empty"):
                    await empty.remove()
                await tails.mount(JobTail(job))
        for tail in self.query(JobTail):
            tail.refresh(layout=True)
