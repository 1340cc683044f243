"""HookRunner: the person's hooks (config `hooks`, Claude Code's format) at each hook point.

    runner = HookRunner.from_settings(settings, project_root, bus)
    verdict = await runner.pre_tool_use("bash", params, ctx)      # the gate calls it
    prompt = await runner.user_prompt_submit("fix the bug")       # Session.submit

The matching handlers of an event run in parallel (process.run_handler); each run is a HookRan
event, and a handler that fails, times out or prints invalid JSON is also a Notice. Their answers
are combined: any deny beats any ask beats any allow; the reasons are joined.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import HookRan, Notice
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.hooks.env_file import read_env_file
from valarmind_tui.hooks.names import hook_tool_name, matcher_matches, to_hook_input
from valarmind_tui.hooks.process import DEFAULT_TIMEOUT_S, ActiveHook, HookResult, run_handler
from valarmind_tui.hooks.prompt_handler import DEFAULT_PROMPT_TIMEOUT_S, run_prompt_handler
from valarmind_tui.hooks.verdicts import permission_verdict, post_feedback, pre_tool_verdict
from valarmind_tui.providers.base import Provider
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.gate.hook_points import HookVerdict, PostToolFeedback
from valarmind_tui.safety.secrets import project_masker
from valarmind_tui.settings.config import HOOK_EVENTS, Settings
from valarmind_tui.setup.claude_settings import claude_setup

CLAUDE_MODES = {"default": "default", "accept-edits": "acceptEdits", "plan": "plan",
                "bypass": "bypassPermissions"}
"""Our permission modes as Claude Code spells them in a hook's `permission_mode`."""


@dataclass(frozen=True)
class PromptVerdict:
    """What the UserPromptSubmit hooks said about a prompt."""

    blocked: str | None = None
    """Why the prompt is not sent (exit 2's stderr, a block's reason, a `stopReason`)."""
    context: str = ""
    """Added to the prompt the model reads (`additionalContext`, or plain stdout)."""


