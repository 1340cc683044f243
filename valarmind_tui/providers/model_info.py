"""What a model offers, from LiteLLM's offline model information: its context window and
whether it reads images."""

from __future__ import annotations

from valarmind_tui.core.errors import ProviderError

DEFAULT_CONTEXT_WINDOW = 128_000


_known: dict[str, int] = {}
"""Windows the model process answered: its offline model info does not change while it runs."""


def known_context_window(model: str | None) -> int | None:
    """`context_window(model)` when it was asked already, without blocking; else None."""
    return _known.get(model) if model else None


def context_window(model: str | None) -> int:
    """The model's input window from LiteLLM's offline model info; 128k when unknown. Asked of
    the model process when there is one, once per model (blocking: not on an event loop)."""
    from valarmind_tui.providers.process import client as model_process

    process = model_process.running(model) if model else None
    if process is None or model is None:
        return context_window_here(model)
    if model in _known:
        return _known[model]
    try:
        window = int(process.call("context_window", model=model))
    except (ProviderError, TypeError, ValueError):
        return DEFAULT_CONTEXT_WINDOW
    _known[model] = window
    return window


def context_window_here(model: str | None) -> int:
    """`context_window` from litellm imported in this process."""
    if not model:
        return DEFAULT_CONTEXT_WINDOW
    from valarmind_tui.providers.litellm_call import load_litellm

    try:
        info = load_litellm().get_model_info(model)
    except Exception:  # unknown models raise; offline maps may lack them
        return DEFAULT_CONTEXT_WINDOW
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if window else DEFAULT_CONTEXT_WINDOW


def supports_vision(model: str | None) -> bool:
    """Whether LiteLLM's offline model info says `model` reads images (False when unknown).
    Asked of the model process when there is one (blocking: not on an event loop)."""
    from valarmind_tui.providers.process import client as model_process

    process = model_process.running() if model else None
    if process is None:
        return supports_vision_here(model)
    try:
        return bool(process.call("supports_vision", model=model))
    except ProviderError:
        return False


def supports_vision_here(model: str | None) -> bool:
    """`supports_vision` from litellm imported in this process."""
    if not model:
        return False
    from valarmind_tui.providers.litellm_call import load_litellm

    try:
        return bool(load_litellm().supports_vision(model=model))
    except Exception:  # unknown models raise; offline maps may lack them
        return False
