"""What a sandboxed command sees of HOME, /run and the system's secrets.

HOME is hidden (an empty private tmpfs, as /tmp is: writable, thrown away with the command) and
only an allowlist comes back, read-only:
the toolchains, package caches and git config commands read (`HOME_ALLOWLIST`), what the person
adds in their user config (`sandbox_home`), and the folders the command's own interpreter,
PATH and virtualenv live in. A secret whose place nobody listed (a shell rc's exports, a new
CLI's token) stays hidden because nothing brings it back. The user's home from the password
database is hidden too when HOME points elsewhere (CI, containers).

/run (and `$XDG_RUNTIME_DIR`) is hidden whole: it holds the sockets of the container daemons,
the session bus, agents and keyrings, and `connect()` on a Unix socket works through a read-only
bind. What comes back: the resolver config `/etc/resolv.conf` links to (when the command has the
network) and PATH folders under /run (NixOS). Password hashes, sudo rules and SSH host keys are
covered by /dev/null or an empty folder (`SYSTEM_SECRETS`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

HOME_ALLOWLIST = (
    ".local/bin", ".local/lib", ".local/share/pipx", ".local/pipx", ".local/share/uv/python",
    ".local/share/uv/tools", ".local/share/virtualenvs", ".local/share/mise",
    ".local/share/fnm", ".local/share/pnpm", ".pyenv", ".rye", ".rustup", ".cargo/bin",
    ".cargo/registry", ".cargo/git", ".cargo/env", ".nvm", ".volta", ".bun/bin", ".deno",
    "go", ".m2/repository", ".gradle/caches", ".gradle/wrapper",
    ".sdkman/candidates", ".jdks", ".rbenv", ".asdf", ".elan", ".ghcup/bin", ".dotnet",
    ".nuget/packages", "miniconda3", "anaconda3", "miniforge3", ".conda/envs", ".conda/pkgs",
    ".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
)
"""Read back under the hidden HOME: toolchains and their package caches, never their
credentials (`~/.cargo/credentials.toml`, `~/.m2/settings.xml`, `~/.gradle/gradle.properties`,
`~/.npmrc` stay hidden). Git's config comes back so commits keep the person's name; a
credential helper named there is no secret, the credentials it reads are."""
HOME_SECRETS = (
    ".ssh", ".aws", ".gnupg", ".netrc", ".docker", ".kube", ".azure", ".git-credentials",
    ".pypirc", ".npmrc", ".yarnrc", ".pgpass", ".my.cnf", ".vault-token", ".password-store",
    ".terraform.d", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
    ".config/gcloud", ".config/gh", ".config/hub", ".config/op", ".config/rclone",
    ".config/git/credentials", ".config/containers", ".local/share/containers",
    ".cache/huggingface", ".huggingface", ".config/valarmind", ".local/share/valarmind",
    ".local/share/keyrings", ".bash_history", ".zsh_history", ".python_history", ".mozilla",
    ".config/google-chrome", ".config/chromium", ".bashrc", ".zshrc", ".profile",
    ".bash_profile", ".zprofile", ".zshenv", ".m2/settings.xml", ".gradle/gradle.properties",
)
"""Never brought back, and hidden again where the project itself holds HOME (a session
started in ~): with HOME inside the project the allowlist cannot apply."""
SYSTEM_SECRETS = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
    "/etc/sudoers.d", "/etc/security/opasswd", "/var/run/docker.sock",
    "/var/snap/lxd/common/lxd/unix.socket", "/var/lib/lxd/unix.socket",
)
"""Covered whatever the user: password hashes, sudo rules, daemons' sockets outside /run."""
SSH_HOST_KEYS = "/etc/ssh/ssh_host_*_key"


def home_folders(env: Mapping[str, str]) -> list[str]:
    """The folders hidden as HOME: `$HOME` and the user's home in the password database."""
    found = [env.get("HOME") or os.environ.get("HOME", "")]
    with contextlib.suppress(KeyError):
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    real = [os.path.realpath(p) for p in found if p and os.path.isabs(p)]
    return [p for p in dict.fromkeys(real) if p != "/" and os.path.isdir(p)]


def runtime_folders(env: Mapping[str, str]) -> list[str]:
    """/run, /var/run when it is not a link to it, and `$XDG_RUNTIME_DIR`."""
    found = ["/run", "/var/run", env.get("XDG_RUNTIME_DIR", ""),
             os.environ.get("XDG_RUNTIME_DIR", "")]
    real = [p for p in found if p and os.path.isabs(p) and os.path.isdir(p)
            and not os.path.islink(p)]
    folders = [p for p in dict.fromkeys(os.path.realpath(p) for p in real) if p != "/"]
    return [p for p in folders if not any(within(p, other) for other in folders)]


