"""Every git ValarMind starts on a project goes through `harden`: the repository's own config
never chooses a program git runs, and git never leaves the project.

Why this way. git always reads the repository's config (`.git/config`, `config.worktree` under
`extensions.worktreeConfig`, and every file an `include.path` or `includeIf` there names); no
environment variable turns that off, and a value can be overridden (the command scope,
`GIT_CONFIG_COUNT`, is read last) but never removed. So ValarMind asks git which config it would
read (`git config --list --show-scope --show-origin --includes`, which runs nothing) and looks at
every key the repository's scopes set, whichever file set it:

- a key that names a program (PROGRAM_KEYS: signing programs, filters, diff and merge drivers,
  SSH and proxy commands, credential helpers, remote-side pack programs, pagers, editors...) is
  overridden by name through GIT_CONFIG_COUNT with the person's own value (their global or
  system config) or a harmless default; FIXED turns off hooks, fsmonitor, external diffs and
  (for reads) every transport, whatever the config says;
- a commit or a push refuses (RepositoryRefused, naming the key and its file) when the
  repository sets a program those would run (`refused` in PROGRAM_KEYS) to anything but the
  person's own value: committing without the repository's signing or filter, unsaid, would be
  worse;
- GIT_DIR and GIT_WORK_TREE are pinned to the project (so `core.worktree` and `core.bare` do
  not move it) and GIT_CEILING_DIRECTORIES stops git above it. `.git` must be a folder in the
  project, or point (a `gitdir:` file, `commondir`) into it, or be a linked worktree or a
  submodule its repository registered (the link must go both ways); anything else is refused.

Trust: the person's own config is theirs and applies (their signing, credential helper, lfs
filters); the repository's never names a program, trusted or not. Trust lets `valarmind commit`
run the repository's hooks (`run_hooks`), from `core.hooksPath` too when it stays in the project.
Reads ignore the system config (as before); a commit or push keeps it (a platform's credential
helper lives there).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.core.safe_files import read_regular_text
from valarmind_tui.safety.child_env import child_env

LIST_TIMEOUT_S = 10.0
FIXED = (
    ("core.fsmonitor", "false"), ("diff.external", ""), ("core.pager", "cat"),
    ("core.quotepath", "off"), ("color.ui", "never"), ("log.showSignature", "false"),
    ("submodule.recurse", "false"), ("diff.ignoreSubmodules", "all"),
    ("core.alternateRefsCommand", "true"),
)
"""Always: no fsmonitor, external diff, pager, signature check; submodules (whose own config
would name its own programs) are not entered."""
NO_HOOKS = ("core.hooksPath", os.devnull)
NO_TRANSPORT = ("protocol.allow", "never")
PUSH_TRANSPORT = (("protocol.ext.allow", "never"), ("protocol.fd.allow", "never"))
SAFE_FLAGS = tuple(arg for key, value in (*FIXED, NO_HOOKS, NO_TRANSPORT)
                   for arg in ("-c", f"{key}={value}"))
"""FIXED as `-c` flags, for a repository of ValarMind's own (checkpoints' shadow)."""
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_ATTR_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0"}
REPOSITORY_SCOPES = frozenset({"local", "worktree"})
USER_SCOPES = frozenset({"global", "system"})


class Purpose(Enum):
    READ = "read"
    """status, diff, show, cat-file...: no hooks, no transport, programs neutralised."""
    COMMIT = "commit"
    PUSH = "push"


@dataclass(frozen=True)
class Rule:
    default: str
    """The value when the person's own config has none: runs nothing."""
    refused: bool = False
    """A commit or push refuses when the repository sets it."""
    multi: bool = False
    """A list (credential helpers): an empty value resets it, the person's own are re-added."""


PROGRAM_KEYS: tuple[tuple[re.Pattern[str], Rule], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE | re.DOTALL), rule) for pattern, rule in (
        (r"gpg\.(openpgp\.)?program", Rule("gpg", refused=True)),
        (r"gpg\.x509\.program", Rule("gpgsm", refused=True)),
        (r"gpg\.ssh\.program", Rule("ssh-keygen", refused=True)),
        (r"gpg\.ssh\.defaultkeycommand", Rule("", refused=True)),
        (r"filter\..*\.(clean|smudge|process)", Rule("", refused=True)),
        (r"core\.sshcommand", Rule("ssh", refused=True)),
        (r"core\.gitproxy", Rule("none", refused=True)),
        (r"core\.askpass", Rule("", refused=True)),
        (r"credential(\..*)?\.helper", Rule("", refused=True, multi=True)),
        (r"remote\..*\.uploadpack", Rule("git-upload-pack", refused=True)),
        (r"remote\..*\.receivepack", Rule("git-receive-pack", refused=True)),
        (r"(remote\..*|http(\..*)?)\.proxy", Rule("", refused=True)),
        (r"diff\..*\.(command|textconv)", Rule("")),
        (r"merge\..*\.driver", Rule("false")),
        (r"(core|sequence)\.editor", Rule(":")),
        (r"pager\..*", Rule("false")),
    ))
