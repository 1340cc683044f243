"""The environment an MCP server child process gets: an allowlist, never our whole environment.

Seed 000: HOME, PATH, USER and NODE_PATH, plus the names a server opts into (`env_passthrough`)
and the values its config sets explicitly. API keys in ValarMind's environment stay with us.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from valarmind_tui.config import McpServerConfig

BASE_ALLOWLIST: tuple[str, ...] = ("HOME", "PATH", "USER", "NODE_PATH")


def child_env(config: McpServerConfig, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The complete environment for a stdio server started from `config`."""
    source = os.environ if environ is None else environ
    env: dict[str, str] = {}
    for name in (*BASE_ALLOWLIST, *config.env_passthrough):
        value = source.get(name)
        # Exported shell functions look like "() { ...": never forward them.
        if value is not None and not value.startswith("()"):
            env[name] = value
    env.update(config.env)
    return env
