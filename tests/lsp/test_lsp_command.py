"""/lsp: which language servers were found, which run, and what went wrong."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from valarmind_tui.core.events import Notice
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session


async def test_lsp_lists_the_servers_found_and_the_one_running(
        project: Path, model_settings: Any, pyright_on_path: str) -> None:
    session = build_session(model_settings(project), project, approver=PolicyApprover())
    try:
        before = await session.run_command("/lsp")
        assert "| python | basedpyright | not started | PATH | - | 0 | 0 | - |" in before.text
        await session.lsp.after_change(["shapes.py"])  # opens it and report.py, its importer
        after = await session.run_command("/lsp")
    finally:
        await session.close()
    (python,) = [row for row in after.data if row.language == "python"]
    assert python.state == "running" and python.pid is not None
    assert python.start_s is not None
    assert (f"| python | basedpyright | running | PATH | {python.pid} | 2 | 0 | "
            f"{python.start_s:.1f} s |" in after.text)
    assert "runs in the sandbox with the project read-only and no network" in after.text


async def test_lsp_says_when_servers_are_turned_off(project: Path, model_settings: Any) -> None:
    settings = model_settings(project)
    settings.lsp.enabled = False
    session = build_session(settings, project, approver=PolicyApprover())
    try:
        result = await session.run_command("/lsp")
        assert await session.lsp.after_change(["shapes.py"]) == ""
    finally:
        await session.close()
    assert result.text == ("Language servers are turned off (`[lsp] enabled = false` in your "
                           "config).")


async def test_a_crash_is_a_warning_the_person_sees(project: Path, model_settings: Any,
                                                    pyright_on_path: str) -> None:
    session = build_session(model_settings(project), project, approver=PolicyApprover())
    notices: list[Notice] = []
    session.bus.add_listener(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    try:
        await session.lsp.after_change(["shapes.py"])
        (server,) = session.lsp.running()
        assert server.pid is not None
        os.kill(server.pid, signal.SIGKILL)
        for _ in range(500):
            if not session.lsp.running():
                break
            await asyncio.sleep(0.01)
        assert "no problems" in await session.lsp.after_change(["shapes.py"])
    finally:
        await session.close()
    (notice,) = notices
    assert notice.level == "warning"
    assert notice.message.startswith("Language server: basedpyright stopped: ")
