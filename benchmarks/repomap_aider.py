"""Aider's RepoMap on the same trees, for comparison: the whole process (Python start, imports,
`RepoMap.get_repo_map` at 1,024 tokens over every file), run twice so the second run is warm
(Aider keeps its tags cache in `.aider.tags.cache.*` inside the tree), and the share of the
20 most-imported modules its map names.

Aider is not a dependency: install it in a throwaway virtualenv and name its Python, e.g.
`python -m venv /tmp/aider-venv && /tmp/aider-venv/bin/pip install aider-chat`, then
`VALARMIND_BENCH_AIDER_PYTHON=/tmp/aider-venv/bin/python`.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import repomap_quality  # noqa: E402
from benchmarks.repomap_setup import ensure  # noqa: E402

_CHILD = r"""
import os, sys, time
from pathlib import Path
t0 = time.perf_counter()
from aider.io import InputOutput
from aider.models import Model
from aider.repomap import RepoMap
root = sys.argv[1]
skip = {".git", "node_modules", "__pycache__", ".aider.tags.cache.v4", ".aider.tags.cache.v3"}
files = []
for dirpath, dirnames, filenames in os.walk(root):
    dirnames[:] = [d for d in dirnames if d not in skip]
    files += [os.path.join(dirpath, f) for f in filenames]
io = InputOutput(pretty=False, yes=True, fancy_input=False)
model = Model("gpt-4o")
t1 = time.perf_counter()
rm = RepoMap(map_tokens=1024, root=root, main_model=model, io=io, verbose=False)
text = rm.get_repo_map(chat_files=[], other_files=files) or ""
t2 = time.perf_counter()
sys.stderr.write(f"imports {t1 - t0:.2f} s, map {t2 - t1:.2f} s\n")
sys.stdout.write(text)
"""


def aider_python() -> str | None:
    python = os.environ.get("VALARMIND_BENCH_AIDER_PYTHON")
    return python if python and Path(python).exists() else None


def _run(python: str, root: Path) -> tuple[float, float, float, str]:
    """(wall s, CPU s, seconds inside get_repo_map, the map)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1",
           "AIDER_CHECK_UPDATE": "false", "PYTHONPATH": ""}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([python, "-c", _CHILD, str(root)], capture_output=True, text=True,
                         env=env, timeout=900, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    in_map = float(out.stderr.rsplit("map ", 1)[1].split(" s")[0])
    return wall, cpu, in_map, out.stdout


def measure(name: str) -> dict:
    """{"cold_s", "warm_s", "warm_cpu_s", "warm_map_s", "share"} or {"note": why not}."""
    python = aider_python()
    if python is None:
        return {"note": "not measured (set VALARMIND_BENCH_AIDER_PYTHON)"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, name)
        shutil.copytree(ensure(name), root)  # Aider writes its cache into the tree
        try:
            cold_s, _, _, _ = _run(python, root)
            warm_s, warm_cpu, warm_map, text = _run(python, root)
        except (subprocess.SubprocessError, OSError) as exc:
            return {"note": f"Aider failed: {exc}"}
    # Aider prints paths relative to the root, each file's name alone on a line ending ":".
    share, _ = repomap_quality.measure(name, text)
    return {"cold_s": cold_s, "warm_s": warm_s, "warm_cpu_s": warm_cpu, "warm_map_s": warm_map,
            "share": share}


if __name__ == "__main__":
    for repo in sys.argv[1:]:
        print(repo, measure(repo))
