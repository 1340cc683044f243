"""The composition root: settings (with the trust decision already applied) → the whole stack.

Every face (TUI, REPL, `-p`, `run`, `review`, `mcp serve`) gets its gate, tools, agents, plugins,
MCP manager and sandbox from `build_stack`, so the safety decisions are made once, here:

- the project's own configuration (agents, `.mcp.json`, plugins) is used only when the settings
  say the project is trusted (config.load_settings read them with that decision);
- the permission mode, endpoints and key variables come from user config, env and flags only;
- one sandbox runs every command; where it cannot run, every command asks;
- Claude Code's settings.json rules join ours (`with_claude_rules`): the person's as theirs, a
  repository's deny and ask rules always, its allow rules only in a trusted folder;
- one HookRunner runs the person's hooks (user config, and a trusted project's): the gate, the
  agent loop (through the gate) and the session call it; a gate built alone (the MCP server's)
  runs them too;
- the model reviewers (user config `[reviewers]`, each off by default) sit in the gate.

`wire_session` adds what one Session owns (checkpoints, task list, usage totals, the typed
services its tools reach, the store's event log), and `build_session` / `open_session` hand
all of it to a Session, which holds a conversation, not its construction: this is the only
place a Session is made.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from valarmind_tui.agents.commit.chain import MessageEditor
from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.tasks import TaskList
from valarmind_tui.checkpoints import SessionCheckpoints
from valarmind_tui.commands.custom import register_custom_commands
from valarmind_tui.commands.registry import CommandRegistry
from valarmind_tui.context.project_context import ContextLoader
from valarmind_tui.context.tokens import count_json_tokens
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import Notice
from valarmind_tui.core.visible_text import visible
from valarmind_tui.hooks import HookRunner
from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.mcp_client.config_files import (
    believed_servers,
    sampling_timeouts,
    server_configs,
)
from valarmind_tui.mcp_client.manager import McpManager
from valarmind_tui.mcp_client.sampling import SamplingHandler
from valarmind_tui.oversight import Reviewers
from valarmind_tui.plugins.manager import PluginContributions, load_plugins, offer_plugin_tool
from valarmind_tui.providers.base import Provider, UsageTotals
from valarmind_tui.safety.gate.approval import Approver, PermissionMode
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.safety.paths import broad_root_warning
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.safety.secrets import SecretMasker, project_masker
from valarmind_tui.session.approver import InteractiveApprover
from valarmind_tui.session.model_choice import ModelChoice
from valarmind_tui.session.records import open_store, restore_interrupted, resumed_size
from valarmind_tui.session.search_backends import web_searcher
from valarmind_tui.session.session import Session
from valarmind_tui.settings.config import Settings, remember_allow_rule
from valarmind_tui.settings.sections import PermissionSettings
from valarmind_tui.settings.trust.decision import (
    CHANGED,
    decide,
    keep_record_through,
    record_first_load,
    repository_config,
)
from valarmind_tui.setup.claude_settings import claude_setup
from valarmind_tui.setup.commands import load_commands
from valarmind_tui.setup.skills import Skill, load_skills, skill_folders
from valarmind_tui.spending.meter import Spending
from valarmind_tui.spending.metered import metered_by
from valarmind_tui.store.sessions import SessionStore
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.registry import ToolRegistry
from valarmind_tui.tools.services import ToolServices
from valarmind_tui.tools.shell.jobs import BackgroundJobs, jobs_folder
from valarmind_tui.tools.skills.skill import SkillTool


@dataclass
class Stack:
    """Everything a Session runs on."""

    settings: Settings
    project_root: Path
    bus: EventBus
    approver: Approver
    gate: PermissionGate
    tools: ToolRegistry
    agents: AgentRegistry
    commands: CommandRegistry
    plugins: PluginContributions
    mcp: McpManager
    sandbox: Sandbox
    hooks: HookRunner
    skills: list[Skill] = field(default_factory=list)
    """The Agent Skills found (setup/skills.py): listed in prompts, loaded by the skill tool."""
    notices: list[str] = field(default_factory=list)
    """Warnings for the person once a face listens (skipped repository config, plugins...)."""


def trust_notices(settings: Settings, project_root: Path) -> list[str]:
    """What the trust decision left out, in one line each; for a folder trusted before
    fingerprints existed, the configuration it loads now is recorded as the trusted one."""
    notices: list[str] = []
    present = repository_config(project_root)
    if settings.project_config_error is not None:
        notices.append(
            f"{visible(str(settings.project_config_error))}. This project's configuration was "
            "skipped: fix that line, or stop loading it with `valarmind trust --revoke` "
            "(/trust no).")
    elif settings.project_trusted:
        recorded = record_first_load(project_root)
        if recorded:
            notices.append(
                "Trust is now of content: this folder's configuration was recorded as you "
                f"trusted it ({', '.join(visible(n) for n in recorded)}); from now on a "
                "change to it asks again before it loads.")
    elif (trust := decide(project_root)).how == CHANGED:
        notices.append(trust.changed_line())
    elif present:
        notices.append(
            "This folder is not trusted, so its own configuration was skipped: "
            f"{', '.join(present)}. Run /trust yes (or pass --trust-project when headless) "
            "if you know this repository."
        )
    if settings.ignored_project_keys:
        notices.append(
            "The project's config may not set " + ", ".join(settings.ignored_project_keys)
            + "; those keys were ignored (set them in your own config)."
        )
    return notices


def build_gate(
    settings: Settings, project_root: Path, approver: Approver, bus: EventBus | None = None, *,
    mode: PermissionMode | str | None = None, sandbox: Sandbox | None = None,
    hooks: HookRunner | None | bool = True, reviewers: Reviewers | None = None,
) -> PermissionGate:
    """The permission gate for one face: mode from the user's settings or the face's policy;
    the user's own rules kept apart (only they unlock protected paths); every command asks
    when the sandbox cannot run. `hooks=True` runs the configured hooks with a runner of its
    own (the MCP server's gates); None runs none."""
    if hooks is True:
        hooks = HookRunner.from_settings(settings, project_root, bus)
    rules, user_rules = with_claude_rules(settings, project_root)
    return PermissionGate(
        project_root, approver,
        mode=PermissionMode(mode or settings.permission_mode), rules=rules,
        user_rules=user_rules,
        unconfined_commands_ask=sandbox is not None and sandbox.unavailable,
        on_remember=lambda rule: _remember(project_root, rule), bus=bus,
        hooks=hooks if isinstance(hooks, HookRunner) and hooks.hooks else None,
        reviewers=reviewers if reviewers is not None and reviewers.any_enabled else None,
    )


def with_claude_rules(
    settings: Settings, project_root: Path, home: Path | None = None,
) -> tuple[PermissionSettings, PermissionSettings]:
    """The gate's (project, user) rules with those of Claude Code's settings.json files: the
    person's `~/.claude/settings.json` joins their own rules (it may name a protected path);
    the project's files join the project's (deny and ask always, allow only when trusted:
    setup.claude_settings judged that)."""
    claude = claude_setup(project_root, home or Path.home(), settings.project_trusted)
    user, project = settings.user_permissions, settings.permissions

    def joined(ours: PermissionSettings, *extra: dict[str, list[str]]) -> PermissionSettings:
        return PermissionSettings(
            allow=[*ours.allow, *(r for e in extra for r in e["allow"])],
            ask=[*ours.ask, *(r for e in extra for r in e["ask"])],
            deny=[*ours.deny, *(r for e in extra for r in e["deny"])])

    return joined(project, claude.project_rules), joined(user, claude.user_rules)


def build_stack(
    settings: Settings, project_root: Path, *, bus: EventBus | None = None,
    approver: Callable[[EventBus], Approver], provider: Callable[[], Provider],
    tools: ToolRegistry | None = None, wrap: Callable[[Provider], Provider] = lambda p: p,
) -> Stack:
    """The whole stack for one session. `approver` is built with the bus (the interactive one
    publishes on it); `provider` is called lazily (litellm loads on first use); `wrap` wraps
    the providers the stack builds itself (reviewers' own models: the session's ledger)."""
    root = project_root.resolve()
    bus = bus or EventBus()
    chosen_approver = approver(bus)
    home = Path.home()
    skills = load_skills(root, home, settings.project_trusted, cwd=Path.cwd())[0]
    sandbox = Sandbox.detect(settings.sandbox, settings.sandbox_network,
                             home_allow=(*settings.sandbox_home, *skill_folders(skills, home)))
    registry = tools if tools is not None else builtin_tools(sandbox=sandbox)
    hooks = HookRunner.from_settings(settings, root, bus)
    hooks.provider = provider  # `type: "prompt"` hooks ask the session's model
    gate = build_gate(settings, root, chosen_approver, bus, sandbox=sandbox, hooks=hooks,
                      reviewers=Reviewers.from_settings(settings, provider, bus, wrap=wrap))
    agents = AgentRegistry.load(root, settings, home=home)
    plugins = load_plugins(root, trusted=settings.project_trusted)
    commands = CommandRegistry()
    for tool in plugins.tools:
        offer_plugin_tool(tool)
        registry.register(tool)
    for cmd in plugins.commands:
        if not commands.register(cmd):
            plugins.warnings.append(f"a plugin's command /{cmd.name} was left out: "
                                    "that name is taken")
    for spec in plugins.agents:
        agents.add(spec)
    if skills:
        registry.register(SkillTool(skills))
    custom = load_commands(root, home, settings.project_trusted)[0]
    setup_notices = register_custom_commands(commands, custom, skills) + agents.notes
    servers = server_configs(settings.mcp, root, trusted=settings.project_trusted)
    mcp = McpManager(
        settings.mcp, root, bus,
        sampling=SamplingHandler(provider, chosen_approver, bus,
                                 timeout_s=settings.mcp.sampling_timeout_s,
                                 server_timeouts=sampling_timeouts(servers)),
        servers=servers, user_servers=believed_servers(settings, servers),
        count_tokens=count_json_tokens,
    )
    notices = trust_notices(settings, root) + list(plugins.warnings) + setup_notices
    if (broad := broad_root_warning(root)) is not None:
        notices.insert(0, broad)
    if sandbox.unavailable:
        notices.append(f"Sandbox off: {sandbox.reason} Every command will ask before it runs, "
                       'in every mode, until you set sandbox = "off" in your config.')
    return Stack(settings, root, bus, chosen_approver, gate, registry, agents, commands, plugins,
                 mcp, sandbox, hooks, skills, notices)


def _remember(project_root: Path, rule: str) -> None:
    """"Always allow for this project": the rule goes into the project's config file (the
    person's own edit: the trusted record follows it)."""
    keep_record_through(project_root, lambda: remember_allow_rule(project_root, rule))


@dataclass
class SessionParts:
    """What one Session owns beside the stack."""

    session_id: str | None
    """Its id in the store (a new one, or the resumed one); None when it is not stored."""
    history: list[dict[str, Any]]
    """The resumed conversation, closed where a process died mid-turn; empty when new."""
    totals: UsageTotals
    """Tokens and cost of every agent of the session, MCP sampling included."""
    checkpoints: SessionCheckpoints
    context: ContextLoader
    """The project context (VALARMIND.md...) for agents' prompts, cached."""
    tasks: TaskList
    message_editor: MessageEditor
    """/commit's message editing; a face that can edit sets `interactive`."""
    services: ToolServices
    """What the session's tools reach: the approver, the mode and the checkpoints."""
    secrets: SecretMasker
    """Masks the project's secrets; its count is the session's (/context)."""
    jobs: BackgroundJobs
    """Its background commands, checkpointed when they start and end."""
    lsp: LspManager
    """The session's language servers (also in `services`), started on first use."""


def wire_session(
    stack: Stack, *, store: SessionStore | None, session_id: str | None, model: str | None,
) -> SessionParts:
    """The session's own parts, wired to the stack: its conversation created in the `store` or
    resumed from it (`session_id`), its events logged there; sampling counts in its totals;
    hooks see its id and mode (and its transcript, once the Session exists: `build_session`)."""
    history: list[dict[str, Any]] = []
    settings = stack.settings
    secrets = project_masker(stack.project_root,
                             (settings.api_key_env, settings.key_env_for(model)))
    resumed = session_id is not None
    if store is not None and session_id is None:
        session_id = store.create(stack.project_root, model)
    if store is not None and session_id is not None:
        store.mask_with(session_id, secrets.mask_data)  # every message and event it logs
    if store is not None and session_id is not None and resumed:
        history = store.messages(session_id)
        history.extend(restore_interrupted(history, store, session_id))
    totals = UsageTotals()
    if stack.mcp.sampling is not None:
        stack.mcp.sampling.totals = totals
    if store is not None and session_id is not None:
        stack.bus.add_listener(lambda event: store.append_event(session_id, event))
    checkpoints = SessionCheckpoints(
        stack.project_root, session_id or f"unsaved-{uuid.uuid4().hex[:8]}", stack.bus,
        limits=stack.settings.checkpoints)
    gate = stack.gate
    stack.hooks.session_id = session_id or uuid.uuid4().hex
    stack.hooks.mode = lambda: gate.mode.value
    hooks = stack.hooks
    context = ContextLoader(stack.project_root, cwd=Path.cwd())
    jobs = BackgroundJobs(jobs_folder(checkpoints.session_id), stack.bus,
                          mask=lambda text: secrets.mask(text, fresh=True))
    jobs.on_start, jobs.on_end = checkpoints.job_started, checkpoints.job_ended
    lsp = LspManager(stack.project_root, settings.lsp, stack.sandbox,
                     trusted=settings.project_trusted,
                     on_problem=lambda text: stack.bus.publish(Notice(
                         level="warning", message=f"Language server: {text}")))
    services = replace(ToolServices.for_gate(gate, stack.bus),
                       checkpoint=checkpoints.before_change,
                       changed=checkpoints.after_change, nested_context=context.nested,
                       command_env=lambda: hooks.session_env, jobs=jobs, lsp=lsp)
    return SessionParts(session_id, history, totals, checkpoints, context, TaskList(stack.bus),
                        MessageEditor(stack.bus), services, secrets, jobs, lsp)


def build_session(
    settings: Settings, project_root: Path, *, approver: Approver | None = None,
    provider: Provider | None = None, tools: ToolRegistry | None = None,
    store: SessionStore | None = None, session_id: str | None = None,
) -> Session:
    """A Session on a new stack: not stored unless a `store` is given (`session_id` resumes
    one of its sessions). Without an `approver` the faces answer approvals (interactive);
    `provider` replaces the configured model's, `tools` the built-in tools."""
    root = project_root.resolve()
    spending = Spending(settings.budget)
    models = ModelChoice(settings, root, provider, wrap=metered_by(spending))
    stack = build_stack(settings, root, tools=tools, provider=models.provider,
                        approver=lambda bus: approver or InteractiveApprover(bus),
                        wrap=metered_by(spending))
    parts = wire_session(stack, store=store, session_id=session_id, model=models.model)
    spending.keep_in(store, parts.session_id)
    spending.notify = lambda text: stack.bus.publish(Notice(level="warning", message=text))
    session = Session(
        settings=settings, project_root=root, bus=stack.bus, sandbox=stack.sandbox,
        approver=stack.approver, gate=stack.gate, tools=stack.tools, agents=stack.agents,
        commands=stack.commands, plugins=stack.plugins, mcp=stack.mcp, hooks=stack.hooks,
        models=models, startup_notices=stack.notices, store=store,
        session_id=parts.session_id, history=parts.history, totals=parts.totals,
        checkpoints=parts.checkpoints, project_context=parts.context, tasks=parts.tasks,
        message_editor=parts.message_editor, secrets=parts.secrets, skills=stack.skills,
        jobs=parts.jobs, spending=spending, lsp=parts.lsp,
        services=replace(parts.services,
                         web_search=web_searcher(settings, models, stack.mcp, stack.tools)),
    )
    stack.hooks.transcript_path = session.export_transcript  # JSONL of the conversation
    session.reported_size = resumed_size(store, parts.session_id, parts.history)
    if settings.output_style:
        start_with_style(session, settings.output_style)
    return session


def start_with_style(session: Session, name: str) -> None:
    """The user config's `output_style`, or a notice naming the styles there are."""
    from valarmind_tui.context.styles import NO_STYLE, find_styles

    catalog = find_styles(session.project_root, Path.home())
    if name.lower() in NO_STYLE:
        return
    style = catalog.styles.get(name.lower())
    if style is None:
        session.startup_notices.append(
            f"output_style {name!r} (config) is not a style; there are: "
            f"{', '.join(sorted(catalog.styles))}")
    session.output_style = style


def open_session(
    settings: Settings, project_root: Path, *, approver: Approver | None = None,
    resume: str | None = None,
) -> Session:
    """A session persisted in the user's SQLite store; `resume` is an id or "last"."""
    store, session_id = open_store(project_root, resume)
    session = build_session(settings, project_root, approver=approver, store=store,
                            session_id=session_id)
    if store.unsaved:  # a full disk: the answer still comes, the person knows it is not kept
        session.startup_notices.append(store.unsaved)
    store.on_unsaved = lambda text: session.bus.publish(Notice(level="warning", message=text))
    return session