"""Keys naming a program git may run (or, for proxies, where a push's traffic goes)."""


class RepositoryRefused(ValarMindError):
    """The project's git repository points outside it, or its config names a program a
    commit or push would run: the message says which and what to do."""


@dataclass(frozen=True)
class ConfigEntry:
    scope: str
    origin: str
    key: str
    value: str


@dataclass(frozen=True)
class HardenedGit:
    """How to run git in one project: `[*argv, subcommand, ...]` with `env`."""

    root: Path
    git_dir: Path | None
    """None: the project is not a git repository (git will say so)."""
    env: dict[str, str]
    argv: tuple[str, ...] = ("git", "--no-pager")


def harden(root: Path, purpose: Purpose = Purpose.READ, *, run_hooks: bool = False,
           environ: Mapping[str, str] | None = None) -> HardenedGit:
    """The argv and environment for git in `root` (blocking: runs `git config --list` once).
    Raises RepositoryRefused (see the module docstring)."""
    root = root.resolve()
    env = child_env(root, environ=environ)
    env.update(GIT_ENV)
    if purpose is not Purpose.READ:
        env.pop("GIT_CONFIG_NOSYSTEM")
        env.pop("GIT_OPTIONAL_LOCKS")
    env["GIT_CEILING_DIRECTORIES"] = str(root.parent)
    git_dir = locate_git_dir(root)
    if git_dir is None:
        return HardenedGit(root, None, env)
    env.update(GIT_DIR=str(git_dir), GIT_WORK_TREE=str(root))
    entries = read_config(root, env)
    pairs, refused = _overrides(entries, purpose, run_hooks, root)
    if refused:
        raise RepositoryRefused(_refusal(refused, root))
    env.update(config_env(pairs))
    if any(e.key == "core.gitproxy" for e in entries if e.scope in REPOSITORY_SCOPES):
        env["GIT_PROXY_COMMAND"] = ""  # first match wins there: no later value overrides it
    return HardenedGit(root, git_dir, env)


async def harden_async(root: Path, purpose: Purpose = Purpose.READ, *,
                       run_hooks: bool = False) -> HardenedGit:
    import asyncio  # the map's scan runs git with no event loop: ~20 ms of its start-up

    return await asyncio.to_thread(harden, root, purpose, run_hooks=run_hooks)


def locate_git_dir(root: Path) -> Path | None:
    """The git directory of the project at `root` (resolved), None when there is none.
    RepositoryRefused when `.git` leads outside the project other than to a linked worktree or
    submodule its repository registered."""
    dot = root / ".git"
    if not os.path.lexists(dot):
        return None
    if dot.is_symlink() or not (dot.is_dir() or dot.is_file()):
        target = dot.resolve()
        if not dot.is_dir() or not _inside(target, root):
            raise RepositoryRefused(f"{dot} is not a folder of the project (it leads to "
                                    f"{target}); ValarMind runs git only on the project's own "
                                    "repository")
    if dot.is_dir():
        git_dir = dot.resolve()
        _check_commondir(git_dir, root, linked=False)
        return git_dir
    try:
        text = read_regular_text(dot, errors="replace")
    except OSError as exc:
        raise RepositoryRefused(f"{dot} cannot be read: {exc}") from exc
    if not text.startswith("gitdir:"):
        raise RepositoryRefused(f"{dot} is a file but not a `gitdir:` link")
    git_dir = (root / text.split(":", 1)[1].strip()).resolve()
    if not git_dir.is_dir():
        raise RepositoryRefused(f"{dot} points to {git_dir}, which is not a git directory")
    if _inside(git_dir, root):
        _check_commondir(git_dir, root, linked=False)
    elif _registered_worktree(git_dir, root):
        _check_commondir(git_dir, root, linked=True)
    elif not _registered_submodule(git_dir, root):
        raise RepositoryRefused(
            f"{dot} points to {git_dir}, outside the project, and that repository does not "
            "list this folder as one of its worktrees or submodules; ValarMind runs git only "
            "on the project's own repository")
    return git_dir


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _read_link(path: Path) -> str | None:
    try:
        return read_regular_text(path, errors="replace").strip()
    except OSError:
        return None


def _registered_worktree(git_dir: Path, root: Path) -> bool:
    """`git worktree add` writes both links: `.git` → <common>/worktrees/<name>, and that
    folder's `gitdir` → the worktree's `.git`."""
    back = _read_link(git_dir / "gitdir")
    return (back is not None and git_dir.parent.name == "worktrees"
            and (git_dir / back).resolve() == (root / ".git").resolve())


def _registered_submodule(git_dir: Path, root: Path) -> bool:
    """A submodule's git directory (<super>/.git/modules/<name>) names its work tree."""
    if "modules" not in git_dir.parts or not (git_dir / "config").is_file():
        return False
    found = subprocess.run(["git", "config", "--file", str(git_dir / "config"), "--get",
                            "core.worktree"], capture_output=True, text=True,
                           env=child_env(root), timeout=LIST_TIMEOUT_S, stdin=subprocess.DEVNULL)
    value = found.stdout.strip()
    return bool(value) and (git_dir / value).resolve() == root


