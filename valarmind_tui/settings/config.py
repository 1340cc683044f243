"""Settings: user TOML, then project TOML, then VALARMIND_* environment, then flags.

Loaded once by cli.py and passed down. A bad file is a ConfigError naming file, line and key.
"""

from __future__ import annotations

import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from valarmind_tui.core.errors import ConfigError
from valarmind_tui.core.safe_files import read_regular_text
from valarmind_tui.core.user_dirs import user_config_dir
from valarmind_tui.settings.budget import BudgetSettings
from valarmind_tui.settings.environment import NESTED, PREFIX, environment_values
from valarmind_tui.settings.lsp import LspSettings
from valarmind_tui.settings.repository import allowed_project_servers, strip_forbidden
from valarmind_tui.settings.sections import (  # noqa: F401 - the tables are imported from here
    HOOK_EVENTS,
    AgentProfile,
    CheckpointSettings,
    HookEvent,
    HookHandler,
    HookMatcher,
    HooksTable,
    McpServerConfig,
    McpSettings,
    PermissionSettings,
    ReviewersSettings,
    explained,
)
from valarmind_tui.settings.senses import ImageSettings, SearchSettings

PROJECT_DIR = ".valarmind"

# Environment variables LiteLLM reads for keys, and the model we pick when only the key is set.
KNOWN_KEYS: dict[str, str] = {
    "ANTHROPIC_API_KEY": "anthropic/claude-sonnet-4-5",
    "OPENAI_API_KEY": "openai/gpt-4.1",
    "GEMINI_API_KEY": "gemini/gemini-2.5-pro",
    "DEEPSEEK_API_KEY": "deepseek/deepseek-chat",
    "OPENROUTER_API_KEY": "openrouter/anthropic/claude-sonnet-4.5",
    "GROQ_API_KEY": "groq/openai/gpt-oss-120b",
    "MISTRAL_API_KEY": "mistral/mistral-large-latest",
    "XAI_API_KEY": "xai/grok-4",
    "MOONSHOT_API_KEY": "moonshot/kimi-k2-0905-preview",
}


_FILE_DATA: ContextVar[dict[str, Any]] = ContextVar("valarmind_file_settings")


