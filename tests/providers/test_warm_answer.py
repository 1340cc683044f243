"""The warm-up reads a whole canned answer from 127.0.0.1 in the provider's wire format, so the
first prompt's answer pays no first-time costs of its own (issue #36: 12 ms to its first chunk
and 24 ms to its end after a refused warm-up, 6.5 and 10.5 now, later answers 4.5 and 7.5)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers.warm_answer import answering_once, canned_stream

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import asyncio, json, sys
from valarmind_tui.providers.litellm_call import completion_events, load_litellm
from valarmind_tui.providers.process.worker import without_token_estimates
from valarmind_tui.providers.warm import warm_request

without_token_estimates(load_litellm())
model, base = sys.argv[1], sys.argv[2]

async def main():
    await warm_request(model)
    before = set(sys.modules)
    events = [e async for e in completion_events({
        "model": model, "api_base": base, "api_key": "sk-test", "stream": True,
        "stream_options": {"include_usage": True}, "_skip_mcp_handler": True,
        "messages": [{"role": "user", "content": "hi"}]})]
    import tiktoken.registry
    print(json.dumps({"new_modules": sorted(set(sys.modules) - before),
                      "text": "".join(getattr(getattr(e, "delta", None), "content", None) or ""
                                      for e in events),
                      "encodings": sorted(tiktoken.registry.ENCODINGS)}))

asyncio.run(main())
"""


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_after_the_warm_up_the_first_answer_imports_nothing_more(
        fake_model: FakeModelServer, wire: str) -> None:
    """A refused warm-up left 18 modules (anyio's streams, the SDK's) for the first answer."""
    fake_model.script(ScriptedTurn(text="the first answer"))
    model, base = (("openai/gpt-4o", fake_model.openai_base) if wire == "openai"
                   else ("anthropic/claude-3-5-haiku-20241022", fake_model.anthropic_base))
    done = subprocess.run([sys.executable, "-P", "-c", _CHILD, model, base], cwd=ROOT,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["text"] == "the first answer"
    assert got["new_modules"] == []
    assert got["encodings"] == []  # the canned answer says its usage: nothing was estimated
    assert len(fake_model.requests) == 1  # the warm-up never reached the real server


@pytest.mark.parametrize("provider", ["openai", "anthropic", "groq", "openrouter"])
async def test_litellm_reads_the_canned_answer_as_a_one_word_stream(provider: str) -> None:
    from valarmind_tui.providers.litellm_call import load_litellm

    litellm = load_litellm()
    model = {"openai": "openai/gpt-4o", "anthropic": "anthropic/claude-3-5-haiku-20241022",
             "groq": "groq/llama-3.1-8b-instant", "openrouter": "openrouter/openai/gpt-4o"}
    body = canned_stream(provider)
    assert body is not None
    async with answering_once(body) as base:
        stream = await litellm.acompletion(
            model=model[provider], api_base=base, api_key="warm-up", stream=True,
            stream_options={"include_usage": True}, max_retries=0, timeout=5,
            messages=[{"role": "user", "content": "warm-up"}], _skip_mcp_handler=True)
        text, usage = [], None
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                text.append(chunk.choices[0].delta.content)
            usage = getattr(chunk, "usage", None) or usage
    assert text == ["warm"]
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (1, 1)


def test_only_known_wires_get_a_canned_answer() -> None:
    assert canned_stream("ollama") is None and canned_stream("bedrock") is None


async def test_the_server_answers_one_request_on_loopback_then_closes() -> None:
    async with answering_once(b"data: [DONE]\n\n") as base:
        host, port = base.removeprefix("http://").split(":")
        assert host == "127.0.0.1"

        async def ask() -> bytes:
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}")
            await writer.drain()
            answer = await reader.read()
            writer.close()
            return answer

        first = await ask()
        try:
            second = await ask()
        except ConnectionResetError:
            second = b""
    assert first.startswith(b"HTTP/1.1 200 OK") and first.endswith(b"data: [DONE]\n\n")
    assert second == b""  # closed unanswered
    with pytest.raises(ConnectionRefusedError), socket.create_connection((host, int(port)), 2):
        pass


def test_the_encoding_loaded_on_use_encodes_as_litellms_default() -> None:
    """Handed to LiteLLM's Anthropic handler instead of its default encoding (41 MB loaded on
    the first request, for estimates the model process never makes): the same tokens when
    something does count with it."""
    from litellm._lazy_imports import get_default_encoding

    from valarmind_tui.providers.encoding_on_use import EncodingOnUse

    text = "a prompt to count, naïve café"
    assert EncodingOnUse().encode(text) == get_default_encoding().encode(text)
