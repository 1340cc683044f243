"""A fresh interpreter's view of providers/import_less.py, run by test_import_less.py:
`python -m tests.providers.import_less_child requests BASES_JSON` makes a request through each
wire format the way the session does (LiteLLM imported by `load_litellm`) and prints what came
back; `python -m tests.providers.import_less_child names` prints what a few deferred packages
hold once asked for everything (a star import each)."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from types import SimpleNamespace
from typing import Any

NAMED_PACKAGES = ("openai.types", "openai.types.beta", "openai.types.responses",
                  "openai.types.chat", "openai.resources", "openai.resources.chat",
                  "litellm.models")
"""Deferred packages (when the switch is off) whose names are compared with a whole import."""

NEVER_READ = ("openai.types.beta.realtime", "openai.resources.audio",
              "openai.types.admin.organization", "openai.resources.fine_tuning")
"""Packages no request of the four formats reads: imported only by their parent's `__init__`."""


async def _requests(bases: dict[str, str]) -> dict[str, Any]:
    from tests.providers.test_litellm_provider import collect, final, provider
    from valarmind_tui.providers.litellm_call import load_litellm

    litellm = load_litellm()
    server = SimpleNamespace(**bases)
    answers: dict[str, Any] = {}
    for fmt in ("openai", "anthropic", "gemini"):
        turn = final(await collect(provider(server, fmt)))  # type: ignore[arg-type]
        answers[fmt] = [turn.text, [[c.name, c.arguments] for c in turn.tool_calls]]
    responses = await litellm.aresponses(model="openai/gpt-4.1", input="hi", stream=False,
                                         api_base=bases["openai_base"], api_key="sk-test")
    answers["responses"] = [responses.output[0].content[0].text, []]
    answers["loaded"] = [name for name in NEVER_READ if name in sys.modules]
    return answers


def _names() -> dict[str, Any]:
    from valarmind_tui.providers.litellm_call import load_litellm

    load_litellm()
    held: dict[str, Any] = {}
    for package in NAMED_PACKAGES:
        namespace: dict[str, Any] = {}
        exec(f"from {package} import *", namespace)  # noqa: S102 - the star import under test
        module = importlib.import_module(package)
        held[package] = sorted(
            f"{name}={getattr(value, '__module__', type(value).__name__)}"
            for name, value in namespace.items() if name != "__builtins__"
            and getattr(module, name) is value)
    return held


if __name__ == "__main__":
    if sys.argv[1] == "requests":
        print(json.dumps(asyncio.run(_requests(json.loads(sys.argv[2])))))
    else:
        print(json.dumps(_names()))
