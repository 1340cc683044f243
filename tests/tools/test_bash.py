"""bash: real subprocesses, process groups killed, a clean environment."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_soon(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


async def wait_for_file(path: Path, within: float = 5.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_runs_in_project_root_with_exit_code(call, git_repo: Path) -> None:
    ok = await call("bash", command="pwd && ls")
    assert not ok.is_error
    assert ok.output.splitlines()[0] == str(git_repo.resolve()) and "app.py" in ok.output
    failed = await call("bash", command="echo oops >&2; exit 3")
    assert failed.is_error and failed.output == "oops\n\n[exit code 3]"
    assert failed.data == {"exit_code": 3}


async def test_api_keys_do_not_reach_the_child(call, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOO_API_KEY", "sk-foo-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("MY_SECRET_THING", "s3cret")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    result = await call("bash", command="env")
    names = {line.split("=", 1)[0] for line in result.output.splitlines() if "=" in line}
    assert {"FOO_API_KEY", "GITHUB_TOKEN", "MY_SECRET_THING"}.isdisjoint(names)
    assert "secret" not in result.output.lower().replace("my_secret", "")
    assert {"PATH", "HOME", "LC_ALL"} <= names


async def test_timeout_kills_the_whole_process_group(call, git_repo: Path) -> None:
    started = time.monotonic()
    result = await call("bash", command="sleep 60 & echo $! > child.pid; echo started; wait",
                        timeout=1)
    assert time.monotonic() - started < 5
    assert result.is_error and "timed out after 1 s" in result.output
    assert "started" in result.output
    child = int((git_repo / "child.pid").read_text())
    assert gone_soon(child), f"background child {child} survived the timeout"


async def test_task_cancellation_kills_the_group(ctx: ToolContext, git_repo: Path) -> None:
    tool = builtin_tools().get("bash")
    assert tool is not None
    params = tool.parse({"command": "sleep 60 & echo $! > child.pid; wait"})
    task = asyncio.create_task(tool.run(params, ctx))
    child = await wait_for_file(git_repo / "child.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert gone_soon(child), Path(f"/proc/{child}/stat").read_text()


async def test_cancel_event_kills_the_group(ctx: ToolContext, git_repo: Path) -> None:
    tool = builtin_tools().get("bash")
    assert tool is not None
    params = tool.parse({"command": "sleep 60 & echo $! > child.pid; wait"})
    task = asyncio.create_task(tool.run(params, ctx))
    child = await wait_for_file(git_repo / "child.pid")
    ctx.cancel_event.set()
    result = await asyncio.wait_for(task, 5)
    assert result.is_error and "cancelled" in result.output
    assert gone_soon(child), Path(f"/proc/{child}/stat").read_text()


async def test_output_keeps_head_and_tail(call) -> None:
    result = await call("bash", command="seq 1 100000")
    assert result.output.startswith("1\n2\n3\n")
    assert result.output.rstrip().endswith("99999\n100000")
    assert "bytes of output omitted" in result.output
    assert len(result.output) < 32_000


async def test_background_holder_does_not_hang(call, git_repo: Path) -> None:
    started = time.monotonic()
    result = await call("bash", command="sleep 30 & echo $! > bg.pid; echo done")
    try:
        assert time.monotonic() - started < 5
        assert result.output.startswith("done") and "background processes" in result.output
    finally:
        os.kill(int((git_repo / "bg.pid").read_text()), signal.SIGKILL)


async def test_preview_shows_command_and_cwd(ctx: ToolContext, git_repo: Path) -> None:
    tool = builtin_tools().get("bash")
    assert tool is not None
    preview = await tool.preview(tool.parse({"command": "rm -rf build"}), ctx)
    assert preview.command == "rm -rf build" and preview.cwd == str(git_repo.resolve())
