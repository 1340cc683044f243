"""Running one hook handler: `bash -c COMMAND` in the project, the event's JSON on stdin.

Hooks are the person's own commands (like git hooks), so they run outside the bubblewrap sandbox:
a formatter must write the project, a logger writes under HOME, a notifier reaches the desktop.
What they get of our environment is the tools' allowlist (no API keys or tokens) plus
`CLAUDE_PROJECT_DIR` and `VALARMIND_PROJECT_DIR`. A handler is killed (its whole process group)
after its timeout; a missing command is bash's exit 127, an ordinary non-blocking error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from valarmind_tui.tools.common import child_env, kill_group, spawn

DEFAULT_TIMEOUT_S = 60.0
BLOCKING_EXIT = 2
DETAIL_CHARS = 400
Outcome = Literal["ok", "blocked", "error", "timeout", "invalid_output", "not_run"]


@dataclass(frozen=True)
class ActiveHook:
    """One configured handler, with the group it belongs to and the file it came from."""

    event: str
    matcher: str
    command: str
    """The shell command, or for a prompt handler the prompt."""
    timeout: float
    source: str
    """The config file that defined it."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables its file's `env` block sets (Claude Code's settings.json), over ours."""
    kind: Literal["command", "prompt"] = "command"
    """`prompt`: a model call with `command` as the prompt (hooks.prompt_handler)."""

    @property
    def label(self) -> str:
        """How events and notices name it: the command, or `prompt: ...`."""
        return self.command if self.kind == "command" else f"prompt: {self.command[:120]}"


@dataclass(frozen=True)
class HookResult:
    """How one handler ran and what it said."""

    hook: ActiveHook
    exit_code: int | None
    stdout: str
    stderr: str
    output: dict[str, Any] | None
    """stdout parsed as a JSON object (exit 0 only), else None."""
    outcome: Outcome
    duration_ms: int

    @property
    def blocked(self) -> bool:
        return self.exit_code == BLOCKING_EXIT

    @property
    def specific(self) -> dict[str, Any]:
        """`hookSpecificOutput`, or {}."""
        value = (self.output or {}).get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    @property
    def plain_text(self) -> str:
        """stdout when it was not JSON (exit 0): Claude Code adds it as context for
        UserPromptSubmit and SessionStart."""
        return self.stdout.strip() if self.output is None and self.exit_code == 0 else ""

    def detail(self) -> str:
        """What to show beside the outcome: the reason or stderr, cut short."""
        text = self.stderr.strip() or str((self.output or {}).get("reason") or "")
        return text[:DETAIL_CHARS]


def hook_env(project_root: Path) -> dict[str, str]:
    env = child_env(project_root)
    env["CLAUDE_PROJECT_DIR"] = env["VALARMIND_PROJECT_DIR"] = str(project_root)
    return env


async def run_handler(hook: ActiveHook, payload: dict[str, Any], project_root: Path,
                      extra_env: Mapping[str, str] | None = None) -> HookResult:
    """Run one handler to completion or timeout; never raises for the hook's own failures.
    `extra_env`: what this run adds (SessionStart's CLAUDE_ENV_FILE)."""
    started = time.monotonic()
    data = json.dumps(payload, default=str).encode()
    try:
        proc = await spawn(
            "bash", "-c", hook.command, cwd=project_root,
            env={**hook_env(project_root), **dict(hook.env), **(extra_env or {})},
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        return _result(hook, None, "", f"could not start: {exc}", "error", started)
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), hook.timeout)
    except TimeoutError:
        kill_group(proc.pid)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
        return _result(hook, None, "", f"timed out after {hook.timeout:g} s", "timeout", started)
    except asyncio.CancelledError:
        kill_group(proc.pid)
        raise
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    code = proc.returncode
    if code == BLOCKING_EXIT:
        return _result(hook, code, stdout, stderr, "blocked", started)
    if code != 0:
        return _result(hook, code, stdout, stderr, "error", started)
    text = stdout.strip()
    if not text.startswith(("{", "[")):
        return _result(hook, code, stdout, stderr, "ok", started)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return _result(hook, code, stdout, f"stdout is not valid JSON ({exc})",
                       "invalid_output", started)
    if not isinstance(parsed, dict):
        return _result(hook, code, stdout, "stdout JSON is not an object", "invalid_output",
                       started)
    return _result(hook, code, stdout, stderr, _json_outcome(parsed), started, parsed)


def _json_outcome(output: dict[str, Any]) -> Outcome:
    specific = output.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    behaviour = specific.get("decision")
    if (output.get("decision") == "block" or output.get("continue") is False
            or specific.get("permissionDecision") == "deny"
            or isinstance(behaviour, dict) and behaviour.get("behavior") == "deny"):
        return "blocked"
    return "ok"


def _result(
    hook: ActiveHook, code: int | None, stdout: str, stderr: str, outcome: Outcome,
    started: float, output: dict[str, Any] | None = None,
) -> HookResult:
    elapsed = int((time.monotonic() - started) * 1000)
    return HookResult(hook, code, stdout, stderr, output, outcome, elapsed)
