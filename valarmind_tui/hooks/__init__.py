"""The person's hooks, in Claude Code's format: config → matching handlers → verdicts.

Between agents and tools in the layers: it runs commands with the tools' allowlisted
environment (tools.common) and answers the gate through safety.hook_points.GateHooks.
"""

from valarmind_tui.hooks.names import hook_tool_name, matcher_matches
from valarmind_tui.hooks.process import ActiveHook, HookResult
from valarmind_tui.hooks.runner import HookRunner, PromptVerdict

__all__ = ["ActiveHook", "HookResult", "HookRunner", "PromptVerdict", "hook_tool_name",
           "matcher_matches"]
