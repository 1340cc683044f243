"""Outside a git repository the repo map walks the folder with the same .gitignore matcher as
glob and grep (`safety.ignore`), and agrees with git itself (`git check-ignore`) on negation,
patterns with a slash and anchored patterns."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from valarmind_tui.repomap.files import IGNORED_DIRS, list_files
from valarmind_tui.safety.ignore import GitignoreWalker

GITIGNORE = "*.log\n!keep.log\ndoc/*.txt\n/out\ngen/\n*.tmp.py\n!/src/keep.tmp.py\n"
NESTED = "local.py\n!*.log\n"
FILES = [
    "a.log", "keep.log", "src/a.log", "src/keep.log", "doc/x.txt", "doc/sub/y.txt",
    "src/doc/z.txt", "out/o.py", "src/out/o.py", "gen/g.py", "src/gen/g.py",
    "x.tmp.py", "src/keep.tmp.py", "lib/local.py", "lib/debug.log", "lib/main.py", "main.py",
]


def _tree(root: Path) -> None:
    for rel in FILES:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "lib" / ".gitignore").write_text(NESTED)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=root,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_matcher_agrees_with_git_check_ignore(tmp_path: Path) -> None:
    root = tmp_path / "p"
    _tree(root)
    _git(root, "init", "-q")
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                   if ".git" not in p.parts and p.is_file())
    out = _git(root, "check-ignore", "--no-index", *paths).stdout.split()
    git_ignored = set(out)
    assert {"a.log", "doc/x.txt", "out/o.py"} <= git_ignored  # the test means something
    assert "keep.log" not in git_ignored and "src/out/o.py" not in git_ignored
    walker = GitignoreWalker(root)
    ours = {p for p in paths if walker.is_ignored(root / p)}
    assert ours == git_ignored


def test_repo_map_walk_lists_what_git_lists(tmp_path: Path) -> None:
    root = tmp_path / "p"
    _tree(root)
    walked = list_files(root)  # no .git: the walk
    repo = tmp_path / "git"
    shutil.copytree(root, repo)
    _git(repo, "init", "-q")
    listed = _git(repo, "ls-files", "--others", "--exclude-standard").stdout.split()
    expected = sorted(p for p in listed
                      if not any(part in IGNORED_DIRS for part in p.split("/")[:-1]))
    assert walked == expected
    assert "keep.log" in walked and "doc/sub/y.txt" in walked and "src/out/o.py" in walked
    assert "lib/debug.log" in walked and "lib/local.py" not in walked