def _check_commondir(git_dir: Path, root: Path, *, linked: bool) -> None:
    """`commondir` names where config, objects and refs live: in the project, or for a
    registered linked worktree, the repository that registered it."""
    value = _read_link(git_dir / "commondir")
    if value is None:
        if os.path.lexists(git_dir / "commondir"):
            raise RepositoryRefused(f"{git_dir / 'commondir'} is not a regular file")
        return
    common = (git_dir / value).resolve()
    if linked and common == git_dir.parent.parent:
        return
    if not _inside(common, root):
        raise RepositoryRefused(f"{git_dir / 'commondir'} points to {common}, outside the "
                                "project; ValarMind runs git only on the project's own repository")


def check_push_target(root: Path, url: str) -> None:
    """A push to a local repository runs that repository's hooks (pre-receive, update) as the
    person, with its own config; one inside the project (which a sandboxed command can write)
    is refused."""
    if "::" in url.split("/", 1)[0]:
        return  # a remote helper (`transport::address`), not a path
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() != "file":
        return
    colon, slash = url.find(":"), url.find("/")
    if not sep and colon >= 0 and not 0 <= slash < colon:
        return  # scp-like `host:path`
    path = (root / (rest if sep else url)).resolve()
    if _inside(path, root):
        raise RepositoryRefused(
            f"the push goes to {url}, a repository inside the project: git would run its hooks "
            "outside the sandbox. Push to a remote outside the project")


def read_config(root: Path, env: Mapping[str, str]) -> list[ConfigEntry]:
    """Every config entry git would read for this repository, with its scope and file."""
    try:
        done = subprocess.run(
            ["git", "--no-pager", "config", "--list", "--show-scope", "--show-origin",
             "--includes", "-z"], cwd=root, env=dict(env), capture_output=True,
            timeout=LIST_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise RepositoryRefused("reading the repository's git config took longer than "
                                f"{LIST_TIMEOUT_S:.0f} s (an include names a pipe?)") from exc
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        raise RepositoryRefused(f"git cannot read the repository's config: {said}")
    words = done.stdout.decode(errors="surrogateescape").split("\0")
    entries = []
    for i in range(0, len(words) - 2, 3):
        key, _, value = words[i + 2].partition("\n")
        entries.append(ConfigEntry(words[i], words[i + 1].removeprefix("file:"), key, value))
    return entries


def _rule(key: str) -> Rule | None:
    for pattern, rule in PROGRAM_KEYS:
        if pattern.fullmatch(key):
            return rule
    return None


def _overrides(entries: list[ConfigEntry], purpose: Purpose, run_hooks: bool,
               root: Path) -> tuple[list[tuple[str, str]], list[ConfigEntry]]:
    """(config pairs for the command scope, entries a commit or push refuses)."""
    repository = [e for e in entries if e.scope in REPOSITORY_SCOPES]
    own = [e for e in entries if e.scope in USER_SCOPES]
    pairs = list(FIXED)
    if purpose is Purpose.READ:
        pairs.append(NO_TRANSPORT)
    else:
        pairs += PUSH_TRANSPORT
    refused: list[ConfigEntry] = []
    if not run_hooks or purpose is Purpose.READ:
        pairs.append(NO_HOOKS)
    else:
        refused += [e for e in repository if e.key == "core.hookspath"
                    and not _inside((root / os.path.expanduser(e.value)).resolve(), root)]
    done: set[str] = set()
    for entry in repository:
        rule = _rule(entry.key)
        if rule is None or entry.key in done:
            continue
        done.add(entry.key)
        mine = [e.value for e in own if e.key == entry.key]
        if rule.multi:
            if not any(_rule(key) is rule for key in done - {entry.key}):
                pairs.append((entry.key.split(".")[0] + ".helper", ""))  # empties the list
                pairs += [(e.key, e.value) for e in own if _rule(e.key) is rule]
        else:
            pairs.append((entry.key, mine[-1] if mine else rule.default))
            if entry.key.startswith("filter."):
                pairs.append((entry.key.rsplit(".", 1)[0] + ".required", "false"))
        if rule.refused and purpose is not Purpose.READ and entry.value not in mine:
            refused.append(entry)
    return pairs, refused


def _refusal(refused: list[ConfigEntry], root: Path) -> str:
    named = ", ".join(f"{e.key} (in {_shown(e.origin, root)})" for e in refused)
    return (f"the repository's own git config sets {named}: a program git would run (or where "
            "a push goes). ValarMind never lets a repository's config choose one, trusted or "
            "not; set it in your own git config (~/.gitconfig) or remove it from the "
            "repository's")


def _shown(origin: str, root: Path) -> str:
    path = Path(origin)
    if not path.is_absolute():
        return origin
    try:
        return str(path.relative_to(root))
    except ValueError:
        return origin


def config_env(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """`GIT_CONFIG_*` variables for `pairs` (keys need no quoting, whatever a name holds)."""
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env
