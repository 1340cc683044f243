"""The session's model and its provider: chosen from the settings, changed by /model, and built
on first use (this is where litellm gets imported)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from valarmind_tui.providers.base import Provider
from valarmind_tui.providers.fallback import FallbackProvider
from valarmind_tui.providers.litellm_provider import ProviderConfig
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
        self.config: ProviderConfig | None = _config(provider)
        """The endpoint, key and limits `built` calls the model with (the primary's when
        there are fallback models); None until built, or when the provider is not LiteLLM's."""

    def choose(self, model: str) -> None:
        """/model: later prompts use `model` (its provider is built when first needed)."""
        self.model = self.settings.resolve_model(model)
        self.built = None
        self.config = None

    @contextmanager
    def for_one_turn(self, model: str | None) -> Iterator[None]:
        """A custom command's `model`: `model` for what runs inside, then the model and the
        provider in use before (None: no change)."""
        if model is None:
            yield
            return
        before, built, config = self.model, self.built, self.config
        self.choose(model)
        try:
            yield
        finally:
            self.model, self.built, self.config = before, built, config

    def provider(self) -> Provider:
        """The model provider, built on first use; behind the person's fallback models when
        they listed any (providers/fallback.py)."""
        if self.built is None:
            from valarmind_tui.providers.litellm_provider import provider_from_settings

            def build(model: str | None) -> Provider:
                return self.wrap(provider_from_settings(self.settings, model, self.project_root))

            primary = provider_from_settings(self.settings, self.model, self.project_root)
            self.config = primary.config
            self.built = self.wrap(primary)
            if self.settings.fallback_models or self.settings.alias_fallbacks:
                self.built = FallbackProvider(self.built, self.settings.fallbacks_for, build)
        return self.built

    def new_prompt(self) -> None:
        """A prompt starts: a model that failed over during the last one is tried again."""
        if isinstance(self.built, FallbackProvider):
            self.built.reset()


def _config(provider: Provider | None) -> ProviderConfig | None:
    config = getattr(provider, "config", None)
    return config if isinstance(config, ProviderConfig) else None
