"""The reference everything server's sampling tool through a ValarMind session: allowed headless
only with --allow-sampling, under its time limit, counted in usage, linked to the calling tool
call, and traced into /export jsonl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session, open_session
from valarmind_tui.settings.config import load_settings

SAMPLE_TOOL = "mcp__everything__trigger-sampling-request"


def everything_toml(npm_servers: dict[str, Path], extra: str = "") -> str:
    return (f'api_key_env = "FAKE_API_KEY"\n[mcp.servers.everything]\n'
            f'command = {json.dumps(str(npm_servers["everything"]))}\n{extra}')


def script_sampling_turns(fake_model: Any) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": SAMPLE_TOOL, "id": "call_sample_1",
                                  "arguments": {"prompt": "say hi", "maxTokens": 50}}],
                     usage={"prompt_tokens": 100, "completion_tokens": 10}),
        ScriptedTurn(text="Sampled by ValarMind",
                     usage={"prompt_tokens": 1000, "completion_tokens": 500}),
        ScriptedTurn(text="The server got its answer.",
                     usage={"prompt_tokens": 200, "completion_tokens": 20}),
    )


def run_print(root: Path, fake_model: Any, *flags: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "-p", "ask the server to sample",
         "--output-format", "jsonl", "--permission-mode", "bypass", "--model",
         "openai/fake-model", "--api-base", fake_model.openai_base, *flags],
        cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAKE_API_KEY": "sk-test"},
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_print_mode_samples_only_with_allow_sampling(
    git_repo: Path, npm_servers: dict[str, Path], fake_model: Any
) -> None:
    write_user_config(everything_toml(npm_servers))
    script_sampling_turns(fake_model)
    events = run_print(git_repo, fake_model, "--allow-sampling")
    finished = next(e for e in events if e["type"] == "tool_call_finished"
                    and e["name"] == SAMPLE_TOOL)
    assert finished["status"] == "ok" and "Sampled by ValarMind" in finished["output"]
    assert "say hi" in fake_model.requests[1]["messages"][-1]["content"]
    spawned = next(e for e in events if e["type"] == "agent_spawned")
    assert spawned["name"] == "mcp-sampling:everything" and spawned["parent_id"] == "main"
    traces = [e for e in events if e["type"] == "trace_recorded"]
    assert [t["kind"] for t in traces] == ["agent_iteration", "agent_complete"]
    assert all(t["tool_call_ids"] == ["call_sample_1"] for t in traces)
    assert traces[0]["record"]["prompt_tokens"] == 1000
    usage = [e for e in events if e["type"] == "usage_updated"]
    assert usage[-1]["session_tokens"] == 110 + 1500 + 220  # the sampling round included

    fake_model.requests.clear()
    script_sampling_turns(fake_model)
    events = run_print(git_repo, fake_model)  # bypass mode alone does not allow sampling
    finished = next(e for e in events if e["type"] == "tool_call_finished"
                    and e["name"] == SAMPLE_TOOL)
    assert "User rejected sampling request" in finished["output"]
    assert len(fake_model.requests) == 2  # the orchestrator's two turns; no sampling turn


async def _session(root: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, *,
                   stored: bool = False) -> Session:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = load_settings(root, model="openai/fake-model", api_base=fake_model.openai_base,
                             permission_mode="bypass")
    approver = PolicyApprover(allow_sampling=True)
    session = (open_session(settings, root, approver=approver) if stored
               else build_session(settings, root, approver=approver))
    await session.start()
    return session


async def test_sampling_time_limit_of_the_server_config_is_honoured(
    tmp_path: Path, npm_servers: dict[str, Path], fake_model: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_user_config(everything_toml(npm_servers, "sampling_timeout_s = 1\n"))
    # the model would take about 15 s to finish this answer
    fake_model.script(ScriptedTurn(text="x" * 40, chunk_size=8, chunk_delay_s=3))
    session = await _session(tmp_path, fake_model, monkeypatch)
    try:
        started = time.monotonic()
        result = await session.mcp.call_tool("everything", "trigger-sampling-request",
                                             {"prompt": "say hi"})
        elapsed = time.monotonic() - started
    finally:
        await session.close()
    assert result.is_error
    assert "did not answer within 1 s" in result.output
    assert elapsed < 10, elapsed


async def test_sampling_usage_and_traces_reach_the_session_and_export(
    tmp_path: Path, npm_servers: dict[str, Path], fake_model: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_user_config(everything_toml(npm_servers))
    script_sampling_turns(fake_model)
    session = await _session(tmp_path, fake_model, monkeypatch, stored=True)
    try:
        result = await session.submit("ask the server to sample")
        exported = await session.run_command("/export jsonl trace.jsonl")
    finally:
        await session.close()
    assert result.status == "done", result.text
    assert (session.totals.prompt_tokens, session.totals.completion_tokens) == (1300, 530)
    sampled = [e for e in session.spending.entries if e.kind == "sampling"]  # in the ledger
    assert sampled and {e.mcp_server for e in sampled} == {"everything"}
    assert sum(e.tokens for e in session.spending.entries) == 1300 + 530
    assert exported.ok
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    traces = [line for line in lines if line.get("type") in ("agent_iteration",
                                                             "agent_complete")]
    assert [t["type"] for t in traces] == ["agent_iteration", "agent_complete"]
    assert traces[0]["server"] == "everything"
    assert traces[0]["tool_call_ids"] == ["call_sample_1"]
    assert traces[1]["success"] is True
    assert any(line.get("role") == "user" for line in lines)  # the conversation is there too
