"""Runner profiles (seed 000): `[profiles.NAME]` in config and `external-agents.json`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.core.errors import ConfigError, UsageError
from valarmind_tui.settings.config import AgentProfile, Settings

EXTERNAL_AGENTS_FILE = "external-agents.json"


@dataclass(frozen=True)
class Profile:
    """A resolved profile: what `valarmind run --agent NAME` runs."""

    name: str
    model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    max_turns: int = 50
    mcp_servers: tuple[str, ...] = ()
    tool_overrides: dict[str, list[str]] = field(default_factory=dict)
    tools: tuple[str, ...] | None = None
    mcp_server_configs: dict[str, dict] = field(default_factory=dict)
    """MCP server definitions that came with an external-agents.json file."""
    from_repository: bool = False
    """Defined by the project's external-agents.json: it may not change a built-in agent."""
    ignored: tuple[str, ...] = ()
    """Fields of the repository's definition that were not used (endpoints, key variables)."""


def _from_config(name: str, p: AgentProfile) -> Profile:
    return Profile(
        name=name, model=p.model, api_base=p.api_base, api_key_env=p.api_key_env,
        max_turns=p.max_turns, mcp_servers=tuple(p.mcp_servers),
        tool_overrides=dict(p.tool_overrides), tools=tuple(p.tools) if p.tools else None,
    )


def load_external_agents(path: Path) -> dict[str, Profile]:
    """Profiles from seed 000's `external-agents.json` format, a file of the repository's: its
    endpoints (`baseURL`) and key variables (`apiKeyEnv`) are never used, since they would send
    the user's key where the repository says. Set those in `[profiles.NAME]` of your config."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    servers = data.get("mcpServers", {})
    profiles: dict[str, Profile] = {}
    for name, raw in data.get("agents", {}).items():
        model = raw.get("model")
        if model and "/" not in model and raw.get("provider", "openai-compat") == "openai-compat":
            model = f"openai/{model}"
        wanted = tuple(raw.get("mcpServers", []))
        ignored = tuple(k for k in ("baseURL", "apiKeyEnv") if raw.get(k))
        profiles[name] = Profile(
            name=name, model=model, max_turns=int(raw.get("maxTurns", 50)), mcp_servers=wanted,
            tool_overrides=dict(raw.get("toolOverrides", {})),
            mcp_server_configs={n: servers[n] for n in wanted if n in servers},
            from_repository=True, ignored=ignored,
        )
    return profiles


def all_profiles(settings: Settings, root: Path) -> dict[str, Profile]:
    """Config profiles, over the project's external-agents.json when the project is trusted."""
    profiles = (
        load_external_agents(root / EXTERNAL_AGENTS_FILE) if settings.project_trusted else {}
    )
    profiles.update({n: _from_config(n, p) for n, p in settings.profiles.items()})
    return profiles


def resolve_profile(settings: Settings, root: Path, name: str) -> Profile:
    """The named profile; unknown names are a UsageError listing the known ones."""
    profiles = all_profiles(settings, root)
    if name in profiles:
        return profiles[name]
    known = ", ".join(sorted(profiles)) or "none configured"
    raise UsageError(
        f"unknown agent {name!r}. Known agents: {known}. Define one under [profiles.{name}] in "
        f".valarmind/config.toml or in {EXTERNAL_AGENTS_FILE}."
    )
