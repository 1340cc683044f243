"""With the model process running (the TUI's), a web search and the vision check are asked of
it: the face's process never imports litellm for them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.model_server import FakeModelServer, ScriptedTurn

ROOT = Path(__file__).resolve().parents[2]
_FACE = r"""
import asyncio, json, sys
from valarmind_tui.providers.process import client as model_process
model_process.start()
from valarmind_tui.providers.model_info import supports_vision
from valarmind_tui.providers.web_search import SearchCall, provider_search

vision = [supports_vision("openai/gpt-4o"), supports_vision("openai/fake-model")]
answer = asyncio.run(provider_search(
    SearchCall(model="openai/gpt-4o", api_base=sys.argv[1], api_key="sk-test"), "asyncio docs"))
print(json.dumps({"vision": vision, "sources": [s.url for s in answer.sources],
                  "litellm": "litellm" in sys.modules}))
model_process.stop()
"""


def test_search_and_vision_go_through_the_model_process(fake_model: FakeModelServer) -> None:
    fake_model.script(ScriptedTurn(text="See [asyncio](https://docs.python.org/3/library/asyncio"
                                        ".html)."))
    done = subprocess.run([sys.executable, "-c", _FACE, fake_model.openai_base], cwd=ROOT,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"vision": [True, False],
                    "sources": ["https://docs.python.org/3/library/asyncio.html"],
                    "litellm": False}
    (body,) = fake_model.requests
    assert body["model"] == "gpt-4o-mini-search-preview"
    assert body["web_search_options"] == {"search_context_size": "medium"}
