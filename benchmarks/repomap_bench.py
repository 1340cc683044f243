"""Repo-map benchmark on real trees of three sizes (click, flask+werkzeug, sympy).

Each measurement runs in a fresh process so peak RSS is honest (workers included):
cold (empty cache, parallel parse), cold-1proc (empty cache, one process: our own baseline),
cold-app (the same with another thread running, as in the app, where the map is built from a
worker thread: the pool then starts through a forkserver), warm (same request again: a stat of
every file, nothing read), refocus (new chat file: cached graph re-ranked) and edit (one file
touched: one file re-parsed). The machine is often shared, so "cold CPU" (seconds of CPU in all
processes) is given too: it moves much less with other load than wall time does. Run alone:
`.venv/bin/python benchmarks/repomap_bench.py [--repeat 3] [repo ...]`.
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
import json, os, resource, sys, threading, time
from pathlib import Path
from valarmind_tui.repomap import RepoMap
root, cache, workers, chat, touch, app = sys.argv[1:7]
if app:
    idle = threading.Event()
    threading.Thread(target=idle.wait, daemon=True).start()
if touch:
    p = Path(root, touch); st = p.stat(); os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
rm = RepoMap(root, cache_dir=Path(cache), workers=int(workers) or None)
t = time.perf_counter()
cpu0 = time.process_time()
result = rm.build(token_budget=1024, chat_files=[chat] if chat else [])
elapsed = time.perf_counter() - t
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = max(me.ru_maxrss, kids.ru_maxrss) / 1024
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime - cpu0
print(json.dumps({"s": elapsed, "rss": rss, "cpu": cpu, "level": rm.stats.level,
                  "parsed": rm.stats.parsed, "files": rm.stats.files_seen,
                  "tags": result.tags_count, "skipped": result.skipped, "first": result.files[:1]}))
"""


def _measure(root: Path, cache: Path, *, workers: int = 0, chat: str = "",
             touch: str = "", app: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(cache), str(workers),
                          chat, touch, "1" if app else ""], capture_output=True, text=True,
                         check=True, env=env, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_repo(name: str) -> dict:
    root = ensure(name)
    with tempfile.TemporaryDirectory() as tmp:
        base = _measure(root, Path(tmp, "c1"), workers=1)
        cold_app = _measure(root, Path(tmp, "c0"), app=True)
        cold = _measure(root, Path(tmp, "c2"))
        warm = _measure(root, Path(tmp, "c2"))
        some_file = cold["first"][0] if cold["first"] else ""
        refocus = _measure(root, Path(tmp, "c2"), chat=some_file)
        scratch = Path(tmp, "tree")
        shutil.copytree(root, scratch)
        _measure(scratch, Path(tmp, "c3"))
        edit = _measure(scratch, Path(tmp, "c3"), touch=some_file)
    return {"repo": name, "files": cold["files"], "tags": cold["tags"],
            "skipped": cold["skipped"], "cold_s": cold["s"], "cold_cpu_s": cold["cpu"],
            "cold_app_s": cold_app["s"], "cold_1proc_s": base["s"], "warm_s": warm["s"],
            "warm_level": warm["level"],
            "refocus_s": refocus["s"], "edit_s": edit["s"], "edit_parsed": edit["parsed"],
            "rss_mb": cold["rss"], "rss_1proc_mb": base["rss"]}


def run() -> list[dict]:
    """Rows for benchmarks/run.py."""
    rows: list[dict] = []
    for name in REPOS:
        r = bench_repo(name)
        target = TARGETS.get(name, {})
        rows += [
            {"name": f"repomap {name} cold", "value": round(r["cold_s"], 2), "unit": "s",
             "target": target.get("cold", AIDER.get(name, ""))},
            {"name": f"repomap {name} cold CPU (all processes)",
             "value": round(r["cold_cpu_s"], 2), "unit": "s", "target": ""},
            {"name": f"repomap {name} cold from a thread (app)",
             "value": round(r["cold_app_s"], 2), "unit": "s", "target": ""},
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


_COLUMNS = ("cold_s", "cold_cpu_s", "cold_app_s", "cold_1proc_s", "warm_s", "refocus_s", "edit_s",
            "rss_mb")


def _cell(values: list[float], digits: int) -> str:
    """Best (lowest) of the runs, and the spread when there were several."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if len(values) == 1 else f"{low} ({low}-{high})"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per repo (best and spread)")
    parser.add_argument("repos", nargs="*", help=f"some of {', '.join(REPOS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = set(args.repos) - set(REPOS)
    if unknown:
        parser.error(f"unknown repos: {', '.join(sorted(unknown))}")
    header = ("repo", "files", "tags", "cold s", "cold CPU s", "cold-app s", "1-proc s", "warm s",
              "refocus s", "edit s", "RSS MB")
    print(" | ".join(header))
    for name in args.repos or list(REPOS):
        runs = [bench_repo(name) for _ in range(max(args.repeat, 1))]
        r = runs[0]
        cells = [_cell([run[c] for run in runs], 0 if c == "rss_mb" else
                       (2 if c.startswith("cold") else 3)) for c in _COLUMNS]
        print(" | ".join([r["repo"], str(r["files"]), str(r["tags"]), *cells]), flush=True)
        print(f"  skipped: {r['skipped']}; warm answered by: {r['warm_level']}; "
              f"edit re-parsed {r['edit_parsed']} file(s); {AIDER.get(r['repo'], '')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
