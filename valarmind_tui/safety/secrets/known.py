"""The secret values known by where they live: the project's `.env*` files and the
environment's key-like variables. They are matched exactly, wherever they appear.

A value counts only when it could be a secret: at least 8 characters of at least two kinds
(lower case, upper case, digits, other), so `DEBUG=true`, `PORT=8080` or `NODE_ENV=production`
never turn every "production" of a tool's output into a marker.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from valarmind_tui.core import safe_files

MIN_LENGTH = 8
MAX_ENV_FILE_BYTES = 256_000
KEY_LIKE_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_PAT$|^PAT_|WEBHOOK|DSN|CONNECTION_STRING",
    re.IGNORECASE)
"""Environment variables whose value is a secret by their name."""
NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD", "GPG_TTY", "SSH_AUTH_SOCK", "KEYMAP",
                              "XKB_KEYMAP"})
_ENV_FILE = re.compile(r"^\.env(?:\..+)?$")
_EXAMPLE = re.compile(r"\.(?:example|sample|template|dist|defaults?)$", re.IGNORECASE)
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*[=:]\s*(.*?)\s*$")


def could_be_secret(value: str) -> bool:
    """Long enough and not all of one kind of character."""
    if len(value) < MIN_LENGTH:
        return False
    kinds = (any(c.islower() for c in value), any(c.isupper() for c in value),
             any(c.isdigit() for c in value), any(not c.isalnum() for c in value))
    return sum(kinds) >= 2


def is_env_file(name: str) -> bool:
    """`.env`, `.env.local`, `.env.production`...; not `.env.example` (it is meant to be read)."""
    return bool(_ENV_FILE.match(name)) and not _EXAMPLE.search(name)


def env_file_values(path: Path, shown: str) -> dict[str, str]:
    """value → label (`.env DATABASE_URL`) of each secret-like value of one env file."""
    try:
        data = safe_files.read_regular_bytes(path, shown, MAX_ENV_FILE_BYTES)
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        match = _LINE.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        name, value = match.groups()
        value = _unquote(value)
        if could_be_secret(value):
            found.setdefault(value, f"{shown} {name}")
    return found


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if " #" in value:  # an inline comment after an unquoted value
        value = value.split(" #", 1)[0].rstrip()
    return value


def environment_values(environ: Mapping[str, str],
                       extra_names: Iterable[str] = ()) -> dict[str, str]:
    """value → label (`value of OPENAI_API_KEY`) of the environment's key-like variables and of
    the variables the user configured as holding keys (`api_key_env`)."""
    wanted = set(extra_names)
    found: dict[str, str] = {}
    for name, value in environ.items():
        if name in NOT_SECRET_NAMES:
            continue
        if (name in wanted or KEY_LIKE_NAME.search(name)) and could_be_secret(value):
            found.setdefault(value, f"value of {name}")
    return found


def env_files(root: Path) -> list[tuple[Path, str]]:
    """(path, shown) of the `.env*` files at the project's top and one folder down."""
    found: list[tuple[Path, str]] = []
    for folder, prefix in [(root, ""), *_subfolders(root)]:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        found += [(Path(e.path), prefix + e.name) for e in entries
                  if is_env_file(e.name) and not e.is_dir(follow_symlinks=False)]
    return sorted(found)


def _subfolders(root: Path) -> list[tuple[Path, str]]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    return [(Path(e.path), e.name + "/") for e in entries
            if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
            and e.name not in ("node_modules", "__pycache__", "target", "dist", "build")]
