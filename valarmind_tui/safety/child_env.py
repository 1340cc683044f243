"""The one environment every child process gets: tools, hooks, git, the sandbox, MCP servers.

An allowlist, never our whole environment: API keys, tokens and other secrets in ValarMind's
environment stay with us unless a child was configured to receive one by name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

ENV_ALLOWLIST = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "SHELL", "TMPDIR", "TEMP",
    "TMP", "TZ", "VIRTUAL_ENV", "CONDA_PREFIX", "COLORTERM", "EDITOR", "VISUAL", "DISPLAY",
    "XDG_RUNTIME_DIR", "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME",
    "NVM_DIR", "JAVA_HOME", "PYENV_ROOT", "NODE_PATH",
})
"""What a child process may see of our environment; `LC_*` passes too. API keys never do."""
SECRETISH = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRETISH)


def child_env(
    cwd: Path | None = None, *, passthrough: Iterable[str] = (),
    explicit: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a child process.

    Allowlisted names (and `LC_*`) pass unless they look like secrets; `passthrough` names pass
    as they are (the user named them for this child); `explicit` values are set last. Exported
    shell functions (values starting `()`) never pass. With `cwd`, PWD is set and pagers and git
    prompts are turned off, as a command run for the agent needs."""
    source = os.environ if environ is None else environ
    asked = set(passthrough)
    env: dict[str, str] = {}
    for name, value in source.items():
        if value.startswith("()"):
            continue
        if name in asked or (
            (name in ENV_ALLOWLIST or name.startswith("LC_")) and not looks_secret(name)
        ):
            env[name] = value
    env.setdefault("PATH", os.defpath)
    if cwd is not None:
        env.update(PWD=str(cwd), PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    env.update(explicit or {})
    return env
