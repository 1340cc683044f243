"""A language server that crashes or hangs is reported and restarted, a bounded number of
times, and never takes the edit down with it (the real basedpyright, killed or stopped)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.lsp import LspSettings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.lsp.lsp_hover import LspHover
from valarmind_tui.tools.services import ToolServices

BROKEN = "from shapes import area\n\nx: str = area(1, 2)\n"


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (the sandbox's own session holds the server)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


async def crash(manager: LspManager) -> None:
    """Kill the python server (the sandbox, and the server in it with it); return once the
    manager has seen its output end, as it would before the next call."""
    (row,) = [r for r in manager.status() if r.language == "python"]
    assert row.pid is not None
    os.kill(row.pid, signal.SIGKILL)
    for _ in range(500):
        if not manager.running():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the killed server still looks alive")


async def test_a_crashed_server_is_reported_and_restarted(servers: LspManager,
                                                          project: Path) -> None:
    assert "no problems" in await servers.after_change(["report.py"])
    (row,) = [r for r in servers.status() if r.language == "python"]
    assert (row.server, row.state, row.restarts) == ("basedpyright", "running", 0)
    assert row.pid is not None
    await crash(servers)
    (project / "report.py").write_text(BROKEN)
    said = await servers.after_change(["report.py"])
    assert "report.py:3:10 error: Type \"int\" is not assignable" in said
    (row,) = [r for r in servers.status() if r.language == "python"]
    assert (row.state, row.restarts) == ("running", 1)
    assert row.problems[0].startswith("basedpyright stopped: ")
    assert "exit code -9" in row.problems[0]


async def test_a_server_that_crashes_every_time_stays_off_and_edits_go_on(
        project: Path, sandbox: Sandbox, pyright_on_path: str) -> None:
    manager = LspManager(project, LspSettings(max_restarts=1, diagnostics_timeout_s=20),
                         sandbox, trusted=False)
    try:
        for _ in range(2):
            await manager.after_change(["report.py"])
            await crash(manager)
        said = await manager.after_change(["report.py"])
        assert said == ("Diagnostics (basedpyright): unavailable: basedpyright crashed and was "
                        "restarted 1 times; it stays off for this session.")
        assert await manager.after_change(["report.py"]) == ""  # given up: no more waiting
        (row,) = [r for r in manager.status() if r.language == "python"]
        assert row.state == "down"
    finally:
        await manager.close()


async def test_a_hung_server_is_ended_and_the_next_call_restarts_it(
        project: Path, sandbox: Sandbox, pyright_on_path: str) -> None:
    manager = LspManager(project, LspSettings(request_timeout_s=60, diagnostics_timeout_s=20),
                         sandbox, trusted=False)
    ctx = ToolContext(project_root=manager.root, services=ToolServices(lsp=manager))
    params = LspHover.Params(path="report.py", line=5, symbol="area")
    try:
        assert "def area" in (await LspHover().run(params, ctx)).output
        (row,) = [r for r in manager.status() if r.language == "python"]
        assert row.pid is not None
        for pid in descendants(row.pid):  # alive, silent
            os.kill(pid, signal.SIGSTOP)
        manager.settings.request_timeout_s = 2
        hung = await LspHover().run(params, ctx)
        assert hung.is_error
        assert hung.output == ("basedpyright did not answer within 2 s; it will be restarted "
                               "on the next call")
        manager.settings.request_timeout_s = 60  # a cold restart on a loaded machine
        again = await LspHover().run(params, ctx)
        assert "def area" in again.output, again.output
        (row,) = [r for r in manager.status() if r.language == "python"]
        assert row.restarts == 1
        assert row.problems == ("basedpyright did not answer textDocument/hover within 2 s "
                                "and was ended as hung",)
    finally:
        await manager.close()
