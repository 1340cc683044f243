"""MCP calls without limits (issue #27): a user's MCP server whose tool never answers, answers
late or answers with 100 MB. Each test is a real `valarmind -p` run (the fake model calls the
tool) against the real stdio server tests/fixtures/mcp/unruly_server.py; small limits are set
through config so the runs stay short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "unruly_server.py"
SLACK_S = 3
"""What a call may take beyond its limit, as the model sees it (the gap between the request
that called the tool and the one that carries its result)."""
RUN_S = 90
"""A whole `valarmind -p` run on a loaded machine (start-up, model, exit); before the limits a
call waited up to the orchestrator's 30 minutes."""


def server_toml(folder: Path, extra: str = "") -> str:
    return (f'[mcp.servers.unruly]\ncommand = {json.dumps(sys.executable)}\n'
            f'args = [{json.dumps(str(SERVER))}, {json.dumps(str(folder))}]\n{extra}')


def configure(folder: Path, mcp: str = "", server: str = "") -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n'
                      + (f"[mcp]\n{mcp}\n" if mcp else "") + server_toml(folder, server))


def call(*calls: tuple[str, dict[str, Any]]) -> list[ScriptedTurn]:
    """The orchestrator calls the tools one turn each, then answers."""
    turns = [ScriptedTurn(tool_calls=[{"name": f"mcp__unruly__{name}", "arguments": args}])
             for name, args in calls]
    return [*turns, ScriptedTurn(text="Finished.")]


def run(root: Path, fake_model: Any, *extra: str, timeout: float = 120,
        ) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """`valarmind -p` in bypass mode: its output, its wall time and its peak memory (kB)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "valarmind_tui", "-p", "use the tool", "--permission-mode",
         "bypass", "--model", "openai/fake-model", "--api-base", fake_model.openai_base,
         *extra], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "FAKE_API_KEY": "sk-test"})
    peak = 0
    deadline = started + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        peak = max(peak, _peak_kb(proc.pid))
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate()
    return (subprocess.CompletedProcess(proc.args, proc.returncode, out, err),
            time.monotonic() - started, peak)


def _peak_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((ln for ln in status.splitlines() if ln.startswith("VmHWM:")), "VmHWM: 0 kB")
    return int(line.split()[1])


def call_took(fake_model: Any, number: int = 1) -> float:
    """Seconds between the model's request calling tool call `number` and the next one."""
    times = fake_model.request_times
    return times[number] - times[number - 1]


def tool_results(fake_model: Any) -> list[str]:
    last = fake_model.requests[-1]
    return [m["content"] for m in last["messages"] if m["role"] == "tool"]


def test_a_tool_that_never_answers_ends_at_the_limit(
        git_repo: Path, fake_model: Any) -> None:
    configure(git_repo.parent, mcp="tool_timeout_s = 2")
    fake_model.script(*call(("hang", {})))
    out, took, _ = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    assert took < RUN_S and call_took(fake_model) < 2 + SLACK_S
    [result] = tool_results(fake_model)
    assert "did not answer within 2 s" in result
    assert "did not answer within 2 s" in out.stderr  # the person is told too
    for _ in range(40):  # the server was told to stop (notifications/cancelled)
        if (git_repo.parent / "cancelled-hang").exists():
            break
        time.sleep(0.05)
    assert (git_repo.parent / "cancelled-hang").exists()


def test_a_servers_own_limit_overrides_the_default(git_repo: Path, fake_model: Any) -> None:
    configure(git_repo.parent, mcp="tool_timeout_s = 600", server="tool_timeout_s = 1")
    fake_model.script(*call(("hang", {})))
    out, took, _ = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    assert took < RUN_S and call_took(fake_model) < 1 + SLACK_S
    assert "did not answer within 1 s" in tool_results(fake_model)[0]


def test_a_trusted_projects_mcp_json_sets_its_servers_limit(
        git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n')
    (git_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"unruly": {
        "command": sys.executable, "args": [str(SERVER), str(git_repo.parent)],
        "toolTimeout": 1500}}}))  # milliseconds, as Claude Code writes them
    fake_model.script(*call(("hang", {})))
    out, took, _ = run(git_repo, fake_model, "--trust-project")
    assert out.returncode == 0, out.stderr
    assert took < RUN_S and call_took(fake_model) < 1.5 + SLACK_S
    assert "did not answer within 1.5 s" in tool_results(fake_model)[0]


def test_a_late_answer_does_not_break_the_next_call(git_repo: Path, fake_model: Any) -> None:
    configure(git_repo.parent, mcp="tool_timeout_s = 1")
    fake_model.script(*call(("slow", {"seconds": 2}), ("quick", {}), ("quick", {})))
    out, _, _ = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    first, second, third = tool_results(fake_model)
    assert "did not answer within 1 s" in first
    assert second == third == "the quick answer"


def test_a_100_mb_answer_is_refused_quickly_in_bounded_memory(
        git_repo: Path, fake_model: Any) -> None:
    configure(git_repo.parent, mcp="tool_timeout_s = 60")
    fake_model.script(*call(("huge", {"megabytes": 100}), ("quick", {})))
    out, took, peak_kb = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    assert took < RUN_S and call_took(fake_model) < 20  # it stalled for minutes

    first, second = tool_results(fake_model)
    assert "over the limit" in first and "MB" in first and len(first) < 2000
    assert second == "the quick answer"
    # a run's peak is ~270 MB with a small answer, ~320 MB with this one (read, never held)
    assert peak_kb < 400_000, f"peak memory {peak_kb / 1000:.0f} MB"


def test_a_large_answer_is_cut_and_says_what_was_cut(git_repo: Path, fake_model: Any) -> None:
    configure(git_repo.parent, mcp="max_result_chars = 20000")
    fake_model.script(*call(("huge", {"megabytes": 3})))
    out, _, _ = run(git_repo, fake_model)
    assert out.returncode == 0, out.stderr
    [result] = tool_results(fake_model)
    assert result.startswith("0123456789abcdef" * 100)
    assert len(result) < 20_200
    assert "cut" in result and f"{3 * 1024 * 1024 - 20_000:,}" in result