class Settings(BaseModel):
    """All of ValarMind's settings."""

    model_config = ConfigDict(extra="forbid", validate_default=False,
                              arbitrary_types_allowed=True)

    def __init__(self, **values: Any) -> None:
        """`values` (the flags) over `VALARMIND_*` (settings/environment.py) over the merged
        TOML files (`load_settings`), tables merged key by key."""
        layered = _merge(_merge(dict(_FILE_DATA.get({})), environment_values(type(self))),
                         values)
        super().__init__(**layered)

    model: str | None = None
    """Any LiteLLM model string (`anthropic/claude-sonnet-4-5`, `ollama/qwen3`...)."""
    api_base: str | None = None
    """Endpoint override, e.g. a local OpenAI-compatible server ending in /v1."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """Model aliases such as `fast` and `smart`."""
    agent_models: dict[str, str] = Field(default_factory=dict)
    """Per-agent model or alias (`review = "smart"`)."""
    fallback_models: list[str] = Field(default_factory=list)
    """Models (or aliases) tried in order when a call fails with an overload (429, 529) after
    its retries, a 5xx or a context window too small; each move is shown. User config only."""
    alias_fallbacks: dict[str, list[str]] = Field(default_factory=dict)
    """Fallbacks of one alias's model instead of `fallback_models` (`smart = ["openai/gpt-4.1"]`).
    User config only."""
    notifications: Literal["bell", "osc9", "osc777"] | bool = "bell"
    """How to call the person back while the terminal is not focused (an approval waits, a long
    turn ended): the bell, an OSC 9 or OSC 777 desktop notification; false: never."""
    notify_after_s: float = Field(default=10.0, ge=0)
    """A turn that ran longer than this notifies when it ends."""
    status_line: str | None = None
    """A command (run by `bash -c`) that gets the session's state as JSON on stdin; its first
    line of output replaces the right part of the TUI's status bar. User config only."""
    permission_mode: str = "default"
    """default, accept-edits, plan or bypass."""
    max_turns: int = 50
    """Turn limit of one agent run."""
    theme: str = "valarmind-dark"
    """Textual theme name."""
    editor_mode: Literal["normal", "vim"] = "normal"
    """`vim`: the prompt takes vim keys (normal and insert modes; the mode shows in its
    border); the REPL uses prompt-toolkit's vi mode."""
    output_style: str = ""
    """The output style new sessions start with (`concise`, `explanatory`, `learning` or one of
    your own in ~/.config/valarmind/styles/); /style changes it for a session."""
    scrollback_on_exit: bool = True
    """When the TUI quits, print the conversation into the terminal's normal screen, so it
    stays in the scrollback after the full-screen view closes."""
    request_timeout_s: float = 600.0
    """Timeout of one read of a model request."""
    first_byte_timeout_s: float = Field(default=120.0, gt=0)
    """A model that sends nothing this long after a request is reported as stalled (a
    reasoning model may think this long before its first word: raise it for those)."""
    stream_idle_timeout_s: float = Field(default=60.0, gt=0)
    """A stream silent this long between two pieces is reported as stalled."""
    max_retry_wait_s: float = 120.0
    """Cap on a 429 Retry-After wait."""
    model_daemon: bool = True
    """`-p` and `run` send model calls to a warm model daemon of the user's (started on first
    use, litellm kept imported between runs: docs/speed.md); false calls litellm in each run.
    User config, env or `--no-daemon` only."""
    model_daemon_idle_s: float = Field(default=600.0, gt=0)
    """The model daemon leaves after this long without a run connected."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP client settings."""
    profiles: dict[str, AgentProfile] = Field(default_factory=dict)
    """Headless runner profiles."""
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    """Remembered allow and deny rules."""
    trusted_plugin_projects: list[str] = Field(default_factory=list)
    """Projects whose `plugins/` folder may run; read only from the user's own config file."""
    trusted_projects: list[str] = Field(default_factory=list)
    """Folders whose own configuration (`.valarmind/`, `.mcp.json`, `external-agents.json`,
    `plugins/`, hooks) is loaded; user config only (the trust decision)."""
    sandbox: Literal["auto", "off"] = "auto"
    """`auto`: every command runs under bubblewrap, and asks when bubblewrap cannot run;
    `off`: commands run unconfined (the user's own choice). User config, env or flags only."""
    sandbox_network: bool = False
    """Let sandboxed commands reach the network. User config, env or flags only."""
    sandbox_home: list[str] = Field(default_factory=list)
    """Paths under HOME (`~/.config/mytool`, `.sbt`) sandboxed commands may read besides the
    built-in allowlist of toolchains and caches; the rest of HOME is hidden. User config or env
    only: a repository never widens what the sandbox shows."""
    allow_project_commands: bool = False
    """Headless runs (`-p`, `run`) let the project's detected build, lint, type-check and test
    commands through (matched by argv prefix, one simple command; still in the sandbox), so QA
    and the test agent can verify. User config, env or `--allow-project-commands` only."""
    allow_sampling: bool = False
    """Headless runs (`-p`, `run`) answer MCP servers' sampling requests with your model
    (interactive faces ask). User config, env or `--allow-sampling` only."""
    untrusted_projects: list[str] = Field(default_factory=list)
    """Folders whose configuration the user declined to load (asked once)."""
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    """`[checkpoints]`: how many turns /undo and /rewind keep, and the file size cap."""
    hooks: HooksTable = Field(default_factory=dict)
    """Commands run on events (Claude Code's hooks format): `[[hooks.PreToolUse]]` with a
    `matcher` and `[[hooks.PreToolUse.hooks]]` handlers. A trusted project's handlers run after
    the user's own; an untrusted project's are never read."""
    reviewers: ReviewersSettings = Field(default_factory=ReviewersSettings)
    """Model reviewers (`[reviewers.tool_approve]`...), each off by default. User config only."""
    images: ImageSettings = Field(default_factory=ImageSettings)
    """`[images]`: whether the model reads images (None: LiteLLM's model information)."""
    search: SearchSettings = Field(default_factory=SearchSettings)
    """`[search]`: the web_search tool's backend and cache ages. User config only."""
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    """`[budget]`: what a prompt, a session and a day may spend (docs/budgets.md). User config,
    env or the `--max-*` flags only."""
    goal_stall_rounds: int = Field(default=3, ge=1)
    """A goal (/goal, --goal) ends `stalled` after this many rounds in a row with no new passing
    check and no new change. User config, env only."""
    goal_max_rounds: int = Field(default=20, ge=1)
    """A goal ends `max_rounds` after this many rounds, whatever else happens. User config,
    env only."""
    lsp: LspSettings = Field(default_factory=LspSettings)
    """`[lsp]`: language servers' diagnostics after edits, and the lsp_* tools. User config
    only (it names programs to run)."""

    _project_trusted: bool = PrivateAttr(default=False)
    _project_mcp_servers: frozenset[str] = PrivateAttr(default=frozenset())
    _ignored_project_keys: tuple[str, ...] = PrivateAttr(default=())
    _project_config_error: ConfigError | None = PrivateAttr(default=None)
    _user_permissions: PermissionSettings | None = PrivateAttr(default=None)
    _hook_sources: dict[str, list[str]] = PrivateAttr(default_factory=dict)

    @property
    def hook_sources(self) -> dict[str, list[str]]:
        """For each event, the config file each of `hooks[event]`'s matcher groups came from."""
        return self._hook_sources

    @property
    def user_permissions(self) -> PermissionSettings:
        """The rules of the user's own config (only these may unlock protected paths)."""
        return self._user_permissions if self._user_permissions is not None else self.permissions

    @property
    def project_trusted(self) -> bool:
        """Whether the project's own configuration was loaded (trust.py decides)."""
        return self._project_trusted

    @property
    def project_mcp_servers(self) -> frozenset[str]:
        """Names of MCP servers defined by the project's config.toml (not the user's)."""
        return self._project_mcp_servers

    @property
    def project_config_error(self) -> ConfigError | None:
        """Why a trusted project's config was skipped (its file, line and key), or None."""
        return self._project_config_error

    @property
    def ignored_project_keys(self) -> tuple[str, ...]:
        """Keys of a trusted project's config that a repository may never set."""
        return self._ignored_project_keys

    def trusting_project(self, trusted: bool = True) -> Settings:
        """A copy that treats the project as trusted (tests and faces that decided already)."""
        copy = self.model_copy()
        copy._project_trusted = trusted
        return copy

    def resolve_model(self, name: str | None = None) -> str | None:
        """The model string for an alias, agent or explicit model; None when none is known."""
        if name:
            name = self.agent_models.get(name, name)
            return self.aliases.get(name, name)
        if self.model:
            return self.aliases.get(self.model, self.model)
        for env_var, default_model in KNOWN_KEYS.items():
            if os.environ.get(env_var):
                return default_model
        return None

    def fallbacks_for(self, model: str) -> list[str]:
        """The model strings to try after `model` fails: its alias's `alias_fallbacks` when an
        alias names it, else `fallback_models`."""
        own = [names for alias, names in self.alias_fallbacks.items()
               if self.aliases.get(alias, alias) == model]
        chosen = own[0] if own else self.fallback_models
        resolved = (self.resolve_model(name) for name in chosen)
        return [name for name in resolved if name and name != model]

    def model_for_agent(self, agent: str, spec_model: str | None = None) -> str | None:
        """The model an agent's settings choose: `agent_models`, then its spec's model (an
        alias when configured, or a full `provider/model` string); None: the session's model."""
        if agent in self.agent_models:
            return self.resolve_model(agent)
        if spec_model and spec_model in self.aliases:
            return self.aliases[spec_model]
        if spec_model and "/" in spec_model:
            return spec_model
        return None

    def key_env_for(self, model: str | None) -> str | None:
        """The environment variable that should hold the key for `model`."""
        if self.api_key_env:
            return self.api_key_env
        if model:
            prefix = model.split("/", 1)[0].upper()
            for env_var in KNOWN_KEYS:
                if env_var.startswith(prefix + "_"):
                    return env_var
        return None


