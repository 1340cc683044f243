"""Token economy: the orchestrator's system prompt plus its tool schemas (target < 4,000).

Counted offline with tiktoken's cl100k_base from LiteLLM's bundled tokenizer files; when those
are unavailable, a 4-characters-per-token estimate.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET = 4000


def _counter() -> tuple[Callable[[str], int], str]:
    try:
        import importlib.util

        spec = importlib.util.find_spec("litellm")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("litellm not installed")
        bundled = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        return (lambda text: len(encoding.encode(text))), "cl100k"
    except Exception:  # noqa: BLE001 - any failure falls back to the estimate
        return (lambda text: (len(text) + 3) // 4), "chars/4"


def measure(root: Path | None = None) -> dict[str, int | str]:
    """Tokens of the orchestrator's system prompt and of the tool schemas it is sent."""
    from valarmind_tui.agents.orchestrator import agent_tools
    from valarmind_tui.agents.registry import AgentRegistry
    from valarmind_tui.tools.catalog import builtin_tools

    registry = AgentRegistry.load(root or Path.cwd())
    spec = registry.get("orchestrator")
    tools = agent_tools(builtin_tools(), registry).subset(spec.tools)
    count, method = _counter()
    prompt = count(spec.system_prompt)
    schemas = count(json.dumps(tools.schemas()))
    return {"prompt": prompt, "schemas": schemas, "total": prompt + schemas, "tools": len(tools),
            "method": method}


def run() -> list[dict]:
    m = measure()
    unit = f"tok ({m['method']})"
    return [
        {"name": "orchestrator system prompt", "value": m["prompt"], "unit": unit, "target": ""},
        {"name": f"orchestrator tool schemas ({m['tools']} tools)", "value": m["schemas"],
         "unit": unit, "target": ""},
        {"name": "orchestrator prompt + schemas", "value": m["total"], "unit": unit,
         "target": f"< {TARGET:,}"},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
