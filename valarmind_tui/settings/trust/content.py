"""What a person trusts when they trust a folder: the content of its configuration.

`SOURCES` is the one list of the repository files that can make ValarMind run something or
change what it does; `fingerprint` reads them into one digest per file (what trust_record.py
keeps at trust time and compares at every load). A trusted folder's configuration loads only
while its fingerprint is the one the person trusted, however a file changed since: a sandboxed
command, a `git pull`, a checkout of another branch, an editor.

Git's side: a trusted project's `valarmind commit` runs the repository's git hooks and honours
its own git config, so the hooks git would run (`git rev-parse --git-path hooks`, which follows
`core.hooksPath` and linked worktrees) and the program-choosing keys of the repository's own
git config are part of the fingerprint too. git is asked with no system config and no program
of the repository's (`core.fsmonitor` off, no hooks): reading these runs nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.core.safe_files import NotRegular, open_regular


@dataclass(frozen=True)
class Source:
    """One file or folder (every file under it) at the project root."""

    path: str
    folder: bool = False
    skip: tuple[str, ...] = ()
    """Files under a folder that load whatever the trust decision (personal context)."""
    read: bool = True
    """False for another tool's configuration that ValarMind does not read yet: listed here so
    its reader turns this on in one place (until then it changes nothing ValarMind runs, and a
    change to it must not ask the person again)."""


SOURCES: tuple[Source, ...] = (
    Source(".valarmind", folder=True, skip=("local.md",)),
    Source(".mcp.json"),
    Source("external-agents.json"),
    Source("plugins", folder=True),
    *(Source(f"{tool}/{kind}", folder=True)  # what setup/ reads: commands, agents, skills
      for tool, kinds in ((".claude", ("commands", "agents", "skills")),
                          (".gemini", ("commands", "agents", "skills")),
                          (".opencode", ("commands", "command", "agents", "agent", "skills",
                                         "skill")),
                          (".agents", ("skills",)))
      for kind in kinds),
    Source(".claude/settings.json"),  # its hooks run commands, its allow rules loosen
    Source(".claude/settings.local.json"),
    Source(".claude/hooks", folder=True),  # where those hooks' scripts live by convention
    Source(".claude", folder=True, read=False),
    Source(".gemini", folder=True, read=False),
    Source(".codex", folder=True, read=False),
    Source(".opencode", folder=True, read=False),
    Source("opencode.json", read=False),
)
"""The repository configuration, relative to its root (git's hooks and config: see below)."""

GIT_HOOKS = "git hooks"
"""How the hooks git would run are named in a fingerprint: `git hooks/pre-commit`."""
GIT_CONFIG = "git config (programs)"
"""The program-choosing keys of the repository's own git config, as one entry."""
GIT_PROGRAM_KEYS = re.compile(
    r"^(core\.(fsmonitor|hookspath|sshcommand|gitproxy|askpass|pager|editor|worktree)"
    r"|gpg\..*|(filter|diff|merge|difftool|mergetool|credential)\..*"
    r"|remote\..*\.(receivepack|uploadpack)|include\.path|includeif\..*"
    r"|extensions\.worktreeconfig)$", re.IGNORECASE)
"""Keys of `.git/config` (and `config.worktree`) that choose a program git runs, or where more
config comes from."""
MAX_FILES = 5000
MAX_BYTES = 64 * 1024 * 1024
"""Files and bytes read per folder. A folder past either (a link to `/` in `plugins/`) is too
large to fingerprint: its entry (`TOO_LARGE`) never matches, so it never loads as trusted
(what is past a cap could change unseen)."""
TOO_LARGE = "…"
GIT_TIMEOUT_S = 10.0


@dataclass
class Fingerprint:
    """One digest per file of the repository configuration, and the files' text."""

    digests: dict[str, str] = field(default_factory=dict)
    """Name (`plugins/x.py`, `git hooks/pre-commit`) → sha256 of what loads."""
    texts: dict[str, bytes] = field(default_factory=dict)
    """The content read, for the copy trust_record.py keeps (it decides what is kept)."""

    def __bool__(self) -> bool:
        return bool(self.digests)


def fingerprint(root: Path) -> Fingerprint:
    """Read the repository configuration of `root` (resolved) as it is now."""
    found = Fingerprint()
    for source in SOURCES:
        if source.read:
            _add(found, root / source.path, source.path, source.folder, source.skip)
    for rel in nested_agents_skills(root):
        _add(found, root / rel, rel, folder=True, skip=())
    hooks = git_hooks_dir(root)
    if hooks is not None:
        _add(found, hooks, GIT_HOOKS, folder=True, skip=(), hooks=True)
    config = git_program_config(root)
    if config:
        _digest(found, GIT_CONFIG, config)
    return found


def present(root: Path) -> tuple[str, ...]:
    """The configuration files and folders that exist under `root` (what the trust question
    names); git's own files are left out here: every repository has a `.git`."""
    return tuple(s.path for s in SOURCES if s.read and _exists(root / s.path))


def _exists(path: Path) -> bool:
    try:
        return path.is_file() or (path.is_dir() and any(path.iterdir()))
    except OSError:
        return False


def _add(found: Fingerprint, path: Path, name: str, folder: bool, skip: tuple[str, ...],
         hooks: bool = False) -> None:
    if not folder:
        if os.path.lexists(path):
            _add_file(found, path, name)
        return
    if not path.is_dir():
        return
    count = size = 0
    for here, dirnames, filenames in _walk(path):
        for entry in dirnames:
            if (here / entry).is_symlink():  # where a linked folder points
                _add_file(found, here / entry, f"{name}/{(here / entry).relative_to(path)}")
        for filename in filenames:
            rel = (here / filename).relative_to(path).as_posix()
            if rel in skip or (hooks and filename.endswith(".sample")):
                continue  # git runs a hook only by its exact name
            count += 1
            size += _size(here / filename)
            if count > MAX_FILES or size > MAX_BYTES:
                too_large = f"more than {MAX_FILES} files or {MAX_BYTES >> 20} MB"
                _digest(found, f"{name}/{TOO_LARGE}", secrets.token_bytes(16))
                found.texts[f"{name}/{TOO_LARGE}"] = too_large.encode()
                return
            _add_file(found, here / filename, f"{name}/{rel}")


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _walk(top: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Each folder under `top` with its folders and files, sorted; symlinked folders are
    entered (the loaders follow them: `.valarmind/agents` may point elsewhere), each real
    folder once; one that vanishes meanwhile is left out. A generator: the caps stop it (a
    link to `/` is not walked whole)."""
    seen: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(top, followlinks=True):
        try:
            info = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        if (info.st_dev, info.st_ino) in seen:
            dirnames[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        dirnames.sort()
        yield Path(dirpath), list(dirnames), sorted(filenames)


def _add_file(found: Fingerprint, path: Path, name: str) -> None:
    """What loads from one file: its content (symlinks followed, as the loaders do), whether it
    is executable (a hook runs only then) and, for a link, where it points."""
    prefix = b""
    try:
        if path.is_symlink():
            prefix = b"link:" + os.fsencode(os.readlink(path)) + b"\n"
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            _digest(found, name, prefix + b"a folder")
            return
        if info.st_mode & stat.S_IXUSR:
            prefix += b"executable\n"
        with open_regular(path, name) as handle:
            content = handle.read()
    except NotRegular as exc:
        _digest(found, name, prefix + str(exc).encode())
        return
    except OSError as exc:
        _digest(found, name, prefix + f"unreadable: {exc.strerror}".encode())
        return
    _digest(found, name, prefix + content)
    found.texts[name] = content


def _digest(found: Fingerprint, name: str, data: bytes) -> None:
    found.digests[name] = hashlib.sha256(data).hexdigest()
    found.texts.setdefault(name, data)


def _git(root: Path, *args: str) -> str | None:
    """git's answer in `root` with no system config, no hooks and no fsmonitor; None when git
    is missing, `root` is no repository or git failed."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", ""),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    argv = ["git", "-c", "core.fsmonitor=false", "-C", str(root), *args]
    try:
        done = subprocess.run(argv, capture_output=True, env=env, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="surrogateescape")


def nested_agents_skills(root: Path) -> tuple[str, ...]:
    """The `.agents/skills` folders below the root's own (`packages/api/.agents/skills`)
    holding files git tracks or would track (ignored ones are left out): setup.skills loads
    those between the cwd and the root, and only these, so what loads is what was trusted."""
    out = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
               ":(glob)**/.agents/skills/**") or ""
    marker = "/.agents/skills/"
    folders = {path[: path.index(marker) + len(marker) - 1]
               for path in out.split("\0") if marker in path}  # the root's own has no "/" before it
    return tuple(sorted(folders))


def git_hooks_dir(root: Path) -> Path | None:
    """The folder git takes hooks from in `root` (None outside a repository; `root` may be
    a folder inside one: a commit there runs the repository's hooks)."""
    out = _git(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
    return Path(out.strip()) if out and out.strip() else None


def git_program_config(root: Path) -> bytes:
    """The program-choosing entries of the repository's own git config (scopes local and
    worktree, files they include too), one `scope: key=value` per line in git's order."""
    out = _git(root, "config", "--list", "--show-scope", "-z") or ""
    fields = out.split("\0")
    rows: list[str] = []
    for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        key = entry.split("\n", 1)[0]
        if scope in ("local", "worktree") and GIT_PROGRAM_KEYS.match(key):
            rows.append(f"{scope}: {entry.replace(chr(10), '=', 1)}")
    return "\n".join(rows).encode("utf-8", errors="surrogateescape")
