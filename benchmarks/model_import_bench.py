"""The model process's import, with providers/import_less.py on and off (issue #36).

Each round starts two fresh interpreters, alternating which goes first, that do what the model
process does before its first prompt: `load_litellm()`, then the warm-up request
(providers/warm.py) to a refused local port. Each reports its CPU (user + system, from its
rusage: the interpreter's start, the import and the request), the wall time of the import, the
modules imported, and its anonymous memory and PSS at the end. Medians per way.

Session 42, load ~6 on the 2 shared cores, five rounds (docs/memory.md): CPU 1.89 -> 1.38 s,
import wall 3.69 -> 2.48 s, modules 3,228 -> 2,285, anonymous 157 -> 132 MB.

Run alone: `.ci/with-env python benchmarks/model_import_bench.py [--rounds N]`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = """
import asyncio, json, resource, sys, time
from pathlib import Path
started = time.perf_counter()
from valarmind_tui.providers.litellm_call import load_litellm
load_litellm()
imported = time.perf_counter() - started
from valarmind_tui.providers.warm import warm_request
asyncio.run(warm_request("openai/gpt-4o"))
usage = resource.getrusage(resource.RUSAGE_SELF)
memory = {line.split(":")[0]: int(line.split()[1]) / 1024
          for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]}
print(json.dumps({"cpu_s": usage.ru_utime + usage.ru_stime, "import_wall_s": imported,
                  "modules": len(sys.modules), "anonymous_mb": memory["Anonymous"],
                  "pss_mb": memory["Pss"]}))
"""

WAYS = {"whole": {"VALARMIND_IMPORT_ALL": "1"}, "import_less": {}}


def _once(way: str) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "VALARMIND_IMPORT_ALL"}
    env.update(WAYS[way], LITELLM_LOCAL_MODEL_COST_MAP="True")
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=120, check=True)
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def run(rounds: int = 3) -> list[dict]:
    got: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    for n in range(rounds):
        for way in (list(WAYS) if n % 2 == 0 else list(reversed(WAYS))):
            got[way].append(_once(way))
    rows = []
    for way, runs in got.items():
        for key, unit in (("cpu_s", "s"), ("import_wall_s", "s"), ("modules", ""),
                          ("anonymous_mb", "MB"), ("pss_mb", "MB")):
            rows.append({"name": f"model process import + warm-up, {way}: {key}",
                         "value": statistics.median(r[key] for r in runs), "unit": unit,
                         "target": "-"})
    return rows


if __name__ == "__main__":
    count = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    for row in run(count):
        print(f"{row['name']:<60} {row['value']:>8.2f} {row['unit']}")
