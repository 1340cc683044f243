"""One `litellm.acompletion` call as a few plain events, wherever litellm lives: on the model-io
thread of this process, or in the model process (providers/model_process.py), which sends the
same events over a pipe. `apply` folds them into a TurnAccumulator on the caller's side.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from valarmind_tui.core.heap import release_free_memory
from valarmind_tui.providers.base import ReasoningPiece, StreamFinished, TextPiece, Usage
from valarmind_tui.providers.encoding_on_use import encoding_on_use
from valarmind_tui.providers.failures import Failure, classify
from valarmind_tui.providers.import_less import (
    defer_indexes,
    loaded_on_use,
    stand_in_command_lines,
)
from valarmind_tui.providers.models_on_use import models_built_on_use
from valarmind_tui.providers.native_finish import watch_native_finish
from valarmind_tui.providers.normalize import TurnAccumulator, usage_details, usage_from
from valarmind_tui.providers.one_iterator import keep_one_iterator
from valarmind_tui.providers.sdk_objects import validate_first
from valarmind_tui.providers.stream_watch import Deadlines, StreamWatch, provider_finish


@dataclass(frozen=True)
class DeltaEvent:
    """One streamed choice delta (a LiteLLM object, or its plain dict from the model process)."""

    delta: Any
    finish_reason: str | None = None


@dataclass(frozen=True)
class MessageEvent:
    """The whole message of a response that was not streamed."""

    message: Any
    finish_reason: str | None = None


@dataclass(frozen=True)
class UsageEvent:
    """The tokens the provider reported, priced from LiteLLM's offline cost map."""

    usage: Usage


CallEvent = DeltaEvent | MessageEvent | UsageEvent


class MidStreamError(Exception):
    """A failure after the stream started; carries the original exception."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@contextmanager
def imports_without_collection() -> Iterator[None]:
    """No garbage collection while a big library imports (each full collection walked the
    half-built heap again); then what was imported is frozen out of the collector's sight."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def classify_call_error(exc: BaseException, secret: str | None) -> Failure:
    """What a failure of `completion_events` was (never retried once the stream started)."""
    inner = exc.error if isinstance(exc, MidStreamError) else exc
    return classify(inner, secret, mid_stream=isinstance(exc, MidStreamError))


def load_litellm() -> ModuleType:
    """Import litellm with network fetches, telemetry and debug prints turned off, and in its
    production mode: in its default one it loads the first `.env` found above its own folder
    into the environment, which is the repository's when the virtual environment lives in the
    project (a `.env` could add OPENAI_API_BASE or HTTPS_PROXY and take the user's key
    elsewhere). The first import runs without garbage collection (each full collection walked
    the half-built heap again: 2.7 s became 2.1 s), then freezes what it imported out of the
    collector's sight, and what the import decoded and never reads again is dropped
    (`drop_import_leftovers`). Index packages are read name by name, httpx's command line is not
    imported, and a few modules load when first used (providers/import_less.py). The OpenAI SDK
    builds its response objects with pydantic's validator first (providers/sdk_objects.py), and
    LiteLLM's default encoding loads when first used (providers/encoding_on_use.py), and the
    pydantic models its import creates are built when first used (providers/models_on_use.py)."""
    global _loaded
    if _loaded is not None:
        return _loaded
    os.environ["LITELLM_MODE"] = "PRODUCTION"  # forced: its default, "DEV", reads a `.env`
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    defer_indexes()
    stand_in_command_lines()
    with imports_without_collection(), loaded_on_use(), models_built_on_use():
        import litellm

    validate_first()
    encoding_on_use()
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.num_retries = 0
    drop_import_leftovers()
    _loaded = litellm
    return litellm


def drop_import_leftovers() -> None:
    """Free what LiteLLM's import decoded only to build something else. `litellm.utils` parses
    its packaged Anthropic tokenizer (a 1.7 MB JSON file) into `json_data`, only to serialize it
    again into `claude_json_str` (which its tokenizer reads when asked to count), and keeps both:
    13 MB of Python objects nothing reads again, and a 2.4 MB string read only to count an
    Anthropic model's tokens locally, built again on demand (`_claude_json_on_demand`). Then the
    freed pages go back to the system."""
    utils = sys.modules.get("litellm.utils")
    if utils is not None and hasattr(utils, "json_data") and hasattr(utils, "claude_json_str"):
        del utils.json_data
        _claude_json_on_demand(utils)
    release_free_memory()


def _claude_json_on_demand(utils: ModuleType) -> None:
    """Drop `utils.claude_json_str`, registered as one of LiteLLM's own lazy names (its readers
    import it from `litellm.utils`, whose `__getattr__` asks that registry): the first read
    builds the same string from the same file and keeps it. Left as it is when the registry is
    not the one this was written against."""
    try:
        from litellm._lazy_imports import get_lazy_import_registry

        registry = get_lazy_import_registry()
    except (ImportError, AttributeError):
        return
    if not isinstance(registry, dict) or "claude_json_str" in registry:
        return

    def build(name: str) -> str:
        from importlib import resources

        tokenizers = resources.files("litellm.litellm_core_utils.tokenizers")
        with tokenizers.joinpath("anthropic_tokenizer.json").open("r", encoding="utf-8") as f:
            value = json.dumps(json.load(f))
        # why the ignore below: LiteLLM's module, typed without the name it makes at import
        utils.claude_json_str = value  # type: ignore[attr-defined]  # why: above
        return value

    registry["claude_json_str"] = build
    del utils.claude_json_str


