"""Repo-map benchmark on real trees of three sizes (click, flask+werkzeug, sympy).

Each measurement runs in a fresh process so peak RSS is honest (workers included):
cold (empty cache, parallel parse), cold-1proc (empty cache, one process: our own baseline),
warm (same request again: a stat of every file, nothing read), refocus (new chat file: cached
graph re-ranked) and edit (one file touched: one file re-parsed). Run alone:
`.venv/bin/python benchmarks/repomap_bench.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.repomap_setup import REPOS, ensure  # noqa: E402

TARGETS = {"sympy": {"cold": "< 5 s", "warm": "< 0.3 s", "rss": "< 250 MB"}}
AIDER = {"sympy": "Aider: cold 15 s, warm 3.4 s, 450-630 MB",
         "flask+werkzeug": "Aider: cold 1.7 s, warm 0.65 s"}
_CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
from valarmind_tui.repomap import RepoMap
root, cache, workers, chat, touch = sys.argv[1:6]
if touch:
    p = Path(root, touch); st = p.stat(); os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
rm = RepoMap(root, cache_dir=Path(cache), workers=int(workers) or None)
t = time.perf_counter()
result = rm.build(token_budget=1024, chat_files=[chat] if chat else [])
elapsed = time.perf_counter() - t
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
          resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
print(json.dumps({"s": elapsed, "rss": rss, "level": rm.stats.level, "parsed": rm.stats.parsed,
                  "files": rm.stats.files_seen, "tags": result.tags_count,
                  "skipped": result.skipped, "first": result.files[:1]}))
"""


def _measure(root: Path, cache: Path, *, workers: int = 0, chat: str = "",
             touch: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(cache), str(workers),
                          chat, touch], capture_output=True, text=True, check=True, env=env,
                         timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_repo(name: str) -> dict:
    root = ensure(name)
    with tempfile.TemporaryDirectory() as tmp:
        base = _measure(root, Path(tmp, "c1"), workers=1)
        cold = _measure(root, Path(tmp, "c2"))
        warm = _measure(root, Path(tmp, "c2"))
        some_file = cold["first"][0] if cold["first"] else ""
        refocus = _measure(root, Path(tmp, "c2"), chat=some_file)
        scratch = Path(tmp, "tree")
        shutil.copytree(root, scratch)
        _measure(scratch, Path(tmp, "c3"))
        edit = _measure(scratch, Path(tmp, "c3"), touch=some_file)
    return {"repo": name, "files": cold["files"], "tags": cold["tags"],
            "skipped": cold["skipped"], "cold_s": cold["s"], "cold_1proc_s": base["s"],
            "warm_s": warm["s"], "warm_level": warm["level"], "refocus_s": refocus["s"],
            "edit_s": edit["s"], "edit_parsed": edit["parsed"], "rss_mb": cold["rss"],
            "rss_1proc_mb": base["rss"]}


def run() -> list[dict]:
    """Rows for benchmarks/run.py."""
    rows: list[dict] = []
    for name in REPOS:
        r = bench_repo(name)
        target = TARGETS.get(name, {})
        rows += [
            {"name": f"repomap {name} cold", "value": round(r["cold_s"], 2), "unit": "s",
             "target": target.get("cold", AIDER.get(name, ""))},
            {"name": f"repomap {name} cold (1 proc)", "value": round(r["cold_1proc_s"], 2),
             "unit": "s", "target": "baseline"},
            {"name": f"repomap {name} warm", "value": round(r["warm_s"], 3), "unit": "s",
             "target": target.get("warm", "")},
            {"name": f"repomap {name} refocus", "value": round(r["refocus_s"], 3), "unit": "s",
             "target": ""},
            {"name": f"repomap {name} edit 1 file", "value": round(r["edit_s"], 3), "unit": "s",
             "target": f"{r['edit_parsed']} parsed"},
            {"name": f"repomap {name} peak RSS", "value": round(r["rss_mb"], 1), "unit": "MB",
             "target": target.get("rss", "")},
            {"name": f"repomap {name} tags", "value": r["tags"], "unit": "tags",
             "target": f"{r['files']} files, skipped {r['skipped']}"},
        ]
    return rows


def main() -> int:
    results = [bench_repo(name) for name in REPOS]
    header = ("repo", "files", "tags", "cold s", "1-proc s", "warm s", "refocus s", "edit s",
              "RSS MB", "1-proc RSS")
    print(" | ".join(header))
    for r in results:
        print(" | ".join(str(v) for v in (
            r["repo"], r["files"], r["tags"], f"{r['cold_s']:.2f}", f"{r['cold_1proc_s']:.2f}",
            f"{r['warm_s']:.3f}", f"{r['refocus_s']:.3f}", f"{r['edit_s']:.3f}",
            f"{r['rss_mb']:.0f}", f"{r['rss_1proc_mb']:.0f}")))
        print(f"  skipped: {r['skipped']}; warm answered by: {r['warm_level']}; "
              f"edit re-parsed {r['edit_parsed']} file(s); {AIDER.get(r['repo'], '')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
