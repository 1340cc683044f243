"""The repo map reads only the project's own files: a symlink (tracked by git or found by the
walk) that points outside the project is never read, and one that points at a project file is
mapped like that file. The cache lives in the cache dir, never in the project."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from valarmind_tui.repomap import RepoMap

SECRET = "def leaked_private_key_material():\n    return 'x'\n"


def _project(tmp_path: Path, git: bool) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(SECRET)
    root = tmp_path / "p"
    root.mkdir()
    (root / "main.py").write_text("def main_entry():\n    return helper_inside()\n")
    (root / "lib.py").write_text("def helper_inside():\n    return 1\n")
    (root / "leak.py").symlink_to(outside / "secret.py")
    (root / "leak_relative.py").symlink_to("../outside/secret.py")
    (root / "alias.py").symlink_to("lib.py")
    (root / "pkg").symlink_to(outside, target_is_directory=True)
    if git:
        run = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run(["git", "init", "-q"], **run)  # type: ignore[call-overload]
        subprocess.run(["git", "add", "-A"], **run)  # type: ignore[call-overload]
    return root


@pytest.mark.parametrize("git", [True, False], ids=["git", "walk"])
def test_a_symlink_out_of_the_project_is_never_read(tmp_path: Path, git: bool) -> None:
    root = _project(tmp_path, git)
    cache = tmp_path / "cache"
    for _ in range(2):  # cold, then warm from the cache
        repo_map = RepoMap(root, cache_dir=cache)
        result = repo_map.build(token_budget=4096)
        assert "leaked_private_key_material" not in result.text
        assert all("leak" not in f and not f.startswith("pkg") for f in result.files)
        assert "helper_inside" in result.text
        tags = repo_map.file_tags()
        assert "leak.py" not in tags and "leak_relative.py" not in tags
        assert [d[0] for d in tags["alias.py"][0]] == ["helper_inside"]  # inside: mapped
        repo_map.close()
    assert not any(p.name.endswith(".sqlite") for p in root.rglob("*"))


def test_a_file_swapped_for_an_outside_symlink_after_the_scan_is_not_read(
        tmp_path: Path) -> None:
    """The reader checks that the file it opened is the one the scan checked (device and
    inode): a swap between the scan and the read is refused."""
    from valarmind_tui.repomap.pipeline import _parse_one

    root = _project(tmp_path, git=False)
    victim = root / "lib.py"
    st = victim.stat()
    victim.unlink()
    victim.symlink_to(tmp_path / "outside" / "secret.py")
    stamp = (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)
    rel, _, reason, data, _ = _parse_one((str(root), "lib.py", stamp, "query", False))
    assert (rel, reason, data) == ("lib.py", "changed", None)