_loaded: ModuleType | None = None


async def load_litellm_async() -> ModuleType:
    """`load_litellm` without blocking the event loop: the first time it imports in a thread (a
    face's warm-up may be importing it meanwhile; waiting on that import lock on the loop
    froze the screen for seconds on the first prompt)."""
    return _loaded if _loaded is not None else await asyncio.to_thread(load_litellm)


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int,
             cached_tokens: int = 0) -> float | None:
    """Cost from LiteLLM's offline cost map, the `cached_tokens` of the prompt at the cache's
    price; None for models it does not know."""
    if not prompt_tokens and not completion_tokens:
        return None
    litellm = load_litellm()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
            cache_read_input_tokens=cached_tokens)
    except Exception:  # noqa: BLE001 - unknown models raise assorted errors
        return None
    return float(prompt_cost + completion_cost)


def _priced(model: str, usage: Any, tokens: tuple[int, int]) -> UsageEvent:
    cached, reasoning = usage_details(usage)
    return UsageEvent(Usage(tokens[0], tokens[1], cost_usd(model, *tokens, cached),
                            cached, reasoning))


async def completion_events(kwargs: dict[str, Any], deadlines: Deadlines | None = None
                            ) -> AsyncGenerator[CallEvent, None]:
    """Call `litellm.acompletion(**kwargs)` and yield what came back. A failure once the stream
    has started is raised as MidStreamError; a stream that stalls past `deadlines` or ends
    without the provider's own finish reason as a StreamFault."""
    litellm = await load_litellm_async()
    if not kwargs.get("stream"):
        response = await litellm.acompletion(**kwargs)
        choice = response.choices[0]
        yield MessageEvent(choice.message, choice.finish_reason)
        usage = getattr(response, "usage", None)
        tokens = usage_from(usage)
        if tokens:
            yield _priced(kwargs["model"], usage, tokens)
        return
    async for event in _streamed(litellm, kwargs, deadlines or Deadlines()):
        yield event


async def _streamed(litellm: ModuleType, kwargs: dict[str, Any], deadlines: Deadlines
                    ) -> AsyncGenerator[CallEvent, None]:
    loop = asyncio.get_running_loop()
    watch = StreamWatch(deadlines, loop.time())
    final_usage = None
    response = None
    try:
        async with asyncio.timeout_at(watch.due) as deadline:
            response = await litellm.acompletion(**kwargs)
            watch_native_finish(response)
            keep_one_iterator(response)
            async for chunk in response:
                deadline.reschedule(watch.arrived(loop.time()))
                hidden = getattr(chunk, "_hidden_params", None) or {}
                final_usage = getattr(chunk, "usage", None) or hidden.get("usage") or final_usage
                for choice in chunk.choices or []:
                    yield DeltaEvent(choice.delta, provider_finish(response, choice.finish_reason))
    except TimeoutError as exc:
        if deadline.expired():
            raise watch.stalled() from None
        if response is None:
            raise
        raise MidStreamError(exc) from exc
    except Exception as exc:  # noqa: BLE001 - classified by the caller
        if response is None:
            raise
        raise MidStreamError(exc) from exc
    finally:
        closer = getattr(response, "aclose", None)
        if closer is not None:
            await closer()
    watch.ended(response)
    tokens = usage_from(final_usage) if _provider_sent_usage(response) else None
    if tokens:
        yield _priced(kwargs["model"], final_usage, tokens)


Piece = TextPiece | ReasoningPiece | StreamFinished


def apply(acc: TurnAccumulator, event: CallEvent) -> Iterator[Piece]:
    """Fold `event` into `acc`; yield the text and reasoning it carries, then StreamFinished
    when it is the first to carry a finish reason."""
    if isinstance(event, DeltaEvent):
        yield from acc.feed_delta(event.delta)
        if event.finish_reason:
            first = acc.finish_reason is None
            acc.finish_reason = event.finish_reason
            if first:
                yield StreamFinished(event.finish_reason, len(acc.calls))
    elif isinstance(event, MessageEvent):
        acc.finish_reason = event.finish_reason
        yield from acc.feed_message(event.message)
    else:
        acc.usage = event.usage


def _provider_sent_usage(response: Any) -> bool:
    """Whether the provider reported usage (LiteLLM otherwise fills in its own estimate)."""
    chunks = getattr(response, "chunks", None)
    if not isinstance(chunks, list):
        return True
    return any(getattr(c, "usage", None) is not None for c in chunks)
