"""Run every benchmark and print one table: `.ci/with-env python benchmarks/run.py [NAME...]`."""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

BENCHES = ["startup_bench", "loop_bench", "ui_bench", "token_bench", "repomap_bench", "mcp_bench",
           "init_bench", "bigrepo_bench", "checkpoint_bench", "review_bench", "secret_mask_bench",
           "stall_bench", "e2e_bench", "background_bench",
           "image_bench", "ledger_bench", "goal_bench",
           "lsp_bench", "oneshot_bench",
           "turn_bench", "memory_bench", "worktree_bench", "model_import_bench"]


def main(names: list[str]) -> int:
    rows: list[dict] = []
    for name in names or BENCHES:
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"benchmarks.{name}":
                print(f"(skipping {name}: not written yet)", file=sys.stderr)
                continue
            raise
        start = time.perf_counter()
        for row in module.run():
            rows.append({"bench": name, **row})
        print(f"{name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    width = max((len(r["name"]) for r in rows), default=10)
    print(f"{'benchmark'.ljust(width)}  {'value':>12}  unit    target")
    for r in rows:
        value = r["value"]
        shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"
        print(f"{r['name'].ljust(width)}  {shown:>12}  {r['unit']:<6}  {r.get('target', '')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
