"""The status bar: model, permission mode, sandbox, session tokens and cost, git branch; or, in
place of the spend and the branch, the person's own status line (faces/tui/status_line.py)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from valarmind_tui.core.visible_text import visible

_MODE_STYLE = {
    "default": "$text-muted", "accept-edits": "$success", "plan": "$accent", "bypass": "$error",
}


_FIT_ORDER = tuple(frozenset(f) for f in (
    {"hint", "spend", "branch", "labels"}, {"spend", "branch", "labels"}, {"spend", "labels"},
    {"labels"}, set()))
"""What a narrow bar leaves out first: the key hint, the branch, the spend, then the long
labels, and last the model's name is cut; the mode and the sandbox's state always stay."""
_FIT_ORDER_CUSTOM = tuple(frozenset(f) for f in (
    {"hint", "spend", "labels"}, {"spend", "labels"}, {"spend"}, set()))
"""With the person's own status line (in the spend's place): the long labels go before it."""


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


class StatusBar(Widget):
    """One line at the bottom; every field is a reactive set by the app."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    model: reactive[str | None] = reactive(None)
    mode: reactive[str] = reactive("default")
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)
    unpriced: reactive[int] = reactive(0)
    """Responses of a model without a known price: `cost` leaves them out."""
    budget: reactive[str] = reactive("")
    """Spent / budget of each limit set (`prompt $0.42/$1.00 · day ...`); "" without one."""
    branch: reactive[str | None] = reactive(None)
    busy: reactive[bool] = reactive(False)
    starting: reactive[bool] = reactive(False)
    """True until the session exists (the model and mode are not known yet)."""
    sandbox: reactive[str | None] = reactive(None)
    """The sandbox's label ("sandbox on · no network", "sandbox off"); None hides it."""
    sandbox_alert: reactive[bool] = reactive(False)
    """The sandbox is off although the user did not turn it off (bwrap cannot run)."""
    style: reactive[str | None] = reactive(None)
    """The output style (/style); None for the default."""
    fell_back: reactive[bool] = reactive(False)
    """`model` is a fallback model answering for the configured one (fallback_models)."""
    custom: reactive[str | None] = reactive(None)
    """The person's status line (`status_line`): replaces the spend and the branch."""

    def render(self) -> Content:
        sep = (" │ ", "$text-muted")
        if self.starting:
            parts: list[Content | tuple[str, str] | str] = [("○ starting…", "$text-muted")]
            if self.branch:
                parts += [sep, ("⎇ " + self.branch, "$secondary")]
            return Content.assemble(*parts)
        width = self.content_size.width
        for fields in _FIT_ORDER if self.custom is None else _FIT_ORDER_CUSTOM:
            line = self._line(sep, fields, self.model or "no model")
            if line.cell_length <= width:
                return line
        spare = width - line.cell_length + len(self.model or "no model")  # the model gives way
        return self._line(sep, fields, _clip(self.model or "no model", max(spare, 4)))

    def _line(self, sep: tuple[str, str], fields: frozenset[str], model: str) -> Content:
        """The bar with `fields` of the optional ones (hint, spend, branch, labels: the words
        "mode:" and the sandbox's long label)."""
        parts: list[Content | tuple[str, str] | str] = [
            ("● " if self.busy else "○ ", "$accent" if self.busy else "$text-muted"),
            (model, "bold" if self.model else "$warning"),
            *([(" (fallback)", "bold $warning")] if self.fell_back else []),
            sep,
        ]
        if "labels" in fields:
            parts.append(("mode: ", "$text-muted"))
        parts.append((self.mode, _MODE_STYLE.get(self.mode, "")))
        if "hint" in fields:
            parts.append((" (shift+tab)", "$text-muted"))
        if self.style:
            parts += [sep, ("style: " if "labels" in fields else "", "$text-muted"),
                      (visible(self.style), "$secondary")]
        sandbox = [sep, self._sandbox_part("labels" in fields)] if self.sandbox else []
        if self.sandbox_alert:  # commands run unconfined: say it before anything else
            parts += sandbox
        if self.custom is not None:
            if "spend" in fields:
                parts += [sep, self.custom]
        elif "spend" in fields:
            parts += [sep, f"{self.tokens:,} tok · {self._cost_text()}"]
            if self.budget:
                parts += [(" · budget ", "$text-muted"), self.budget]
        if self.branch and "branch" in fields and self.custom is None:
            parts += [sep, ("⎇ " + self.branch, "$secondary")]
        if not self.sandbox_alert:
            parts += sandbox
        return Content.assemble(*parts)

    def _cost_text(self) -> str:
        """`$?` when no response had a known price, `$0.0123+?` when some had none."""
        if not self.unpriced:
            return f"${self.cost:.4f}"
        return f"${self.cost:.4f}+?" if self.cost else "$?"

    def _sandbox_part(self, long: bool = True) -> tuple[str, str]:
        label = self.sandbox or ""
        if not long:
            label = label.replace(" · no network", "·no net").replace(" · network", "·net")
        if self.sandbox_alert:
            return (f"⚠ {label.upper()}", "bold $error")
        return (label, "$text-muted" if label.startswith("sandbox on") else "$warning")