class HookRunner:
    """Runs the configured hooks; implements safety.hook_points.GateHooks."""

    def __init__(
        self, hooks: list[ActiveHook], project_root: Path, bus: EventBus | None = None, *,
        session_id: str = "", transcript_path: Callable[[], str] | None = None,
    ) -> None:
        self.hooks = hooks
        self.project_root = Path(project_root).resolve()
        self.bus = bus
        self.session_id = session_id
        self.transcript_path = transcript_path or (lambda: "")
        self.session_env: dict[str, str] = {}
        """What SessionStart hooks exported through CLAUDE_ENV_FILE, for the bash tool."""
        self.mode: Callable[[], str] | None = None
        """The current permission mode, for the `permission_mode` field (set by the session)."""
        self.provider: Callable[[], Provider] | None = None
        """The session's model, for `type: "prompt"` handlers (set by the wiring); None: they
        are reported as not run."""
        self._background: set[asyncio.Task[Any]] = set()

    @classmethod
    def from_settings(cls, settings: Settings, project_root: Path,
                      bus: EventBus | None = None, home: Path | None = None) -> HookRunner:
        """Our config's hooks, then those of Claude Code's settings.json files (the person's,
        and a trusted project's: setup.claude_settings)."""
        hooks: list[ActiveHook] = []
        for event in HOOK_EVENTS:
            sources = settings.hook_sources.get(event, [])
            for index, group in enumerate(settings.hooks.get(event, [])):
                source = sources[index] if index < len(sources) else "settings"
                hooks += [ActiveHook(event, group.matcher, handler.command,
                                     handler.timeout or DEFAULT_TIMEOUT_S, source)
                          for handler in group.hooks]
        claude = claude_setup(project_root, home or Path.home(), settings.project_trusted)
        hooks += [ActiveHook(h.event, h.matcher, h.command, h.timeout or (
            DEFAULT_PROMPT_TIMEOUT_S if h.kind == "prompt" else DEFAULT_TIMEOUT_S),
            str(h.source), h.env, h.kind) for h in claude.hooks]
        return cls(hooks, project_root, bus)

    # -- the hook points -----------------------------------------------------------------
    async def pre_tool_use(self, tool: str, params: Any, ctx: Any) -> HookVerdict:
        results = await self.run("PreToolUse", self._tool_payload(tool, params), tool=tool)
        return pre_tool_verdict(results, tool)

    async def permission_request(self, tool: str, params: Any, ctx: Any) -> HookVerdict:
        results = await self.run("PermissionRequest", self._tool_payload(tool, params),
                                 tool=tool)
        return permission_verdict(results, tool)

    async def post_tool_use(
        self, tool: str, params: Any, ctx: Any, response: dict[str, Any]
    ) -> PostToolFeedback:
        payload = {**self._tool_payload(tool, params), "tool_response": response}
        results = await self.run("PostToolUse", payload, tool=tool)
        if response.get("is_error"):  # Claude Code's PostToolUseFailure, with the error
            failed = {**self._tool_payload(tool, params), "error": str(response.get("output")),
                      "is_interrupt": False}
            results += await self.run("PostToolUseFailure", failed, tool=tool)
        return post_feedback(results)

    def notify(self, message: str, notification_type: str) -> None:
        """Notification hooks, in the background: a notifier never delays the question. The
        matcher is applied to `notification_type` (`permission_prompt`), as in Claude Code."""
        if not self.matching("Notification", notification_type):
            return
        payload = {"message": message, "notification_type": notification_type}
        task = asyncio.ensure_future(self.run("Notification", payload, tool=notification_type))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def user_prompt_submit(self, prompt: str) -> PromptVerdict:
        results = await self.run("UserPromptSubmit", {"prompt": prompt})
        blocked = _block_reason(results)
        return PromptVerdict(blocked=blocked, context="" if blocked else _context(results))

    async def session_start(self, source: str) -> str:
        """SessionStart hooks; their context, for the first prompt. What they write to
        CLAUDE_ENV_FILE becomes `session_env`, the commands' variables from then on."""
        if not self.matching("SessionStart", source):
            return ""
        env_file = user_data_dir() / "hook-env" / f"{self.session_id or 'session'}.sh"
        env_file.parent.mkdir(parents=True, exist_ok=True)
        env_file.write_text("", encoding="utf-8")
        results = await self.run("SessionStart", {"source": source}, tool=source,
                                 env={"CLAUDE_ENV_FILE": str(env_file)})
        self.session_env, notes = read_env_file(env_file, child_env(self.project_root))
        for note in notes:
            self._notice(f"SessionStart hook's CLAUDE_ENV_FILE, {note}.")
        return _context(results)

    async def session_end(self, reason: str) -> None:
        await self.run("SessionEnd", {"reason": reason})
        await self.drain()

    async def pre_compact(self, trigger: str) -> None:
        await self.run("PreCompact", {"trigger": trigger, "custom_instructions": ""},
                       tool=trigger)

    async def stop(self, event: str, agent_id: str, active: bool) -> str | None:
        """Stop/SubagentStop: the reason the agent should go on, or None to let it stop."""
        results = await self.run(event, {"stop_hook_active": active, "agent_id": agent_id})
        return _block_reason(results, include_stop=False)

    async def subagent_start(self, agent_id: str, agent_type: str) -> str:
        """SubagentStart: the matcher is the agent's name (`review`, `test`...)."""
        return _context(await self.run("SubagentStart", {
            "agent_id": agent_id, "agent_type": agent_type}, tool=agent_type))

    async def setup(self, trigger: str) -> None:
        """Setup (Claude Code runs it for `--init` and `--maintenance`): `/init` runs it with
        the matcher `init`, before it reads the project (a hook may install what it needs)."""
        await self.run("Setup", {"trigger": trigger}, tool=trigger)

    async def drain(self) -> None:
        """Wait for background Notification hooks (at close)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    # -- running -------------------------------------------------------------------------
    def matching(self, event: str, tool: str | None = None) -> list[ActiveHook]:
        return [h for h in self.hooks if h.event == event and matcher_matches(h.matcher, tool)]

    async def run(self, event: str, fields: dict[str, Any], tool: str | None = None,
                  env: dict[str, str] | None = None) -> list[HookResult]:
        """Every matching handler of `event`, in parallel; each run published as HookRan."""
        chosen = self.matching(event, tool)
        if not chosen:
            return []
        payload = {
            "session_id": self.session_id, "transcript_path": self._transcript(),
            "cwd": str(self.project_root), "hook_event_name": event,
            **({"permission_mode": CLAUDE_MODES.get(self.mode(), self.mode())}
               if self.mode is not None else {}), **fields,
        }
        payload = project_masker(self.project_root).mask_data(payload)  # a hook sees no secret
        results = await asyncio.gather(*(
            run_prompt_handler(h, payload, self.provider) if h.kind == "prompt"
            else run_handler(h, payload, self.project_root, env) for h in chosen))
        for result in results:
            self._report(result)
        return list(results)

    def _transcript(self) -> str:
        try:
            return self.transcript_path()
        except OSError:
            return ""

    def _tool_payload(self, tool: str, params: Any) -> dict[str, Any]:
        arguments = params.model_dump(mode="json") if hasattr(params, "model_dump") else params
        return {"tool_name": hook_tool_name(tool),
                "tool_input": to_hook_input(tool, dict(arguments or {}), self.project_root)}

    def _notice(self, message: str) -> None:
        if self.bus is not None:
            self.bus.publish(Notice(level="warning", message=message))

    def _report(self, result: HookResult) -> None:
        if self.bus is None:
            return
        hook = result.hook
        quiet = (result.output or {}).get("suppressOutput") is True  # kept out of the log
        self.bus.publish(HookRan(
            event=hook.event, matcher=hook.matcher, command=hook.label,
            exit_code=result.exit_code, duration_ms=result.duration_ms,
            outcome=result.outcome, detail="" if quiet else result.detail(),
        ))
        said_to_user = (result.output or {}).get("systemMessage")
        if said_to_user:
            self.bus.publish(Notice(level="info", message=f"{hook.event} hook: {said_to_user}"))
        problem = {
            "error": f"failed (exit code {result.exit_code})",
            "timeout": f"timed out after {hook.timeout:g} s and was stopped",
            "invalid_output": "printed output that is not valid JSON",
            "not_run": "was not run",
        }.get(result.outcome)
        if problem is not None:
            said = f": {result.detail()}" if result.detail() else ""
            self.bus.publish(Notice(level="warning", message=(
                f"The {hook.event} hook `{hook.label}` {problem}{said}. It was ignored and "
                "the session goes on.")))


def _block_reason(results: list[HookResult], *, include_stop: bool = True) -> str | None:
    """Why the hooks block: exit 2 (stderr), `decision: block` (reason), `continue: false`."""
    reasons: list[str] = []
    for result in results:
        output = result.output or {}
        if result.blocked:
            reasons.append(result.stderr.strip() or "blocked by a hook (exit code 2)")
        elif output.get("decision") == "block":
            reasons.append(str(output.get("reason") or "blocked by a hook"))
        elif include_stop and output.get("continue") is False:
            reasons.append(str(output.get("stopReason") or "stopped by a hook"))
    return "\n".join(reasons) if reasons else None


def _context(results: list[HookResult]) -> str:
    parts = [str(r.specific.get("additionalContext") or "") or r.plain_text for r in results]
    return "\n".join(p for p in parts if p)
