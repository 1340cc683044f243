"""Worktrees (targets: a worktree made on a 10,000-file repository in under 1 s; three parallel
attempts' memory and CPU reported).

Creation is measured through `worktrees.worktree.create`, the path `valarmind --worktree` and
`/worktree` take (the snapshot of the working tree through a copy of the index, the base commit,
`git worktree add --no-checkout`, the checkout of that tree), on the temp dir's disk and on
tmpfs (/dev/shm: the disk out of the figure). References: plain `git worktree add` of HEAD, and
writing the same files with Python (the disk's floor). Three attempts: `valarmind -p TASK
--best-of 3` against the local fake model (one script per model), the whole process tree
sampled from /proc every 50 ms: the peak of the summed RSS, and the CPU time of every process
(RUSAGE_CHILDREN).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 10_000
ROUNDS = 3
REPO = Path(__file__).resolve().parents[1]
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@e"}


def _make_repo(root: Path) -> None:
    for i in range(FILES):
        folder = root / f"pkg{i // 100:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{i % 100:03d}.py").write_text(f"VALUE = {i}\n" + "# filler line\n" * 40)
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "files"], cwd=root, check=True, env=env)


def _raw_files(folder: Path) -> float:
    """The floor: writing the same 10,000 files with Python, in ms."""
    start = time.perf_counter()
    for i in range(FILES):
        sub = folder / f"pkg{i // 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"mod{i % 100:03d}.py").write_text(f"VALUE = {i}\n" + "# filler line\n" * 40)
    return (time.perf_counter() - start) * 1000


def creation(where: str | None = None) -> dict[str, float]:
    from valarmind_tui.worktrees.git import RepoGit
    from valarmind_tui.worktrees.worktree import create, discard

    with tempfile.TemporaryDirectory(dir=where) as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        root = Path(tmp) / "repo"
        root.mkdir()
        _make_repo(root)
        git = RepoGit.of(root)
        clean, dirty = [], []
        for n in range(ROUNDS):
            start = time.perf_counter()
            made = create(root, f"clean{n}")
            clean.append((time.perf_counter() - start) * 1000)
            discard(git, made.path, made.branch, made.name)
        for k in range(20):
            (root / f"pkg{k:03d}" / "mod001.py").write_text(f"edited {k}\n")
            (root / f"new{k}.txt").write_text(f"untracked {k}\n")
        for n in range(ROUNDS):
            start = time.perf_counter()
            made = create(root, f"dirty{n}")
            dirty.append((time.perf_counter() - start) * 1000)
            discard(git, made.path, made.branch, made.name)
        plain = []
        for n in range(ROUNDS):
            where = Path(tmp) / f"plain{n}"
            start = time.perf_counter()
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(where)], cwd=root,
                           check=True)
            plain.append((time.perf_counter() - start) * 1000)
            subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=root,
                           check=True)
        raw = _raw_files(Path(tmp) / "raw")
    return {"clean": statistics.median(clean), "dirty": statistics.median(dirty),
            "plain": statistics.median(plain), "worst": max(clean + dirty), "raw": raw}


def _tree_rss_kib(pid: int) -> int:
    """The summed RSS of `pid` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
        rss[int(entry.name)] = next((int(line.split()[1]) for line in status.splitlines()
                                     if line.startswith("VmRSS:")), 0)
    total, todo = 0, [pid]
    while todo:
        one = todo.pop()
        total += rss.get(one, 0)
        todo += children.get(one, [])
    return total


def three_attempts() -> dict[str, float]:
    sys.path.insert(0, str(REPO))
    from tests.fakes.model_server import FakeModelServer, ScriptedTurn

    def script(body: str) -> list[ScriptedTurn]:
        done = json.dumps({"summary": "done", "files_modified": [{"path": "app.py"}]})
        return [ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
                    "agent": "code", "task": "rewrite app.py"}}]),
                ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
                    "path": "app.py", "content": f"def greet(name):\n    return {body}\n"}}]),
                ScriptedTurn(text=done), ScriptedTurn(text="done.")]

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        home = Path(tmp)
        env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
               "XDG_CONFIG_HOME": str(home / "config"), "FAKE_API_KEY": "sk-bench", **GIT_ENV}
        (home / "config" / "valarmind").mkdir(parents=True)
        (home / "config" / "valarmind" / "config.toml").write_text(
            'api_key_env = "FAKE_API_KEY"\n')
        root = home / "repo"
        root.mkdir()
        (root / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
        subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "one"], cwd=root, check=True, env=env)
        for model, body in (("a", "'Hi ' + name"), ("b", "f'Hello, {name}!'"), ("c", "name")):
            server.script_for(f"fake-{model}", *script(body))
        check = "python3 -c \"import app; assert app.greet('A') == 'Hello, A!'\""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "valarmind_tui", "-p", "greet politely", "--best-of", "3",
             "--models", "openai/fake-a,openai/fake-b,openai/fake-c", "--check", check,
             "--api-base", server.openai_base], cwd=root, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        peak = 0
        while process.poll() is None:
            peak = max(peak, _tree_rss_kib(process.pid))
            time.sleep(0.05)
        wall = time.perf_counter() - start
        out, err = process.communicate()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if process.returncode != 0:
            raise RuntimeError(f"best-of-3 failed: {out}\n{err}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak": peak / 1024}


def _creation_rows(made: dict[str, float], where: str) -> list[dict]:
    return [
        {"name": f"worktree made, {FILES:,} files, clean tree, {where} (median)",
         "value": made["clean"], "unit": "ms", "target": "< 1,000 ms"},
        {"name": "  with 20 edited and 20 untracked files", "value": made["dirty"],
         "unit": "ms", "target": "< 1,000 ms"},
        {"name": "  slowest of the rounds", "value": made["worst"], "unit": "ms", "target": ""},
        {"name": "  reference: plain `git worktree add`", "value": made["plain"], "unit": "ms",
         "target": "same machine, same moment"},
        {"name": f"  reference: writing the {FILES:,} files with Python", "value": made["raw"],
         "unit": "ms", "target": "the disk's floor"},
    ]


def run() -> list[dict]:
    rows = _creation_rows(creation(), "temp dir")
    if Path("/dev/shm").is_dir():  # the same without the disk: what is ours, not the disk's
        rows += _creation_rows(creation("/dev/shm"), "tmpfs")
    three = three_attempts()
    return [
        *rows,
        {"name": "best-of-3 (fake model), whole run", "value": three["wall"], "unit": "s",
         "target": ""},
        {"name": "  CPU of every process", "value": three["cpu"], "unit": "s", "target": ""},
        {"name": "  peak memory of the process tree (summed RSS)", "value": three["peak"],
         "unit": "MiB", "target": ""},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
