"""Background commands on the real path (issue #33 A): a session on a small git repository in the
real sandbox; what starting one costs the agent (the call returns its handle), reading its output,
the session's end with three running, and the start-up's reaping when nothing is left over.
Median of 5 each, wall time; the machine is shared. Run alone:
`.ci/with-env python benchmarks/background_bench.py`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RUNS = 5


async def _call(session: Any, tool: str, **arguments: Any) -> Any:
    from valarmind_tui.agents.gated_call import run_gated
    from valarmind_tui.safety.gate.permissions import AgentPermissions
    from valarmind_tui.tools.base import ToolContext

    chosen = session.tools.get(tool)
    ctx = ToolContext(project_root=session.project_root, sandbox=session.sandbox,
                      services=session.services)
    return (await run_gated(chosen, chosen.parse(arguments), ctx, session.gate,
                            AgentPermissions.full()))[1]


async def _measure(root: Path) -> dict[str, float]:
    from valarmind_tui.safety.gate.approval import PolicyApprover
    from valarmind_tui.session.wiring import build_session
    from valarmind_tui.settings.config import Settings
    from valarmind_tui.tools.shell.jobs import reap_notice

    approver = PolicyApprover(allow_writes=True, allow_execute=True)
    fore, start, read, close, reap = [], [], [], [], []
    for _ in range(RUNS):
        session = build_session(Settings(), root, approver=approver)
        t = time.perf_counter()
        await _call(session, "bash", command="true")
        fore.append(time.perf_counter() - t)
        handles = []
        for _ in range(3):
            t = time.perf_counter()
            result = await _call(session, "bash", command="sleep 60", run_in_background=True)
            start.append(time.perf_counter() - t)
            handles.append(result.data["handle"])
        t = time.perf_counter()
        await _call(session, "command_output", handle=handles[0])
        read.append(time.perf_counter() - t)
        t = time.perf_counter()
        await session.close()
        close.append(time.perf_counter() - t)
        t = time.perf_counter()
        reap_notice()
        reap.append(time.perf_counter() - t)
    ms = 1000
    return {"fore": statistics.median(fore) * ms, "start": statistics.median(start) * ms,
            "read": statistics.median(read) * ms, "close": statistics.median(close) * ms,
            "reap": statistics.median(reap) * ms}


def measure() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="valarmind-background-bench-") as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        root = Path(tmp) / "repo"
        root.mkdir()
        for n in range(200):
            (root / f"m{n}.py").write_text(f"x = {n}\n")
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        return asyncio.run(_measure(root))


def run() -> list[dict[str, object]]:
    m = measure()
    return [
        {"name": "bash `true` in the foreground (baseline)", "value": round(m["fore"], 1),
         "unit": "ms"},
        {"name": "bash run_in_background: handle returned", "value": round(m["start"], 1),
         "unit": "ms", "target": "about the foreground call"},
        {"name": "command_output read", "value": round(m["read"], 1), "unit": "ms"},
        {"name": "session close, 3 running (killed, ends checkpointed)",
         "value": round(m["close"], 1), "unit": "ms"},
        {"name": "start-up reaping, nothing left over", "value": round(m["reap"], 2),
         "unit": "ms", "target": "< 1"},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
