"""Which MCP servers exist: `[mcp.servers.NAME]` in config plus the project's `.mcp.json`.

`.mcp.json` is the format people already keep in their projects:
`{"mcpServers": {NAME: {"command": ..., "args": [...], "env": {...}}}}`, or `{"type": "http",
"url": ...}` for a remote server. The file is the repository's, so it is read only for trusted
projects, and `${VAR}` / `${VAR:-default}` expand only names the user listed in `mcp.project_env`
(anything else expands to its default, or nothing): a cloned repository cannot ask for your keys.
Config wins over the file for a name defined in both.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from valarmind_tui.core.errors import ConfigError
from valarmind_tui.settings.config import McpServerConfig, McpSettings, Settings, read_config_text

MCP_JSON = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

# camelCase spellings used by seed 000's external-agents.json, accepted in .mcp.json too.
_ALIASES = {"toolAllowlist": "tool_allowlist", "envPassthrough": "env_passthrough",
            "timeout": "timeout_s", "samplingTimeout": "sampling_timeout_s",
            "toolTimeout": "tool_timeout_s"}


def _expander(allowed: frozenset[str]) -> Any:
    def expand(value: str) -> str:
        def one(m: re.Match[str]) -> str:
            value = os.environ.get(m.group(1)) if m.group(1) in allowed else None
            return value if value is not None else (m.group(2) or "")

        return _VAR.sub(one, value)

    return expand


def _entry(name: str, raw: Any, path: Path, allowed_env: frozenset[str]) -> McpServerConfig:
    if not isinstance(raw, dict):
        raise ConfigError("a server entry must be an object", file=path, key=f"mcpServers.{name}")
    data: dict[str, Any] = {}
    for key, value in raw.items():
        key = _ALIASES.get(key, key)
        if key in ("type", "transport", "headers", "disabled"):
            continue
        if (key in ("timeout_s", "tool_timeout_s") and isinstance(value, int | float)
                and value > 1000):
            value = value / 1000  # Claude Code writes milliseconds
        data[key] = value
    _expand = _expander(allowed_env)
    if isinstance(data.get("env_passthrough"), list):
        data["env_passthrough"] = [n for n in data["env_passthrough"] if n in allowed_env]
    if isinstance(data.get("command"), str):
        data["command"] = _expand(data["command"])
    data["args"] = [_expand(str(a)) for a in data.get("args", [])]
    data["env"] = {str(k): _expand(str(v)) for k, v in (data.get("env") or {}).items()}
    if isinstance(data.get("url"), str):
        data["url"] = _expand(data["url"])
    try:
        return McpServerConfig.model_validate(data)
    except Exception as exc:  # pydantic ValidationError: name the file and the server
        raise ConfigError(str(exc).splitlines()[0], file=path, key=f"mcpServers.{name}") from None


def read_mcp_json(
    path: Path, allowed_env: frozenset[str] | set[str] = frozenset()
) -> dict[str, McpServerConfig]:
    """Servers defined in one `.mcp.json`-style file; {} when it does not exist.

    Only `allowed_env` names expand or pass through (see the module docstring)."""
    text = read_config_text(path)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else {}
    if not isinstance(servers, dict):
        raise ConfigError("mcpServers must be an object", file=path, key="mcpServers")
    return {
        name: _entry(name, raw, path, frozenset(allowed_env))
        for name, raw in servers.items()
        if not (isinstance(raw, dict) and raw.get("disabled"))
    }


def server_configs(
    settings: McpSettings, project_root: Path, *, trusted: bool = False
) -> dict[str, McpServerConfig]:
    """Every configured server by name: `.mcp.json` first (trusted projects only), then config
    (which wins)."""
    merged = (
        read_mcp_json(project_root / MCP_JSON, frozenset(settings.project_env)) if trusted else {}
    )
    merged.update(settings.servers)
    return merged


def user_servers(settings: Settings) -> frozenset[str]:
    """Servers defined in the user's own config."""
    return frozenset(settings.mcp.servers) - settings.project_mcp_servers


def believed_servers(settings: Settings, servers: dict[str, McpServerConfig]) -> frozenset[str]:
    """The servers whose tool annotations (readOnlyHint) are believed: the user's own, and a
    trusted project's stdio servers (`.mcp.json`, its config.toml). Trusting the project already
    lets its server command run with your rights, so a lying hint adds nothing; a project's
    HTTP server is not believed, since a lying hint would let the model send your data to a
    remote endpoint without asking. An untrusted project's servers are not loaded at all."""
    own = user_servers(settings)
    project = {name for name, config in servers.items()
               if name not in own and settings.project_trusted and not config.url}
    return own | frozenset(project)


def sampling_timeouts(servers: dict[str, McpServerConfig]) -> dict[str, float]:
    """The servers whose config sets their own sampling time limit."""
    return {name: c.sampling_timeout_s for name, c in servers.items()
            if c.sampling_timeout_s is not None}
