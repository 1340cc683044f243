"""A message typed while the agent works (agents/steering.py): queued, then delivered at the
agent's next step, or not delivered when the run ended first."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from valarmind_tui.core.visible_text import visible

_SAID = {"queued": "⧗ queued for the agent's next step",
         "delivered": "↳ delivered at the agent's next step",
         "dropped": "✗ not delivered: the run ended first (given back to the prompt)"}


class SteeringMessage(Static):
    """One steering message and where it is."""

    DEFAULT_CSS = """
    SteeringMessage { height: auto; margin: 0 0 1 0; padding: 0 1;
                      border-left: thick $secondary; background: $boost; }
    SteeringMessage.-dropped { border-left: thick $warning; }
    """

    def __init__(self, message_id: str, text: str) -> None:
        super().__init__(id=message_id)
        self.text = text
        self.state = "queued"
        self.show("queued")

    def show(self, state: str) -> None:
        self.state = state
        self.set_class(state == "dropped", "-dropped")
        self.update(Content.assemble(Content(visible(self.text)),
                                     ("\n" + _SAID.get(state, state), "$text-muted")))