def within(path: str, folder: str) -> bool:
    """`path` lies strictly inside `folder`."""
    return path.startswith(folder.rstrip("/") + "/")


def hide_args(homes: Sequence[str], runtime: Sequence[str], extra: Iterable[str],
              argv: Sequence[str], env: Mapping[str, str], *, network: bool) -> list[str]:
    """After `--ro-bind / /`: hide HOME and /run, bring back the allowlist and the command's
    tools, cover the system's secrets. End with `seal_args`."""
    args: list[str] = []
    for folder in [*homes, *runtime]:
        args += ["--tmpfs", folder]
    back = [os.path.join(home, rel) for home in homes for rel in HOME_ALLOWLIST]
    back += [os.path.join(home, rel) for home in homes for rel in extra if _inside(rel)]
    back = [path for path in back if os.path.exists(path)]
    back += tool_binds(argv, env, hidden=[*homes, *runtime, "/tmp"])
    if network:
        back += _resolver(runtime)
    for path in dict.fromkeys(back):
        if not any(within(path, other) for other in back):
            args += ["--ro-bind", path, path]
    args += cover([*SYSTEM_SECRETS, *sorted(glob.glob(SSH_HOST_KEYS))])
    return args


def seal_args(runtime: Sequence[str]) -> list[str]:
    """Last of all: the hidden /run read-only (bubblewrap makes the mount points of later binds
    in it). The hidden HOME stays writable, private and thrown away with the command: tools
    write their logs and caches there (npm's `~/.npm/_logs`, cargo's lock file)."""
    return [arg for folder in runtime for arg in ("--remount-ro", folder)]


def _inside(rel: str) -> bool:
    """A relative path strictly inside the folder it is relative to (the person's own
    `sandbox_home` entries: whatever they name, never HOME whole)."""
    norm = os.path.normpath(rel)
    return not (os.path.isabs(rel) or norm in (".", "") or norm.startswith(".."))


def _no_secret(rel: str) -> bool:
    """Inside, not one of HOME_SECRETS, and holding none (a folder found on PATH)."""
    norm = os.path.normpath(rel)
    return _inside(rel) and not any(_overlaps(norm, secret) for secret in HOME_SECRETS)


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def tool_binds(argv: Sequence[str], env: Mapping[str, str], *, hidden: Sequence[str]
               ) -> list[str]:
    """The folders of the command's interpreter, PATH and virtualenv that lie in a hidden folder
    (a clone and its .venv under /tmp, pyenv in HOME, NixOS's /run/current-system), to bind
    back read-only; never a hidden folder itself, nor one holding a secret of HOME."""
    wanted = [sys.prefix, sys.base_prefix, os.path.dirname(argv[0]) if argv else "",
              *env.get("PATH", "").split(os.pathsep), env.get("VIRTUAL_ENV", ""),
              env.get("CONDA_PREFIX", "")]
    wanted += _venv_homes(wanted)
    folders: list[str] = []
    for raw in dict.fromkeys(w for w in wanted if w and os.path.isabs(w) and os.path.isdir(w)):
        for path in dict.fromkeys([os.path.normpath(raw), os.path.realpath(raw)]):
            owner = next((h for h in hidden if within(path, h)), None)
            if owner is not None and _safe_tool_folder(owner, path):
                folders.append(path)
    return folders


def _venv_homes(folders: Sequence[str]) -> list[str]:
    """For a virtualenv's `bin`, the virtualenv and the prefix of the Python it was made from."""
    found: list[str] = []
    for folder in folders:
        if not folder or not os.path.isabs(folder):
            continue
        venv = os.path.dirname(folder.rstrip("/"))
        try:
            text = Path(venv, "pyvenv.cfg").read_text(errors="replace")
        except OSError:
            continue
        found.append(venv)
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                found.append(os.path.dirname(value.strip().rstrip("/")))
    return found


def _safe_tool_folder(owner: str, path: str) -> bool:
    return _no_secret(os.path.relpath(path, owner))


def _resolver(runtime: Sequence[str]) -> list[str]:
    """The file /etc/resolv.conf links to, when it lies under a hidden /run (systemd-resolved,
    NetworkManager, resolvconf): without it a command with the network cannot resolve names."""
    real = os.path.realpath("/etc/resolv.conf")
    if any(within(real, r) for r in runtime) and os.path.isfile(real):
        return [real]
    return []


def cover(paths: Iterable[str]) -> list[str]:
    """An empty read-only tmpfs over each existing directory, /dev/null over each other path."""
    args: list[str] = []
    for raw in dict.fromkeys(paths):
        if os.path.isdir(raw) and not os.path.islink(raw):
            args += ["--tmpfs", raw, "--remount-ro", raw]
        elif os.path.lexists(raw) and os.path.exists(raw):
            args += ["--ro-bind", "/dev/null", raw]
    return args
