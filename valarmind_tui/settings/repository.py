"""What a trusted repository's own config may not set, and the filtering that enforces it.

A repository never sets the mode, endpoints, key variables, which model an agent uses, the sandbox
or the trust lists; its MCP servers pass through only the variables the user allowed and may not
reuse a user's server name (trust.py decides whether its config is read at all).
"""

from __future__ import annotations

from typing import Any

REPOSITORY_FORBIDDEN = (
    "permission_mode", "api_base", "api_key_env", "agent_models", "sandbox", "sandbox_network",
    "sandbox_home", "goal_stall_rounds", "goal_max_rounds",
    "allow_project_commands", "allow_sampling", "reviewers", "checkpoints", "budget",
    "trusted_projects", "untrusted_projects", "trusted_plugin_projects", "mcp.project_env",
    "profiles.*.api_base", "profiles.*.api_key_env", "profiles.*.model", "lsp",
    "search",
    "fallback_models", "alias_fallbacks", "status_line", "notifications", "notify_after_s",
    "model_daemon", "model_daemon_idle_s",
)
"""What a repository's config may never set, even when trusted: the mode, endpoints, key
variables, which model a built-in agent uses or falls back to, the sandbox, the reviewers, the
budget, the trust lists, the language servers (`[lsp]` names programs to run), the status
line's command and how the person's terminal calls them back."""


def strip_forbidden(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The project layer without REPOSITORY_FORBIDDEN keys, and the keys that were dropped."""
    kept = {k: v for k, v in data.items() if k not in REPOSITORY_FORBIDDEN}
    dropped = [k for k in data if k in REPOSITORY_FORBIDDEN]
    mcp = kept.get("mcp")
    if isinstance(mcp, dict) and "project_env" in mcp:
        kept["mcp"] = {k: v for k, v in mcp.items() if k != "project_env"}
        dropped.append("mcp.project_env")
    profiles = kept.get("profiles")
    if isinstance(profiles, dict):
        cleaned: dict[str, Any] = {}
        for name, profile in profiles.items():
            if isinstance(profile, dict):
                bad = [k for k in ("api_base", "api_key_env", "model") if k in profile]
                dropped += [f"profiles.{name}.{k}" for k in bad]
                profile = {k: v for k, v in profile.items() if k not in bad}
            cleaned[name] = profile
        kept["profiles"] = cleaned
    return kept, dropped


def _mcp_servers(data: dict[str, Any]) -> dict[str, Any]:
    mcp = data.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return servers if isinstance(servers, dict) else {}


def allowed_project_servers(
    data: dict[str, Any], user: dict[str, Any], ignored: list[str]
) -> frozenset[str]:
    """A project's `[mcp.servers]` may pass through only the names the user allowed
    (`mcp.project_env`), and may not redefine a server of the user's own config."""
    servers = _mcp_servers(data)
    user_mcp = user.get("mcp") if isinstance(user.get("mcp"), dict) else {}
    allowed_env = user_mcp.get("project_env", []) if isinstance(user_mcp, dict) else []
    for name in [n for n in servers if n in _mcp_servers(user)]:
        del servers[name]
        ignored.append(f"mcp.servers.{name}")
    for server in servers.values():
        if isinstance(server, dict) and isinstance(server.get("env_passthrough"), list):
            server["env_passthrough"] = [
                n for n in server["env_passthrough"] if n in allowed_env
            ]
    return frozenset(servers)
