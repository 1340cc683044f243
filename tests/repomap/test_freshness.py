"""A warm map is never stale: an edit (even one that keeps the size and puts the mtime back), a
deletion, a new file and a rename all show in the next map, in a git repository and outside one;
a cache written by an older build is never read."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

import valarmind_tui.repomap.files as files
from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.cache import SCHEMA_VERSION, TagCache


def _project(tmp_path: Path, git: bool) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "core.py").write_text("def compute_total(x):\n    return x\n")
    (root / "app.py").write_text("from core import compute_total\n\n\ndef run_app():\n"
                                 "    return compute_total(1)\n")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _map(root: Path, cache: Path) -> tuple[str, RepoMap]:
    repo_map = RepoMap(root, cache_dir=cache)
    text = repo_map.build(token_budget=4096).text
    repo_map.close()
    return text, repo_map


@pytest.fixture(params=[True, False], ids=["git", "walk"])
def git(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """No file counts as just edited: the stamp alone must tell an edit (the racy window has
    its own test below)."""
    monkeypatch.setattr(files, "RACY_NS", 0)


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path: Path, git: bool,
                                                   settled: None) -> None:
    root = _project(tmp_path, git)
    cache = tmp_path / "cache"
    assert "compute_total" in _map(root, cache)[0]
    assert _map(root, cache)[1].stats.level == "result"
    core = root / "core.py"
    before = core.stat()
    core.write_text("def compute_other(x):\n    return x\n")  # the same size
    os.utime(core, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = core.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    text, repo_map = _map(root, cache)
    assert "compute_other" in text and "compute_total(x)" not in text
    assert repo_map.stats.parsed == 1


def test_a_same_tick_edit_is_caught_by_the_racy_digest(tmp_path: Path, git: bool) -> None:
    """A file edited in the same clock tick as its stamp keeps the stamp: its row holds the
    digest of what was parsed, and the next build compares it with the content."""
    root = _project(tmp_path, git)
    cache = tmp_path / "cache"
    _map(root, cache)  # files made just now are racy: their rows keep a digest
    core = root / "core.py"
    core.write_text("def compute_other(x):\n    return x\n")
    st = core.stat()
    db = sqlite3.connect(TagCache.path_for(root.resolve(), cache))
    with db:  # the edit left the stamp the cache holds: as if it fell in the same tick
        db.execute("UPDATE files SET mtime_ns = ?, size = ?, ctime_ns = ?, inode = ? "
                   "WHERE path = 'core.py'", (st.st_mtime_ns, st.st_size, st.st_ctime_ns,
                                              st.st_ino))
        assert db.execute("SELECT digest FROM files WHERE path = 'core.py'").fetchone()[0]
    db.close()
    text, repo_map = _map(root, cache)
    assert "compute_other" in text and repo_map.stats.parsed == 1


def test_a_deleted_file_is_gone_and_a_new_file_is_seen(tmp_path: Path, git: bool,
                                                       settled: None) -> None:
    root = _project(tmp_path, git)
    cache = tmp_path / "cache"
    _map(root, cache)
    (root / "app.py").unlink()
    (root / "extra.py").write_text("def freshly_added():\n    return 2\n")
    text, repo_map = _map(root, cache)
    assert "run_app" not in text and "app.py" not in text
    assert "freshly_added" in text and repo_map.stats.parsed == 1
    rows = TagCache(root.resolve(), cache).file_rows()
    assert set(rows) == {"core.py", "extra.py"}


def test_a_renamed_file_is_mapped_under_its_new_name(tmp_path: Path, git: bool,
                                                     settled: None) -> None:
    root = _project(tmp_path, git)
    cache = tmp_path / "cache"
    _map(root, cache)
    (root / "core.py").rename(root / "engine.py")
    text, _ = _map(root, cache)
    assert "engine.py" in text and "core.py" not in text and "compute_total" in text


def test_a_file_ignored_later_leaves_the_map(tmp_path: Path, settled: None) -> None:
    root = _project(tmp_path, git=True)
    cache = tmp_path / "cache"
    assert "run_app" in _map(root, cache)[0]
    (root / ".gitignore").write_text("app.py\n")
    assert "run_app" not in _map(root, cache)[0]


def _commit(root: Path) -> None:
    """Commit every file, aged 10 s first: git then trusts their stat data (a file as new as
    git's index is "racily clean", and git reads it whatever its stamp says)."""
    old = os.stat(root).st_mtime_ns - 10 * 10**9
    for path in root.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, ns=(old, old), follow_symlinks=False)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    for argv in (["git", "add", "-A"], ["git", "commit", "-qm", "c"]):
        subprocess.run(argv, cwd=root, check=True, env=env, capture_output=True)


