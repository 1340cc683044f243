"""The environment an MCP server child process gets: the shared allowlist, plus the names a
server opts into (`env_passthrough`) and the values its config sets explicitly."""

from __future__ import annotations

from collections.abc import Mapping

from valarmind_tui.safety.child_env import child_env as _child_env
from valarmind_tui.settings.config import McpServerConfig


def child_env(config: McpServerConfig, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The complete environment for a stdio server started from `config`."""
    return _child_env(passthrough=config.env_passthrough, explicit=config.env, environ=environ)
