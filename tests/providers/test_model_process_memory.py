"""The model process loads no tokenizer: LiteLLM's own token counting only estimated what the
provider did not report, and its tiktoken encoding kept 41 MB resident beside the face's copy.
The usage a provider reports still arrives, priced from the cost map."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.model_server import FakeModelServer, ScriptedTurn

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import asyncio, json, sys
from valarmind_tui.providers.litellm_call import completion_events, cost_usd, load_litellm
from valarmind_tui.providers.process.worker import without_token_estimates
from valarmind_tui.providers.warm import warm_request

without_token_estimates(load_litellm())

async def main():
    await warm_request("openai/gpt-4o")
    events = [e async for e in completion_events({
        "model": "openai/gpt-4o", "api_base": sys.argv[1], "api_key": "sk-test", "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hi " * 500}]})]
    import tiktoken.registry
    usage = events[-1].usage
    print(json.dumps({"tokens": [usage.prompt_tokens, usage.completion_tokens],
                      "cost": usage.cost_usd, "expected": cost_usd("openai/gpt-4o", 1200, 30),
                      "encodings": sorted(tiktoken.registry.ENCODINGS)}))

asyncio.run(main())
"""


def test_the_model_process_prices_reported_usage_without_loading_a_tokenizer(
        fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="priced", usage={
        "prompt_tokens": 1200, "completion_tokens": 30}))
    done = subprocess.run([sys.executable, "-P", "-c", _CHILD, fake_model.openai_base],
                          cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["tokens"] == [1200, 30]
    assert got["cost"] is not None and got["cost"] == got["expected"] > 0
    assert got["encodings"] == []
