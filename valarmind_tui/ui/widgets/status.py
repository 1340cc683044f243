"""The status bar: model, permission mode, sandbox, session tokens and cost, git branch."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

_MODE_STYLE = {
    "default": "$text-muted", "accept-edits": "$success", "plan": "$accent", "bypass": "$error",
}


class StatusBar(Widget):
    """One line at the bottom; every field is a reactive set by the app."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    model: reactive[str | None] = reactive(None)
    mode: reactive[str] = reactive("default")
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)
    branch: reactive[str | None] = reactive(None)
    busy: reactive[bool] = reactive(False)
    starting: reactive[bool] = reactive(False)
    """True until the session exists (the model and mode are not known yet)."""
    sandbox: reactive[str | None] = reactive(None)
    """The sandbox's label ("sandbox on · no network", "sandbox off"); None hides it."""
    sandbox_alert: reactive[bool] = reactive(False)
    """The sandbox is off although the user did not turn it off (bwrap cannot run)."""

    def render(self) -> Content:
        sep = (" │ ", "$text-muted")
        if self.starting:
            parts: list[Content | tuple[str, str] | str] = [("○ starting…", "$text-muted")]
            if self.branch:
                parts += [sep, ("⎇ " + self.branch, "$secondary")]
            return Content.assemble(*parts)
        parts = [
            ("● " if self.busy else "○ ", "$accent" if self.busy else "$text-muted"),
            (self.model or "no model", "bold" if self.model else "$warning"),
            sep,
            ("mode: ", "$text-muted"),
            (self.mode, _MODE_STYLE.get(self.mode, "")),
            (" (shift+tab)", "$text-muted"),
        ]
        sandbox = [sep, self._sandbox_part()] if self.sandbox else []
        if self.sandbox_alert:  # commands run unconfined: say it before anything else
            parts += sandbox
        parts += [sep, f"{self.tokens:,} tok · ${self.cost:.4f}"]
        if self.branch:
            parts += [sep, ("⎇ " + self.branch, "$secondary")]
        if not self.sandbox_alert:
            parts += sandbox
        return Content.assemble(*parts)

    def _sandbox_part(self) -> tuple[str, str]:
        label = self.sandbox or ""
        if self.sandbox_alert:
            return (f"⚠ {label.upper()}", "bold $error")
        return (label, "$text-muted" if label.startswith("sandbox on") else "$warning")
