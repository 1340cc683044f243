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


_LEFTOVERS = r"""
import json
from valarmind_tui.providers.litellm_call import load_litellm

litellm = load_litellm()
import litellm.utils as utils
kept = "claude_json_str" in vars(utils)
model = min(m for m in litellm.anthropic_models  # one counted with the packaged tokenizer
            if litellm.utils.uses_anthropic_tokenizer(m))
claude = litellm.token_counter(model=model, text="How many tokens, Claude?")
built = "claude_json_str" in vars(utils)
from litellm.utils import claude_json_str
from importlib import resources
with resources.files("litellm.litellm_core_utils.tokenizers").joinpath(
        "anthropic_tokenizer.json").open("r", encoding="utf-8") as f:
    fresh = json.dumps(json.load(f))
print(json.dumps({"json_data": hasattr(utils, "json_data"), "kept": kept, "built": built,
                  "same": claude_json_str == fresh, "claude": claude,
                  "tokenizer_source": json.loads(claude_json_str).get("model", {}).get("type")}))
"""


def test_litellm_s_import_leaves_no_decoded_tokenizer_file_but_its_tokenizer_source() -> None:
    done = subprocess.run([sys.executable, "-P", "-c", _LEFTOVERS], cwd=ROOT,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    claude = got.pop("claude")
    assert got == {"json_data": False, "kept": False, "built": True, "same": True,
                   "tokenizer_source": "BPE"}
    # the Anthropic tokenizer, built from the string on demand, counts as a whole import's
    whole = subprocess.run([sys.executable, "-P", "-c", _WHOLE_COUNT], cwd=ROOT,
                           capture_output=True, text=True, timeout=180, check=False)
    assert whole.returncode == 0, whole.stderr[-2000:]
    assert claude == int(whole.stdout.strip().splitlines()[-1]) > 0


_WHOLE_COUNT = r"""
import litellm
model = min(m for m in litellm.anthropic_models if litellm.utils.uses_anthropic_tokenizer(m))
print(litellm.token_counter(model=model, text="How many tokens, Claude?"))
"""


def test_nothing_in_litellm_reads_the_dropped_json_data() -> None:
    """The drop is safe only while LiteLLM reads `utils.json_data` nowhere but where it builds
    `claude_json_str`: an upgrade that starts reading it fails here, not in a person's session."""
    import importlib.util
    import re

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    reads = re.compile(r"utils\.json_data|import[^\n]*\bjson_data\b")
    readers = [str(path.relative_to(package)) for path in package.rglob("*.py")
               if reads.search(path.read_text(encoding="utf-8", errors="replace"))]
    assert readers == []
    uses = re.findall(r"\bjson_data\b", (package / "utils.py").read_text(encoding="utf-8"))
    assert len(uses) == 3  # two `json_data = json.load(f)` and `json.dumps(json_data)`
