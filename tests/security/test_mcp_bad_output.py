"""An MCP server that writes what is not JSON-RPC (issue #37): bytes that are not UTF-8 killed
the SDK's reader, so the call waited for its time limit (and every later call too); ASCII
garbage printed a traceback per line. A real `valarmind -p` run against the hand-written
stdio server tests/fixtures/mcp/garbled_server.py: each call gets its answer at once (a bad
byte inside an answer is read as U+FFFD) and the person reads one warning line for the
server, no traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.security.test_mcp_limits import SLACK_S, call_took, run, tool_results

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "garbled_server.py"
LIMIT_S = 30
"""The calls' time limit: a call whose answer was lost would take this long."""


def test_bad_bytes_and_garbage_are_one_warning_and_every_call_answers(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config(
        f'api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n[mcp]\ntool_timeout_s = {LIMIT_S}\n'
        f'[mcp.servers.garbled]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(SERVER))}]\n')
    fake_model.script(*[ScriptedTurn(tool_calls=[{"name": f"mcp__garbled__{name}",
                                                   "arguments": {}}])
                        for name in ("bad_bytes", "latin1", "garbage", "quick")],
                      ScriptedTurn(text="Finished."))
    out, _took, _ = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    assert tool_results(fake_model) == ["answered after bad bytes", "caf\ufffd in latin-1",
                                        "answered after garbage", "the quick answer"]
    assert all(call_took(fake_model, n) < SLACK_S for n in (1, 2, 3, 4))
    warned = [line for line in out.stderr.splitlines() if "'garbled'" in line]
    assert len(warned) == 1 and "not valid JSON-RPC" in warned[0], out.stderr
    assert "Traceback" not in out.stderr, out.stderr
