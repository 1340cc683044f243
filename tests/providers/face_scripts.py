"""Scripts run as a face of their own (a fresh interpreter, as the TUI or `-p` starts): the
request they make, and how a test runs one and reads what it printed last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

ASK = textwrap.dedent("""
    from valarmind_tui.providers.base import ModelRequest, TurnComplete
    from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

    async def ask(model="openai/fake-model", base=None):
        provider = LiteLLMProvider(ProviderConfig(
            model=model, api_base=base or sys.argv[1], api_key="sk-test", max_retries=1,
            timeout_s=30))
        pieces = [p async for p in provider.stream(
            ModelRequest(messages=[{"role": "user", "content": "hi"}]))]
        return pieces[-1].turn.text if isinstance(pieces[-1], TurnComplete) else None
""")
"""`ask(model, base)`: one streamed request, its answer's text (`base`: the first argument)."""


def run_face(script: str, *args: str, cwd: Path, **env: str) -> Any:
    """Run `script` with `args` in a fresh interpreter: the JSON of its last printed line."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=cwd, capture_output=True, text=True,
        timeout=300, check=False, env={**os.environ, "PYTHONPATH": str(ROOT),
                                       "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
