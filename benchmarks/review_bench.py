"""Static review (no model) of a 20-file change on a sympy-size project.

The change renames a function that 200 files import, adds a hard-coded key and an `eval`, and
edits 17 more modules. On the sympy tree when the repo-map benchmark has downloaded it
(benchmarks/.cache/repomap/sympy, copied into a git repository: `sympify` renamed), else on a
synthetic project of the same size (1,400 Python files). Each review runs in a fresh process:
cold (empty repo-map cache) then warm (the cache of the cold run; only the changed files are
parsed again). Run alone: `.venv/bin/python benchmarks/review_bench.py`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.repomap_setup import CACHE  # noqa: E402

TARGET = "<= 3 s"
SYNTHETIC_FILES = 1400
CALLERS = 200
_GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
            "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
_CHILD = r"""
import asyncio, json, sys, time
from pathlib import Path
from valarmind_tui.agents.review.runner import run_review
t = time.perf_counter()
report = asyncio.run(run_review(Path(sys.argv[1]), []))
elapsed = time.perf_counter() - t
rules = {}
for f in report.findings:
    rules[f.rule or f.source] = rules.get(f.rule or f.source, 0) + 1
impact = [f.message[:160] for f in report.findings if f.source == "static:impact"]
print(json.dumps({"s": elapsed, "files": len(report.files), "findings": len(report.findings),
                  "rules": rules, "impact": impact}))
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, **_GIT_ENV})


def _synthetic(root: Path) -> tuple[str, list[str]]:
    """A project of SYNTHETIC_FILES modules; CALLERS of them import `core.sympify.sympify`."""
    (root / "core").mkdir(parents=True)
    (root / "core" / "__init__.py").write_text("")
    (root / "core" / "sympify.py").write_text(
        "def sympify(a, strict=False):\n    return a\n\n\ndef _sympify(a):\n    return a\n")
    files = []
    for i in range(SYNTHETIC_FILES):
        pkg = root / f"pkg{i // 50}"
        pkg.mkdir(exist_ok=True)
        head = "from core.sympify import sympify\n\n\n" if i < CALLERS else ""
        body = "".join(
            f"def func_{i}_{j}(x, y=1):\n    return {'sympify(x)' if i < CALLERS else 'x'} "
            f"+ y * {j}\n\n\nclass Thing{i}_{j}:\n    def method(self, v):\n        return v\n\n\n"
            for j in range(8))
        path = pkg / f"mod{i}.py"
        path.write_text(head + body)
        files.append(path.relative_to(root).as_posix())
    return "core/sympify.py", files[CALLERS:CALLERS + 17]


def _sympy(root: Path, source: Path) -> tuple[str, list[str]]:
    shutil.copytree(next(source.glob("sympy-*")), root, dirs_exist_ok=True)
    edits = sorted(p.relative_to(root).as_posix() for p in (root / "sympy" / "polys").glob("*.py"))
    return "sympy/core/sympify.py", [e for e in edits if "__init__" not in e][:17]


def make_change(root: Path) -> str:
    """The project in a git repository, then the 20-file change in its work tree."""
    source = CACHE / "sympy"
    kind = "sympy" if (source / ".complete").exists() else "synthetic"
    target, edits = _sympy(root, source) if kind == "sympy" else _synthetic(root)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    path = root / target
    path.write_text(re.sub(r"\bdef sympify\(", "def to_expr(", path.read_text()))
    for rel in edits:
        with open(root / rel, "a") as fh:
            fh.write("\n\ndef added_by_change(value):\n    return value\n")
    (root / "leak_settings.py").write_text('AWS_KEY = "AKIAZ3MXQ7RT5PLW2KVN"\n')
    (root / "calc_eval.py").write_text("def calc(arg):\n    return eval(arg)\n")
    return kind


def _measure(root: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root)], capture_output=True,
                         text=True, check=True, env=env, timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "project")
        root.mkdir()
        kind = make_change(root)
        cold = _measure(root, Path(tmp, "cache"))
        warm = [_measure(root, Path(tmp, "cache")) for _ in range(3)]
    best = min(warm, key=lambda r: r["s"])
    return {"kind": kind, "cold": cold, "warm": best, "warm_all": [r["s"] for r in warm]}


def run() -> list[dict]:
    """Rows for benchmarks/run.py."""
    r = bench()
    warm = r["warm"]
    return [
        {"name": f"review 20-file change ({r['kind']}) cold", "value": round(r["cold"]["s"], 2),
         "unit": "s", "target": ""},
        {"name": f"review 20-file change ({r['kind']}) warm", "value": round(warm["s"], 2),
         "unit": "s", "target": TARGET},
        {"name": f"review 20-file change ({r['kind']}) findings", "value": warm["findings"],
         "unit": "", "target": ", ".join(f"{k}: {v}" for k, v in sorted(warm["rules"].items()))},
    ]


if __name__ == "__main__":
    result = bench()
    print(json.dumps(result, indent=2))
