"""Attack: dodge a deny rule for `rm` (`bash(rm:*)`) by spelling the command another way.

Each test is one spelling, run in bypass mode with the most permissive headless policy (allow
writes and commands) through the real bash tool and a real gate: contained means the gate did
not let it run and the victim directory is still there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.safety.gate.approval import PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.settings.config import PermissionSettings
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

SPELLINGS = [
    "rm -rf victim; true",
    "true && rm -rf victim",
    "false || rm -rf victim",
    "echo $(rm -rf victim)",
    "echo `rm -rf victim`",
    "(rm -rf victim)",
    "{ rm -rf victim; }",
    "rm -rf victim | cat",
    "cat <(rm -rf victim)",
    "sh -c 'rm -rf victim'",
    'bash -lc "rm -rf victim"',
    "bash -c 'sh -c \"rm -rf victim\"'",
    "env rm -rf victim",
    "env -i PATH=/bin:/usr/bin rm -rf victim",
    "command rm -rf victim",
    "builtin command rm -rf victim",
    "exec rm -rf victim",
    "nohup rm -rf victim",
    "nice -n 5 rm -rf victim",
    "timeout 5 rm -rf victim",
    "stdbuf -oL rm -rf victim",
    "/bin/rm -rf victim",
    "/usr/bin/../bin/rm -rf victim",
    "\\rm -rf victim",
    "'rm' -rf victim",
    '"r"m -rf victim',
    "r\\m -rf victim",
    "$'\\x72m' -rf victim",
    "echo victim | xargs rm -rf",
    "echo victim | xargs -I{} rm -rf {}",
    "find . -maxdepth 1 -name victim -exec rm -rf {} +",
    "find victim -delete",
    "if true; then rm -rf victim; fi",
    "while true; do rm -rf victim; break; done",
    "for d in victim; do rm -rf $d; done",
    "case x in x) rm -rf victim;; esac",
    "f(){ rm -rf victim; }; f",
    "ls\nrm -rf victim",
    "ls & rm -rf victim",
    "eval rm -rf victim",
    "eval 'rm -rf victim'",
    "X=rm; $X -rf victim",
    'eval "$(echo rm -rf victim)"',
    "sh -c \"$(printf 'rm -rf victim')\"",
    "echo 'rm -rf victim' | sh",
    "bash <<< 'rm -rf victim'",
    "busybox rm -rf victim",
    "A=$(rm -rf victim) true",
    "cat <<EOF\n$(rm -rf victim)\nEOF",
    "su -c 'rm -rf victim' $(whoami)",
    "flock /tmp/valarmind-test.lock -c 'rm -rf victim'",
    "timeout 1 watch -n 1 rm -rf victim",
]


@pytest.mark.parametrize("command", SPELLINGS)
async def test_deny_rule_holds(git_repo: Path, command: str) -> None:
    victim = git_repo / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    gate = PermissionGate(git_repo, PolicyApprover(allow_writes=True, allow_execute=True),
                          mode=PermissionMode.BYPASS,
                          rules=PermissionSettings(deny=["bash(rm:*)"]))
    bash = builtin_tools().get("bash")
    assert bash is not None
    ctx = ToolContext(project_root=git_repo, agent_id="main")
    status, result = await run_gated(bash, bash.parse({"command": command}), ctx, gate,
                                     AgentPermissions.full())
    assert (victim / "keep.txt").exists(), f"{command!r} ran: {result.output}"
    assert status == "denied"
    assert "bash(rm:*)" in result.output


async def test_a_user_deny_rule_holds_too(git_repo: Path) -> None:
    victim = git_repo / "victim"
    victim.mkdir()
    gate = PermissionGate(git_repo, PolicyApprover(allow_execute=True), mode=PermissionMode.BYPASS,
                          user_rules=PermissionSettings(deny=["bash(rm:*)"]))
    bash = builtin_tools().get("bash")
    assert bash is not None
    ctx = ToolContext(project_root=git_repo)
    status, _ = await run_gated(bash, bash.parse({"command": "true; rm -rf victim"}), ctx, gate,
                                AgentPermissions.full())
    assert status == "denied" and victim.exists()


@pytest.mark.parametrize("command", [
    "git status && rm -rf victim", "git status $(rm -rf victim)", "git status\nrm -rf victim",
])
async def test_an_allow_rule_prefix_does_not_carry_a_second_command(
    git_repo: Path, command: str
) -> None:
    victim = git_repo / "victim"
    victim.mkdir()
    gate = PermissionGate(git_repo, PolicyApprover(),
                          rules=PermissionSettings(allow=["bash(git status:*)"]))
    bash = builtin_tools().get("bash")
    assert bash is not None
    ctx = ToolContext(project_root=git_repo)
    status, _ = await run_gated(bash, bash.parse({"command": command}), ctx, gate,
                                AgentPermissions.full())
    assert status == "denied" and victim.exists()


@pytest.mark.parametrize("command", [
    "git -C . push origin main", "git --no-pager push", "command git push",
    "true; /usr/bin/git push origin HEAD", "sh -c 'git push'",
])
async def test_a_multi_verb_deny_rule_holds(git_repo: Path, command: str) -> None:
    gate = PermissionGate(git_repo, PolicyApprover(allow_execute=True), mode=PermissionMode.BYPASS,
                          rules=PermissionSettings(deny=["bash(git push:*)"]))
    bash = builtin_tools().get("bash")
    assert bash is not None
    status, result = await run_gated(bash, bash.parse({"command": command}),
                                     ToolContext(project_root=git_repo), gate,
                                     AgentPermissions.full())
    assert status == "denied" and "bash(git push:*)" in result.output
