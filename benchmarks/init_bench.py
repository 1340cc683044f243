"""`valarmind init --yes` on a 30,000-file git repository, cold and offline (goal: under 5 s).

The tree has the shape issue 31 names: a Rust workspace (crates with their sources) whose lint
rules keep thousands of Python test fixtures, a TypeScript front end, docs, a CI workflow, a
Makefile and a maturin pyproject.toml. Cold: a fresh HOME and cache, so neither the repo map's
tags nor anything else is cached; offline: no model is configured, so /init writes the
deterministic draft. The whole process is timed, start-up included.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 30_000
CI = """\
name: CI
on: [push]
jobs:
  test:
    steps:
      - run: cargo test --workspace
      - run: cargo clippy --workspace -- -D warnings
"""


def make_repo(root: Path, files: int = FILES) -> None:
    """`files` files: 10% Rust sources, 60% Python fixtures, 20% TypeScript, 10% docs."""
    made = 0
    for kind, share in (("rs", 0.1), ("fixture", 0.6), ("ts", 0.2), ("md", 0.1)):
        for i in range(int(files * share)):
            if kind == "rs":
                path = root / f"crates/crate_{i // 100:03d}/src/m{i % 100:03d}.rs"
                body = f"pub fn f{i}(x: u32) -> u32 {{ x + {i} }}\n"
            elif kind == "fixture":
                path = root / (f"crates/linter/resources/test/fixtures/rule_{i // 200:03d}/"
                               f"case_{i % 200:03d}.py")
                body = f"import os\n\n\ndef case_{i}():\n    return os.sep\n"
            elif kind == "ts":
                path = root / f"web/src/c{i // 100:03d}/m{i % 100:03d}.ts"
                body = f"export const v{i} = {i};\n"
            else:
                path = root / f"docs/p{i // 100:03d}/page{i % 100:03d}.md"
                body = f"# Page {i}\n"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
            made += 1
    extra = {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        "pyproject.toml": ('[build-system]\nrequires = ["maturin"]\nbuild-backend = "maturin"\n'
                           '[project]\nname = "lintrs"\ndescription = "A fast linter."\n'),
        "Makefile": "test:\n\tcargo test\nlint:\n\tcargo clippy\n",
        ".github/workflows/ci.yml": CI,
        "README.md": "# lintrs\n\nA fast linter for Python, written in Rust.\n",
    }
    for rel, body in extra.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@e"}
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "files"]):
        subprocess.run(argv, cwd=root, check=True, env=env)


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="valarmind-init-bench-") as tmp:
        root = Path(tmp) / "lintrs"
        root.mkdir()
        make_repo(root)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
                   XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local"))
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "valarmind_tui", "init", "--yes"], cwd=root,
                              env=env, capture_output=True, text=True, timeout=300)
        seconds = time.perf_counter() - start
        if done.returncode != 0 or not (root / "VALARMIND.md").is_file():
            raise RuntimeError(f"valarmind init failed: {done.stderr[-2000:]}")
    return [{"name": f"valarmind init, {FILES:,} files, cold, offline", "value": seconds,
             "unit": "s", "target": "< 5"}]


if __name__ == "__main__":
    for row in run():
        print(row)