def _same_size_same_mtime_edit(path: Path, text: str) -> None:
    before = path.stat()
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_the_repositorys_config_cannot_blind_the_warm_check(tmp_path: Path,
                                                            settled: None) -> None:
    """A committed file's same-size edit that puts the mtime back is seen whatever the
    repository tells git about stat data (git itself, with core.checkStat=minimal and
    core.trustctime=false, would call the file unchanged)."""
    root = _project(tmp_path, git=True)
    _commit(root)
    for key, value in (("core.checkStat", "minimal"), ("core.trustctime", "false")):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    cache = tmp_path / "cache"
    _map(root, cache)
    _same_size_same_mtime_edit(root / "core.py", "def compute_other(x):\n    return x\n")
    assert "compute_other" in _map(root, cache)[0]


def test_an_assume_unchanged_file_is_still_checked(tmp_path: Path, settled: None) -> None:
    """git would skip an assume-unchanged entry; the map stats it like any file."""
    root = _project(tmp_path, git=True)
    _commit(root)
    subprocess.run(["git", "update-index", "--assume-unchanged", "core.py"], cwd=root,
                   check=True)
    cache = tmp_path / "cache"
    _map(root, cache)
    _same_size_same_mtime_edit(root / "core.py", "def compute_other(x):\n    return x\n")
    assert "compute_other" in _map(root, cache)[0]


def test_a_tracked_symlink_to_an_ignored_file_follows_its_target(tmp_path: Path,
                                                                 settled: None) -> None:
    """The link is stamped by its target, so an edit of the (ignored) target is seen."""
    root = _project(tmp_path, git=True)
    (root / ".gitignore").write_text("local/\n")
    (root / "local").mkdir()
    (root / "local" / "impl.py").write_text("def local_impl():\n    return 0\n")
    (root / "shim.py").symlink_to("local/impl.py")
    _commit(root)
    cache = tmp_path / "cache"
    assert "local_impl" in _map(root, cache)[0]
    _same_size_same_mtime_edit(root / "local" / "impl.py",
                               "def local_imp2():\n    return 0\n")
    assert "local_imp2" in _map(root, cache)[0]


def test_a_cache_from_an_older_build_is_never_read(tmp_path: Path, settled: None) -> None:
    root = _project(tmp_path, git=False)
    cache = tmp_path / "cache"
    new_path = TagCache.path_for(root.resolve(), cache)
    old_path = new_path.with_name(new_path.name.replace(f".v{SCHEMA_VERSION}.",
                                                        f".v{SCHEMA_VERSION - 1}."))
    cache.mkdir()
    old = sqlite3.connect(old_path)
    with old:  # an older layout holding a poisoned row for a file of the project
        old.execute("CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, "
                    "size INTEGER, skipped TEXT, data BLOB)")
        st = (root / "core.py").stat()
        old.execute("INSERT INTO files VALUES ('core.py', ?, ?, NULL, ?)",
                    (st.st_mtime_ns, st.st_size, b"poison"))
    old.close()
    text, repo_map = _map(root, cache)
    assert "compute_total" in text and repo_map.stats.parsed == 2
    assert not old_path.exists() and new_path.exists()
