"""What the permission mode alone says about a call (the gate asks it after the strict steps).

Plan lets only reads (and the planning tools) through; bypass passes everything but a command
asking for the network (which leaves the sandbox's no-network rule: the person decides);
accept-edits passes writes in the project; default passes only reads. Whatever a mode does not
pass goes on to the allow rules and then to the person.
"""

from __future__ import annotations

from valarmind_tui.safety.gate.approval import PermissionMode
from valarmind_tui.safety.gate.call import Call
from valarmind_tui.safety.paths import glob_match

# delegate passes: the Delegator itself refuses specialists that write or execute in plan mode.
PLAN_MODE_TOOLS = ("task_*", "exit_plan_mode", "delegate")
PLAN_MODE_ASKED = ("web_search",)
"""Not refused in plan mode (a search is research), but asked like any network use."""


def is_planning_tool(name: str) -> bool:
    return any(glob_match(pattern, name) for pattern in PLAN_MODE_TOOLS)


def plan_mode_refusal(mode: PermissionMode, call: Call) -> str | None:
    """Why plan mode refuses the call, None when it does not."""
    if mode is not PermissionMode.PLAN or call.risk == "read" or is_planning_tool(call.tool.name):
        return None
    if call.tool.name in PLAN_MODE_ASKED:
        return None
    return (
        f"Plan mode is on: only read-only tools may run, so {call.tool.name} was not "
        "run. Investigate with read tools and present your plan; the person leaves plan "
        "mode when they accept it."
    )


def allowed_by_mode(mode: PermissionMode, call: Call) -> str | None:
    """The reason a call passes by mode alone, None when it must go on to rules and asking."""
    if mode is PermissionMode.BYPASS:
        return None if call.network else "bypass mode"
    if call.risk in ("read", "spawn") or is_planning_tool(call.tool.name):
        return f"{call.risk} tool"
    external = getattr(call.tool, "agents", None) is not None  # MCP or plugin: not an edit
    if mode is PermissionMode.ACCEPT_EDITS and call.risk == "write" and not external:
        return "accept-edits mode allows writes inside the project"
    return None
