"""Language servers: how long an edit's result waits for the new diagnostics, and what the
server costs in memory.

A generated 1,000-file Python project (50 packages of 20 modules, each module calling into the
one before it); the real basedpyright (the lock file's, with the node it bundles) in the real
sandbox, through `LspManager.after_change` as `run_gated` calls it. The agent has read the
edited module's callers (they are open). Cold: the first edit (start, `initialize`, first
check); warm: later edits alternating a type error and its fix in the module the callers use,
each reported with the callers' new errors. Memory: PSS of the sandbox and the server in it
(/proc/PID/smaps_rollup), after the warm edits.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PACKAGES = 50
MODULES = 20
WARM_EDITS = 10
GOOD = "def value(n: int) -> int:\n    return n * 2\n"
BAD = "def value(n: int) -> str:\n    return str(n * 2)\n"


def _project(root: Path) -> None:
    for p in range(PACKAGES):
        package = root / f"pkg{p:02d}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        for m in range(MODULES - 1):
            previous = (f"from pkg{p:02d}.mod{m - 1:02d} import value as before\n" if m
                        else "")
            call = "before(n) + 1" if m else "n + 1"
            (package / f"mod{m:02d}.py").write_text(
                f"{previous}\n\ndef value(n: int) -> int:\n    return {call}\n\n\n"
                f"class Thing{m}:\n    def __init__(self, size: int) -> None:\n"
                f"        self.size: int = value(size)\n")
    core = root / "core.py"
    core.write_text(GOOD)
    for p in range(5):  # the callers the agent read
        (root / f"pkg{p:02d}" / "user.py").write_text(
            "from core import value\n\n\ndef total(n: int) -> int:\n"
            "    result: int = value(n)\n    return result\n")


def _pss_kib(pid: int) -> int:
    total = 0
    for proc in [pid, *_descendants(pid)]:
        try:
            text = Path(f"/proc/{proc}/smaps_rollup").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in text.splitlines()
                       if line.startswith("Pss:")), 0)
    return total


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


async def _measure(root: Path) -> dict[str, float]:
    from valarmind_tui.lsp.manager import LspManager
    from valarmind_tui.safety.sandbox.wrap import Sandbox
    from valarmind_tui.settings.lsp import LspSettings

    sandbox = Sandbox.detect()
    manager = LspManager(root, LspSettings(diagnostics_timeout_s=60), sandbox, trusted=False)
    users = [f"pkg{p:02d}/user.py" for p in range(5)]
    try:
        started = time.perf_counter()
        for user in users:
            await manager.open(user)
        said = await manager.after_change(["core.py"])
        cold = time.perf_counter() - started
        assert "no problems" in said, said
        warm: list[float] = []
        for n in range(WARM_EDITS):
            broken = n % 2 == 0
            (root / "core.py").write_text(BAD if broken else GOOD)
            started = time.perf_counter()
            said = await manager.after_change(["core.py"])
            warm.append(time.perf_counter() - started)
            assert ("user.py:5:19 error" in said) == broken, said
        (row,) = [r for r in manager.status() if r.language == "python"]
        assert row.pid is not None
        pss = _pss_kib(row.pid)
    finally:
        await manager.close()
    return {"cold": cold, "median": statistics.median(warm), "max": max(warm),
            "pss_mib": pss / 1024}


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _project(root)
        files = sum(1 for _ in root.rglob("*.py"))
        got = asyncio.run(_measure(root))
    return [
        {"name": f"lsp: first edit's diagnostics, cold ({files} files)", "value": got["cold"],
         "unit": "s"},
        {"name": "lsp: an edit's diagnostics, warm, median", "value": got["median"],
         "unit": "s", "target": "< 1 s"},
        {"name": "lsp: an edit's diagnostics, warm, slowest", "value": got["max"], "unit": "s"},
        {"name": "lsp: basedpyright memory (PSS, sandbox included)", "value": got["pss_mib"],
         "unit": "MiB"},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