def config_files(project_root: Path) -> list[Path]:
    """The TOML files read, lowest priority first (the project's only when it is trusted)."""
    return [user_config_dir() / "config.toml", project_root / PROJECT_DIR / "config.toml"]


def read_config_text(path: Path) -> str | None:
    """A config file's text; None when it does not exist, ConfigError when it cannot be read."""
    try:
        return read_regular_text(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=path) from None


def _read_toml(path: Path) -> dict[str, Any]:
    text = read_config_text(path)
    if text is None:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(match.group(1)) if match else None
        raise ConfigError(f"not valid TOML: {exc}", file=path, line=line) from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _concat_hooks(
    layers: list[tuple[Path, dict[str, Any]]],
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Every layer's hook groups one after the other (user first: a project adds hooks, it never
    replaces the user's), and the file each group came from. A layer's bad table is its file's
    ConfigError."""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(HooksTable)
    hooks: dict[str, list[Any]] = {}
    sources: dict[str, list[str]] = {}
    for path, data in layers:
        table = data.get("hooks")
        if table is None:
            continue
        try:
            adapter.validate_python(table)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ("hooks", *err["loc"])
            raise ConfigError(err["msg"], file=path, line=find_key_line(path, loc),
                              key=".".join(str(p) for p in loc)) from None
        for event, groups in table.items():
            hooks.setdefault(event, []).extend(groups)
            sources.setdefault(event, []).extend(str(path) for _ in groups)
    return hooks, sources


def find_key_line(path: Path, loc: tuple[str | int, ...]) -> int | None:
    """The line in a TOML file where the dotted key `loc` is set (best effort)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    keys = [str(k) for k in loc if not isinstance(k, int)]
    table: list[str] = []
    fallback = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", line)
        if header:
            table = [p.strip().strip('"') for p in header.group(1).split(".")]
            if table == keys:
                fallback = number
            continue
        key_match = re.match(r'^("?[\w.-]+"?)\s*=', line)
        if not key_match:
            continue
        full = table + [p.strip('"') for p in key_match.group(1).split(".")]
        if full == keys:
            return number
        if keys[: len(full)] == full and fallback is None:
            fallback = number
    return fallback


def load_settings(project_root: Path, *, trusted: bool = False, **flags: Any) -> Settings:
    """Read every source in order; raise ConfigError naming file, line and key on bad input.

    The project's `.valarmind/config.toml` is read only when `trusted` (trust.py), and even then
    without the keys a repository may never set (REPOSITORY_FORBIDDEN). A broken project config
    does not stop the start: the settings come without it, and `project_config_error` says why
    (the person's own config, the environment and flags still fail loudly)."""
    try:
        return _load_settings(project_root, trusted=trusted, **flags)
    except ConfigError as exc:
        if not trusted or exc.file != str(config_files(project_root)[1]):
            raise
        settings = _load_settings(project_root, trusted=False, **flags)
        settings._project_config_error = exc
        return settings


def _load_settings(project_root: Path, *, trusted: bool, **flags: Any) -> Settings:
    user_path, project_path = config_files(project_root)
    layers = [(user_path, _read_toml(user_path))]
    ignored: list[str] = []
    project_servers: frozenset[str] = frozenset()
    if trusted:
        project_data, ignored = strip_forbidden(_read_toml(project_path))
        project_servers = allowed_project_servers(project_data, layers[0][1], ignored)
        layers.append((project_path, project_data))
    merged: dict[str, Any] = {}
    for _path, data in layers:
        merged = _merge(merged, data)
    hooks, hook_sources = _concat_hooks(layers)
    if hooks:
        merged["hooks"] = hooks
    flag_values = {k: v for k, v in flags.items() if v is not None}
    try:
        token = _FILE_DATA.set(merged)
        try:
            settings = Settings(**flag_values)
        finally:
            _FILE_DATA.reset(token)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        key = ".".join(str(p) for p in loc)
        err["msg"] = explained(Settings, err["type"], err["msg"], loc)
        for path, data in reversed(layers):
            node: Any = data
            for part in loc:
                if isinstance(node, dict) and part in node:
                    node = node[part]
                else:
                    node = None
                    break
            from_file = err.get("input") == node if node is not None else (
                loc and isinstance(data, dict) and loc[0] in data)
            if from_file:  # else a variable or a flag set the value that failed
                raise ConfigError(
                    err["msg"], file=path, line=find_key_line(path, loc), key=key
                ) from None
        variable = f"{PREFIX}{NESTED.join(str(p) for p in loc)}".upper()
        where = (f"from {variable}" if os.environ.get(variable) is not None
                 else "from the environment or a flag")
        raise ConfigError(f"{err['msg']} ({where})", key=key) from None
    settings._project_trusted = trusted
    settings._project_mcp_servers = project_servers
    settings._ignored_project_keys = tuple(ignored)
    settings._hook_sources = hook_sources
    user_rules = layers[0][1].get("permissions", {})
    settings._user_permissions = PermissionSettings.model_validate(
        user_rules if isinstance(user_rules, dict) else {})
    return settings


def remember_allow_rule(project_root: Path, rule: str) -> Path:
    """Add `rule` to `[permissions] allow` in the project's config.toml, keeping the rest as is
    (however the table is spelled: tomlkit edits the document, not lines)."""
    from valarmind_tui.settings.edit import add_allow_rule

    return add_allow_rule(project_root, rule)

