"""resolve_in_project, is_sensitive and glob matching on a real file tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from valarmind_tui.core.errors import PathOutsideProject, ToolError
from valarmind_tui.safety.paths import glob_match, is_sensitive, relative, resolve_in_project


def test_relative_and_absolute_paths_inside(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert resolve_in_project(tmp_path, "src/a.py") == tmp_path.resolve() / "src/a.py"
    assert resolve_in_project(tmp_path, tmp_path / "src") == tmp_path.resolve() / "src"
    assert resolve_in_project(tmp_path, "src/../b.py") == tmp_path.resolve() / "b.py"
    assert resolve_in_project(tmp_path, ".") == tmp_path.resolve()
    assert relative(tmp_path, tmp_path / "src" / "a.py") == "src/a.py"
    assert relative(tmp_path, tmp_path) == "."


def test_dotdot_escape_names_path_and_root(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(PathOutsideProject) as caught:
        resolve_in_project(root, "../../etc/passwd")
    assert "../../etc/passwd" in str(caught.value) and str(root) in str(caught.value)
    assert isinstance(caught.value, ToolError)
    with pytest.raises(PathOutsideProject):
        resolve_in_project(root, "/etc/passwd")
    with pytest.raises(PathOutsideProject):
        resolve_in_project(root, "~/.ssh/id_rsa")


def test_symlink_escapes_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    os.symlink(outside, root / "dirlink")
    os.symlink(outside / "secret.txt", root / "filelink")
    os.symlink(outside / "not-yet.txt", root / "dangling")
    for path in ("dirlink/secret.txt", "filelink", "dangling", "dirlink/new/file.txt"):
        with pytest.raises(PathOutsideProject, match="resolves to"):
            resolve_in_project(root, path)


def test_new_file_resolved_through_its_parent(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "alias")
    assert resolve_in_project(tmp_path, "alias/new.txt") == tmp_path.resolve() / "real/new.txt"


@pytest.mark.parametrize("path", [
    ".env", ".env.local", "config/.env.production", "certs/server.pem", "tls/private.key",
    "id_rsa", "id_ed25519.pub", ".ssh/config", "home/.aws/credentials", ".gnupg/pubring.kbx",
    ".netrc", "app/secrets.yaml", "db_password.txt", "CREDENTIALS.json", "auth_token.txt",
    "api-tokens.json", ".npmrc",
])
def test_sensitive(path: str) -> None:
    assert is_sensitive(path)


@pytest.mark.parametrize("path", [
    "app.py", "src/tokenizer.py", "README.md", "docs/environment.md", "keyboard.c",
    "src/keys_test.go", "environment.yml",
])
def test_not_sensitive(path: str) -> None:
    assert not is_sensitive(path)


def test_glob_match() -> None:
    assert glob_match("src/**", "src/a/b.py")
    assert glob_match("**/*.py", "a.py") and glob_match("**/*.py", "x/y/a.py")
    assert glob_match("*.py", "a.py") and not glob_match("*.py", "x/a.py")
    assert glob_match("tests/**/test_*.py", "tests/unit/test_a.py")
    assert glob_match("docs/*.md", "./docs/a.md".removeprefix("./"))
    assert not glob_match("src/**", "srcs/a.py")
    assert glob_match("file[0-9].txt", "file3.txt")
    assert not glob_match("file[!0-9].txt", "file3.txt")


@pytest.mark.parametrize(("path", "rule"), [
    (".git/config", ".git/**"), (".git", ".git/**"), ("vendor/x/.git/hooks/pre-commit", ".git/**"),
    (".gitattributes", ".gitattributes"), ("src/.gitattributes", ".gitattributes"),
    (".gitmodules", ".gitmodules"), (".valarmind/config.toml", ".valarmind/**"),
    (".mcp.json", ".mcp.json"), ("external-agents.json", "external-agents.json"),
    ("plugins/evil.py", "plugins/**"), (".envrc", ".envrc"), (".GIT/config", ".git/**"),
    ("src/app.py", None), ("docs/plugins/readme.md", None), ("src/.mcp.json", None),
    ("gitattributes.md", None),
])
def test_protected_by(path: str, rule: str | None) -> None:
    from valarmind_tui.safety.paths import protected_by

    assert protected_by(path) == rule
