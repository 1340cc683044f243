"""The person's hooks, in Claude Code's format: config → matching handlers → verdicts.

`runner.py` (HookRunner at each hook point) is the start; `process.py` runs one handler,
`verdicts.py` combines answers, `names.py` gives Claude's tool names. May import `tools`,
`safety`, `settings`, `core`: it runs commands with the tools' allowlisted environment and
answers the gate through safety.gate.hook_points.GateHooks.
"""

from valarmind_tui.hooks.names import hook_tool_name, matcher_matches
from valarmind_tui.hooks.process import ActiveHook, HookResult
from valarmind_tui.hooks.runner import HookRunner, PromptVerdict

__all__ = ["ActiveHook", "HookResult", "HookRunner", "PromptVerdict", "hook_tool_name",
           "matcher_matches"]
