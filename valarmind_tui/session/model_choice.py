"""The session's model and its provider: chosen from the settings, changed by /model, and built
on first use (this is where litellm gets imported)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from valarmind_tui.providers.base import Provider
from valarmind_tui.providers.fallback import FallbackProvider
from valarmind_tui.settings.config import Settings


class ModelChoice:
    """One session's model; `provider()` builds its provider once per model."""

    def __init__(self, settings: Settings, project_root: Path,
                 provider: Provider | None = None, *,
                 wrap: Callable[[Provider], Provider] = lambda p: p) -> None:
        """`provider`: one to use instead of the configured model's (tests, benchmarks);
        `wrap`: what each provider is wrapped in (the session's ledger)."""
        self.settings = settings
        self.project_root = project_root
        self.wrap = wrap
        self.model: str | None = settings.resolve_model()
        self.built: Provider | None = wrap(provider) if provider is not None else None
        """The provider in use, None until the first call of `provider()` needs it."""

    def choose(self, model: str) -> None:
        """/model: later prompts use `model` (its provider is built when first needed)."""
        self.model = self.settings.resolve_model(model)
        self.built = None

    @contextmanager
    def for_one_turn(self, model: str | None) -> Iterator[None]:
        """A custom command's `model`: `model` for what runs inside, then the model and the
        provider in use before (None: no change)."""
        if model is None:
            yield
            return
        before, built = self.model, self.built
        self.choose(model)
        try:
            yield
        finally:
            self.model, self.built = before, built

    def provider(self) -> Provider:
        """The model provider, built on first use; behind the person's fallback models when
        they listed any (providers/fallback.py)."""
        if self.built is None:
            from valarmind_tui.providers.litellm_provider import provider_from_settings

            def build(model: str | None) -> Provider:
                return self.wrap(provider_from_settings(self.settings, model, self.project_root))

            self.built = build(self.model)
            if self.settings.fallback_models or self.settings.alias_fallbacks:
                self.built = FallbackProvider(self.built, self.settings.fallbacks_for, build)
        return self.built

    def new_prompt(self) -> None:
        """A prompt starts: a model that failed over during the last one is tried again."""
        if isinstance(self.built, FallbackProvider):
            self.built.reset()
