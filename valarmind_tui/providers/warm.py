"""Warming the model path before the first prompt (blocking: a face calls it off its UI thread).

Importing litellm is only part of a first request's cost: the first `acompletion` also imports
the provider SDK's resources (~450 modules for the OpenAI client) and the first response loads a
tokenizer to price itself, 0.5-1.5 s more on the UI's event loop. So the warm-up makes one
request the way a prompt makes it, to 127.0.0.1: a canned streamed answer read to its end
(providers/warm_answer.py) where the provider's wire format is known, a port bound but not
listening otherwise (refused at once). Nothing leaves the machine and no key is sent. Outside
the model process it also loads that tokenizer.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

from valarmind_tui.providers.io_thread import io_loop
from valarmind_tui.providers.litellm_call import (
    imports_without_collection,
    load_litellm,
    load_litellm_async,
)
from valarmind_tui.providers.process import client as model_process
from valarmind_tui.providers.sdk_objects import build_chunk_validator
from valarmind_tui.providers.warm_answer import (
    ANTHROPIC_WIRE,
    OPENAI_WIRE,
    answering_once,
    canned_stream,
)

WARMED_PROVIDERS = OPENAI_WIRE | ANTHROPIC_WIRE | {"ollama", "ollama_chat", "vllm"}
"""Providers whose request path is plain HTTP to `api_base`. Others (Bedrock, Vertex...) look
for credentials of their own before connecting, which a warm-up must not do."""


def import_model_library() -> None:
    """Import litellm (~2.5 s of CPU), before anyone knows which model: a face starts this at
    its first frame, while the session is still being built. Nothing to do when the model
    process imports it (providers/model_process.py)."""
    if not model_process.running(None):
        load_litellm()


def import_model_library_soon() -> None:
    """The person began typing before the session asked for anything: the model process
    imports litellm now rather than at the session's warm-up, so a prompt typed that early
    waits less for it."""
    process = model_process.running(None)
    if process is not None:
        process.import_soon()


def warm_model_path(model: str | None) -> None:
    """Import litellm, then run `model`'s request path once against a refused local port; in
    the model process when there is one."""
    process = model_process.running(model)
    if process is not None:
        process.call("warm", model=model)
        return
    load_litellm()
    asyncio.run_coroutine_threadsafe(warm_request(model), io_loop()).result(timeout=60)
    warm_tokenizer(model)


async def warm_request(model: str | None) -> None:
    """One request the way a prompt makes it, on the loop the streams use (LiteLLM keeps its
    clients per loop): answered by a canned stream on 127.0.0.1 (providers/warm_answer.py) and
    read to its end where LiteLLM reads the provider's wire format from one, refused at once by
    a local port otherwise."""
    litellm = await load_litellm_async()
    provider = _plain_http_provider(litellm, model)
    if provider is None:
        return
    async with _local_server(canned_stream(provider)) as base:
        if provider == "openai":
            base += "/v1"
        # the provider SDK's first request imports a lot: without collections, then frozen
        with imports_without_collection(), contextlib.suppress(Exception):  # a refusal: intended
            await asyncio.wait_for(_read_answer(litellm, model, base), WARM_ANSWER_S)
    if provider == "openai":
        build_chunk_validator()  # its chunks: built by pydantic's validator (sdk_objects)


WARM_ANSWER_S = 10.0
"""The longest the warm-up waits for its canned answer (or its refusal)."""


@contextlib.asynccontextmanager
async def _local_server(body: bytes | None) -> AsyncIterator[str]:
    """A server on 127.0.0.1 answering with `body`; with none, a port bound but not listening,
    where a connection is refused at once."""
    if body is not None:
        async with answering_once(body) as base:
            yield base
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


async def _read_answer(litellm: Any, model: str | None, base: str) -> None:
    answer = await litellm.acompletion(
        model=model, api_base=base, api_key="warm-up", stream=True,
        stream_options={"include_usage": True}, max_retries=0, num_retries=0,
        timeout=5, messages=[{"role": "user", "content": "warm-up"}], tools=[_TOOL],
        _skip_mcp_handler=True)
    async for _ in answer:
        pass


_TOOL = {"type": "function", "function": {
    "name": "warm_up", "description": "-", "parameters": {"type": "object", "properties": {}}}}
"""The warm-up request carries a tool, as a prompt's request does."""


def warm_tokenizer(model: str | None) -> None:
    """Load the tokenizer LiteLLM prices `model`'s responses with."""
    if not model:
        return
    litellm = load_litellm()
    try:
        litellm.token_counter(model=model, text="warm-up")
    except Exception:  # noqa: BLE001 - pricing a model LiteLLM cannot count is not our concern
        return


def _plain_http_provider(litellm: Any, model: str | None) -> str | None:
    if not model:
        return None
    try:
        provider = litellm.get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 - a model LiteLLM does not know: the prompt will say so
        return None
    return provider if provider in WARMED_PROVIDERS else None
