"""A client nobody here wrote: the TypeScript SDK's ClientSideConnection drives an edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acp.conftest import KEY_ENV, configure_model
from tests.ui.scripts import CHANGED, edit_through_code_agent

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "@zed-industries/agent-client-protocol@0.4.5"


def npm_dir() -> Path:
    return Path(os.environ.get("ACP_TEST_NPM_DIR") or REPO / "benchmarks" / ".cache" / "acp-npm")


@pytest.fixture(scope="session")
def ts_client() -> Path:
    """The client script placed beside the installed SDK (installed once, bounded to 5 min)."""
    prefix = npm_dir()
    sdk = prefix / "node_modules" / "@zed-industries" / "agent-client-protocol"
    if not sdk.exists():
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            pytest.fail("node/npm not found on PATH: the TypeScript client test needs them",
                        pytrace=False)
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            out = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), PACKAGE],
                capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.fail(f"npm install {PACKAGE} took more than 5 minutes", pytrace=False)
        if out.returncode != 0 or not sdk.exists():
            pytest.fail(f"npm install {PACKAGE} failed:\n{out.stderr[-2000:]}", pytrace=False)
    script = prefix / "ts_client.mjs"
    shutil.copyfile(Path(__file__).with_name("ts_client.mjs"), script)
    return script


def test_the_typescript_sdk_client_holds_a_session_with_an_approved_edit(
    git_repo: Path, fake_model: Any, ts_client: Path
) -> None:
    configure_model(fake_model)
    fake_model.script(*edit_through_code_agent("Greets with Hi now."))
    agent = [sys.executable, "-m", "valarmind_tui", "acp"]
    out = subprocess.run(
        ["node", str(ts_client), json.dumps(agent), str(git_repo), "make greet say Hi"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **KEY_ENV})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["init"]["agentCapabilities"]["loadSession"] is True
    assert seen["result"]["stopReason"] == "end_turn"
    assert (git_repo / "app.py").read_text() == CHANGED
    assert len(seen["permissions"]) == 1
    kinds = [u["sessionUpdate"] for u in seen["updates"]]
    assert {"available_commands_update", "tool_call", "tool_call_update",
            "agent_message_chunk"} <= set(kinds)
    diffs = [c for u in seen["updates"] if u["sessionUpdate"] == "tool_call_update"
             for c in u.get("content") or [] if c["type"] == "diff"]
    assert diffs and diffs[0]["newText"] == CHANGED
    text = "".join(u["content"]["text"] for u in seen["updates"]
                   if u["sessionUpdate"] == "agent_message_chunk")
    assert text == "Greets with Hi now."
