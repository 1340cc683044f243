"""Where a path really points, whether it stays in the project, and whether it holds secrets.

Every tool path and every gate check goes through `resolve_in_project`: relative paths are taken
from the project root, symlinks are resolved all the way (a file that does not exist yet is
resolved through its parent), and whatever lands outside the root is refused.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

from valarmind_tui.core.errors import PathOutsideProject

SENSITIVE_DIRS = frozenset(
    {".ssh", ".aws", ".gnupg", ".kube", ".azure", ".docker", ".password-store"}
)
"""Any path with one of these as a component holds keys or credentials."""
SENSITIVE_NAMES = frozenset({
    ".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", "authorized_keys",
    "known_hosts", "shadow",
})
SENSITIVE_SUFFIXES = (
    ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".asc", ".gpg", ".kdbx", ".ppk",
)
_SENSITIVE_PATTERNS = (
    re.compile(r"^\.env"),  # .env, .env.local, .envrc
    re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)"),
    re.compile(r"secret|credential|passw(or)?d", re.IGNORECASE),
    # "token" only as a word, so tokenizer.py stays ordinary.
    re.compile(r"(^|[^a-z])tokens?([^a-z]|$)", re.IGNORECASE),
)


def resolve_in_project(root: Path | str, path: Path | str) -> Path:
    """The absolute, symlink-free form of `path`; raises PathOutsideProject if it leaves `root`.

    Relative paths are relative to `root`; `~` is expanded (and then, usually, refused).
    """
    base = Path(root).resolve()
    raw = Path(path).expanduser()
    candidate = raw if raw.is_absolute() else base / raw
    # strict=False resolves every existing component (symlinks included, a dangling final
    # symlink to its target) and keeps the non-existing tail as written.
    resolved = candidate.resolve(strict=False)
    if resolved != base and not resolved.is_relative_to(base):
        via = "" if resolved == Path(str(candidate)) else f" (it resolves to {resolved})"
        raise PathOutsideProject(
            f"{path} is outside the project root {base}{via}; only paths inside the project "
            "may be used."
        )
    return resolved


def relative(root: Path | str, path: Path | str) -> str:
    """`path` relative to `root` in POSIX form ("." for the root); absolute when outside."""
    base = Path(root).resolve()
    target = Path(path)
    target = target if target.is_absolute() else base / target
    try:
        rel = target.relative_to(base)
    except ValueError:
        return target.as_posix()
    return rel.as_posix() or "."


def is_sensitive(path: Path | str) -> bool:
    """True for paths that commonly hold secrets: `.env*`, keys, `.ssh/`, credentials...

    Pass the project-relative path: every component is checked, so an absolute path under a
    directory named like `my-secrets/` would count as sensitive too.
    """
    parts = [p for p in PurePosixPath(Path(path).as_posix()).parts if p not in ("/", ".", "")]
    if any(part in SENSITIVE_DIRS for part in parts[:-1]):
        return True
    if not parts:
        return False
    name = parts[-1]
    if name in SENSITIVE_NAMES or name in SENSITIVE_DIRS:
        return True
    if name.lower().endswith(SENSITIVE_SUFFIXES):
        return True
    return any(p.search(name) for p in _SENSITIVE_PATTERNS)


PROTECTED_ANY_DEPTH = {".git": ".git/**", ".gitattributes": ".gitattributes",
                      ".gitmodules": ".gitmodules"}
"""Names protected wherever they are: git reads nested `.git` dirs and `.gitattributes`."""
PROTECTED_AT_ROOT = {".valarmind": ".valarmind/**", ".mcp.json": ".mcp.json",
                     "external-agents.json": "external-agents.json", "plugins": "plugins/**",
                     ".envrc": ".envrc", ".claude": ".claude/**"}
"""Names protected at the project root: configuration the next run loads (`.claude/` holds
Claude Code's settings.json, whose hooks run commands: setup/claude_settings.py)."""


def protected_by(path: Path | str) -> str | None:
    """The protected-path pattern a project-relative path falls under, or None.

    Writing these changes what the next run (or git) executes: repository config (`.valarmind/`,
    `.mcp.json`, `external-agents.json`, `plugins/`), direnv's `.envrc`, and git's own files
    (`.git/` hooks and config, `.gitattributes` filters, `.gitmodules`).
    """
    parts = [p for p in PurePosixPath(Path(path).as_posix()).parts if p not in ("/", ".", "")]
    # Lower case: on a case-insensitive file system `.GIT/config` is `.git/config`.
    for part in parts:
        if part.lower() in PROTECTED_ANY_DEPTH:
            return PROTECTED_ANY_DEPTH[part.lower()]
    if parts and parts[0].lower() in PROTECTED_AT_ROOT:
        return PROTECTED_AT_ROOT[parts[0].lower()]
    return None


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex for a POSIX glob over relative paths.

    `*` and `?` stay within one path component, `**` spans any number of them, `[...]` is a
    character class, a backslash escapes the next character; `src/**` matches everything under
    src. The same syntax serves permission rules and .gitignore patterns.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(pattern: str, rel_path: str) -> bool:
    """Does the project-relative POSIX path match the glob (see `glob_regex`)?"""
    pattern = pattern.removeprefix("./")
    return glob_regex(pattern).match(rel_path) is not None


def broad_root_warning(root: Path, home: Path | None = None) -> str | None:
    """What to say when the project is the whole disk or the home folder: every file under it
    is "the project" (searched, mapped, and writable by commands once approved)."""
    resolved = root.resolve()
    home = (home or Path.home()).resolve()
    if resolved == Path(resolved.anchor):
        where = f"the whole disk ({resolved})"
    elif resolved == home:
        where = f"your home folder ({resolved})"
    else:
        return None
    return (f"The project is {where}: searches and the map cover everything under it, and "
            "approved commands may write anywhere in it. Quit and start ValarMind in a "
            "project's folder unless that is what you want.")
