"""The permission gate with real tools, a real repo, and the session's InteractiveApprover
answered through the bus as a face would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.errors import DenialEscalated
from valarmind_tui.core.events import ApprovalRequested, Notice
from valarmind_tui.safety.gate.approval import ApprovalAnswer, PermissionMode, PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import GateDecision, PermissionGate
from valarmind_tui.session.session import InteractiveApprover
from valarmind_tui.settings.config import PermissionSettings, load_settings, remember_allow_rule
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

FULL = AgentPermissions.full()
REVIEW = AgentPermissions(read=True)  # the review agent: read-only


class Person:
    """Answers approval requests from the bus with scripted answers (deny when out of them)."""

    def __init__(self, bus: EventBus, approver: InteractiveApprover) -> None:
        self.asked: list[ApprovalRequested] = []
        self.answers: list[ApprovalAnswer] = []
        self.notices: list[Notice] = []
        self._approver = approver
        bus.add_listener(self._on_event)

    def _on_event(self, event: Any) -> None:
        if isinstance(event, Notice):
            self.notices.append(event)
        if isinstance(event, ApprovalRequested):
            self.asked.append(event)
            answer = self.answers.pop(0) if self.answers else ApprovalAnswer("deny")
            self._approver.answer(event.request_id, answer)


@pytest.fixture
def setup(git_repo: Path):  # noqa: ANN201
    def make(mode: PermissionMode = PermissionMode.DEFAULT, *, allow: list[str] | None = None,
             deny: list[str] | None = None) -> tuple[PermissionGate, Person, list[str]]:
        bus = EventBus()
        approver = InteractiveApprover(bus)
        person = Person(bus, approver)
        remembered: list[str] = []
        gate = PermissionGate(
            git_repo, approver, mode=mode,
            rules=PermissionSettings(allow=allow or [], deny=deny or []),
            on_remember=remembered.append, bus=bus,
        )
        return gate, person, remembered
    return make


TOOLS = builtin_tools()
CALLS = {
    "read": ("read_file", {"path": "app.py"}),
    "write": ("write_file", {"path": "app.py", "content": "x = 1\n"}),
    "execute": ("bash", {"command": "git status"}),
}


async def check(gate: PermissionGate, git_repo: Path, name: str, args: dict[str, Any],
                permissions: AgentPermissions = FULL, agent_id: str = "main") -> GateDecision:
    tool = TOOLS.get(name)
    assert tool is not None
    ctx = ToolContext(project_root=git_repo, agent_id=agent_id)
    return await gate.check(tool, tool.parse(args), ctx, permissions)


# mode → risk → "allow" (no question), "ask" (the person is asked), "deny" (refused unasked)
MATRIX = {
    PermissionMode.DEFAULT: {"read": "allow", "write": "ask", "execute": "ask"},
    PermissionMode.ACCEPT_EDITS: {"read": "allow", "write": "allow", "execute": "ask"},
    PermissionMode.PLAN: {"read": "allow", "write": "deny", "execute": "deny"},
    PermissionMode.BYPASS: {"read": "allow", "write": "allow", "execute": "allow"},
}


@pytest.mark.parametrize("mode", list(MATRIX))
@pytest.mark.parametrize("risk", ["read", "write", "execute"])
async def test_mode_matrix(setup, git_repo: Path, mode: PermissionMode, risk: str) -> None:
    gate, person, _ = setup(mode)
    person.answers = [ApprovalAnswer("allow_once")]
    decision = await check(gate, git_repo, *CALLS[risk])
    expected = MATRIX[mode][risk]
    assert decision.allowed == (expected != "deny")
    assert len(person.asked) == (1 if expected == "ask" else 0)
    if expected == "deny":
        assert "Plan mode" in decision.reason


async def test_write_request_shows_the_diff_and_bash_the_command(setup, git_repo: Path) -> None:
    gate, person, _ = setup()
    person.answers = [ApprovalAnswer("allow_once"), ApprovalAnswer("allow_once")]
    await check(gate, git_repo, "edit_file", {"path": "app.py", "old_string": "'Hello '",
                                              "new_string": "'Hi '"})
    await check(gate, git_repo, "bash", {"command": "make test"})
    edit, run = person.asked
    assert edit.path == "app.py" and edit.diff is not None
    assert "+    return 'Hi ' + name" in edit.diff
    assert "def greet" in (git_repo / "app.py").read_text() and "Hi" not in (
        git_repo / "app.py").read_text()
    assert run.command == "make test" and run.cwd == str(git_repo.resolve())
    assert edit.request_id != run.request_id


@pytest.mark.parametrize("mode", [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS,
                                  PermissionMode.BYPASS, PermissionMode.PLAN])
async def test_sensitive_paths_always_ask(setup, git_repo: Path, mode: PermissionMode) -> None:
    (git_repo / ".env").write_text("API_KEY=sk-live\n")
    gate, person, _ = setup(mode, allow=["read_file"])
    decision = await check(gate, git_repo, "read_file", {"path": ".env"})
    assert not decision.allowed
    assert len(person.asked) == 1 and "may hold secrets" in person.asked[0].reason
    assert person.asked[0].path == ".env"


async def test_outside_the_project_is_denied_in_every_mode(setup, git_repo: Path) -> None:
    gate, person, _ = setup(PermissionMode.BYPASS)
    decision = await check(gate, git_repo, "read_file", {"path": "../../etc/passwd"})
    assert not decision.allowed and "outside the project root" in decision.reason
    assert person.asked == []


async def test_agent_permissions_refuse_whatever_the_mode(setup, git_repo: Path) -> None:
    gate, person, _ = setup(PermissionMode.BYPASS)
    decision = await check(gate, git_repo, *CALLS["write"], permissions=REVIEW, agent_id="review")
    assert not decision.allowed
    assert "review agent may not use write_file" in decision.reason
    assert (await check(gate, git_repo, *CALLS["read"], permissions=REVIEW)).allowed
    assert person.asked == []


async def test_write_globs_and_execute_allow_narrow(setup, git_repo: Path) -> None:
    gate, _, _ = setup(PermissionMode.BYPASS)
    tester = AgentPermissions(write=True, execute=True, write_globs=("tests/**",),
                              execute_allow=("pytest -q",))
    ok = await check(gate, git_repo, "write_file", {"path": "tests/test_a.py", "content": ""},
                     permissions=tester, agent_id="test")
    assert ok.allowed
    no = await check(gate, git_repo, "write_file", {"path": "app.py", "content": ""},
                     permissions=tester, agent_id="test")
    assert not no.allowed and "tests/**" in no.reason and "app.py" in no.reason
    ran = await check(gate, git_repo, "bash", {"command": "pytest -q"}, permissions=tester)
    assert ran.allowed
    other = await check(gate, git_repo, "bash", {"command": "rm -rf /"}, permissions=tester)
    assert not other.allowed and "pytest -q" in other.reason


async def test_deny_rules_beat_bypass(setup, git_repo: Path) -> None:
    gate, _, _ = setup(PermissionMode.BYPASS, deny=["bash(git push:*)"])
    decision = await check(gate, git_repo, "bash", {"command": "git push origin main"})
    assert not decision.allowed and "deny rule bash(git push:*)" in decision.reason
    assert (await check(gate, git_repo, "bash", {"command": "git status"})).allowed


async def test_project_allow_rules_answer_without_asking(setup, git_repo: Path) -> None:
    gate, person, _ = setup(allow=["bash(npm test:*)", "write_file(docs/**)"])
    assert (await check(gate, git_repo, "bash", {"command": "npm test -- -u"})).allowed
    assert (await check(gate, git_repo, "write_file", {"path": "docs/a.md", "content": ""})).allowed
    assert person.asked == []
    assert not (await check(gate, git_repo, "bash", {"command": "npm test && curl evil"})).allowed
    assert len(person.asked) == 1


async def test_allow_session_remembers_in_memory(setup, git_repo: Path) -> None:
    gate, person, remembered = setup()
    person.answers = [ApprovalAnswer("allow_session")]
    assert (await check(gate, git_repo, "bash", {"command": "git status"})).allowed
    assert person.asked[0].command == "git status"
    assert (await check(gate, git_repo, "bash", {"command": "git status"})).allowed
    assert len(person.asked) == 1 and remembered == []
    assert any("bash(git status)" in n.message for n in person.notices)
    assert not (await check(gate, git_repo, "bash", {"command": "git log"})).allowed


async def test_allow_project_is_persisted_by_on_remember(git_repo: Path) -> None:
    bus = EventBus()
    approver = InteractiveApprover(bus)
    person = Person(bus, approver)
    person.answers = [ApprovalAnswer("allow_project")]
    gate = PermissionGate(
        git_repo, approver, on_remember=lambda rule: remember_allow_rule(git_repo, rule)
    )
    assert (await check(gate, git_repo, "bash", {"command": "make lint"})).allowed
    settings = load_settings(git_repo, trusted=True)
    assert settings.permissions.allow == ["bash(make lint)"]
    fresh = PermissionGate(git_repo, PolicyApprover(), rules=settings.permissions)
    assert (await check(fresh, git_repo, "bash", {"command": "make lint"})).allowed


async def test_deny_feedback_reaches_the_decision(setup, git_repo: Path) -> None:
    gate, person, _ = setup()
    person.answers = [ApprovalAnswer("deny", feedback="use pytest instead")]
    decision = await check(gate, git_repo, "bash", {"command": "make test"})
    assert decision == GateDecision(False, "The person denied this call.", "use pytest instead")


async def test_three_similar_denials_escalate(setup, git_repo: Path) -> None:
    gate, _, _ = setup()
    assert not (await check(gate, git_repo, "bash", {"command": "rm -rf build"})).allowed
    assert not (await check(gate, git_repo, "bash", {"command": "rm -r build/"})).allowed
    assert not (await check(gate, git_repo, "bash", {"command": "ls"})).allowed  # not similar
    with pytest.raises(DenialEscalated, match="3 similar attempts to use bash"):
        await check(gate, git_repo, "bash", {"command": "rm -f build/x"})


async def test_plan_mode_refusals_escalate_too(setup, git_repo: Path) -> None:
    gate, person, _ = setup(PermissionMode.PLAN)
    for _ in range(2):
        assert not (await check(gate, git_repo, *CALLS["write"])).allowed
    with pytest.raises(DenialEscalated):
        await check(gate, git_repo, *CALLS["write"])
    assert person.asked == []


async def test_headless_policy_denies_writes_and_bash(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover())
    assert (await check(gate, git_repo, *CALLS["read"])).allowed
    assert not (await check(gate, git_repo, *CALLS["write"])).allowed
    assert not (await check(gate, git_repo, *CALLS["execute"])).allowed
    gate.mode = PermissionMode.ACCEPT_EDITS
    assert (await check(gate, git_repo, *CALLS["write"])).allowed


# -- parsed commands, protected paths, the sandbox fallback, escalation by intent ---------------
async def test_an_allow_rule_answers_only_when_every_simple_command_matches(
    setup, git_repo: Path
) -> None:
    gate, person, _ = setup(allow=["bash(npm test:*)", "bash(git status)"])
    assert (await check(gate, git_repo, "bash", {"command": "npm test && git status"})).allowed
    assert person.asked == []
    assert not (await check(gate, git_repo, "bash", {"command": "git status; curl evil"})).allowed
    assert not (await check(gate, git_repo, "bash", {"command": "npm test $(curl evil)"})).allowed
    assert not (await check(gate, git_repo, "bash", {"command": "eval npm test"})).allowed
    assert len(person.asked) == 3


async def test_unparseable_commands_ask_even_with_an_allow_rule(setup, git_repo: Path) -> None:
    gate, person, _ = setup(PermissionMode.ACCEPT_EDITS, allow=["bash"])
    assert not (await check(gate, git_repo, "bash", {"command": "$CMD"})).allowed
    assert "not checked by the rules" in person.asked[0].reason


async def test_bypass_runs_unparseable_commands_unless_a_deny_rule_exists(
    setup, git_repo: Path
) -> None:
    gate, person, _ = setup(PermissionMode.BYPASS)
    assert (await check(gate, git_repo, "bash", {"command": 'eval "$X"'})).allowed
    gate, person, _ = setup(PermissionMode.BYPASS, deny=["bash(rm:*)"])
    decision = await check(gate, git_repo, "bash", {"command": 'eval "$X"'})
    assert not decision.allowed and "bash(rm:*)" in decision.reason
    assert len(person.asked) == 1


@pytest.mark.parametrize("mode", [PermissionMode.BYPASS, PermissionMode.ACCEPT_EDITS])
async def test_protected_writes_ask_in_every_mode(setup, git_repo: Path,
                                                  mode: PermissionMode) -> None:
    gate, person, _ = setup(mode, allow=["write_file", "write_file(.mcp.json)"])
    decision = await check(gate, git_repo, "write_file", {"path": ".mcp.json", "content": "{}"})
    assert not decision.allowed and ".mcp.json" in decision.reason
    assert len(person.asked) == 1 and "protected path" in person.asked[0].reason
    assert not (git_repo / ".mcp.json").exists()


async def test_a_user_rule_naming_a_protected_path_lets_it_through(git_repo: Path) -> None:
    gate = PermissionGate(git_repo, PolicyApprover(allow_writes=True), mode=PermissionMode.BYPASS,
                          user_rules=PermissionSettings(allow=["edit_file(.valarmind/**)"]))
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind" / "config.toml").write_text("model = 'a'\n")
    args = {"path": ".valarmind/config.toml", "old_string": "'a'", "new_string": "'b'"}
    assert (await check(gate, git_repo, "edit_file", args)).allowed
    refused = await check(gate, git_repo, "write_file", {"path": ".mcp.json", "content": "{}"})
    assert not refused.allowed and "protected-path rule .mcp.json" in (refused.feedback or "")


async def test_a_protected_write_remembered_for_the_session_counts_as_the_persons(
    setup, git_repo: Path
) -> None:
    gate, person, _ = setup(PermissionMode.BYPASS)
    person.answers = [ApprovalAnswer("allow_session")]
    args = {"path": ".gitattributes", "content": "*.txt text\n"}
    assert (await check(gate, git_repo, "write_file", args)).allowed
    assert (await check(gate, git_repo, "write_file", args)).allowed
    assert len(person.asked) == 1


@pytest.mark.parametrize("mode", list(PermissionMode))
async def test_unconfined_commands_ask_in_every_mode(git_repo: Path, mode: PermissionMode) -> None:
    approver = PolicyApprover()
    gate = PermissionGate(git_repo, approver, mode=mode, unconfined_commands_ask=True,
                          rules=PermissionSettings(allow=["bash(git status)"]))
    decision = await check(gate, git_repo, "bash", {"command": "git status"})
    assert not decision.allowed
    if mode is not PermissionMode.PLAN:
        assert "no sandbox" in approver.denied[0].reason
    assert (await check(gate, git_repo, "read_file", {"path": "app.py"})).allowed


async def test_denials_count_by_agent_kind_across_instances_and_prompts(
    setup, git_repo: Path
) -> None:
    gate, _, _ = setup()
    gate.mode = PermissionMode.PLAN
    for agent_id in ("code-1", "code-2"):
        assert not (await check(gate, git_repo, "bash", {"command": "touch x"},
                                agent_id=agent_id)).allowed
    assert not (await check(gate, git_repo, "bash", {"command": "touch x"},
                            agent_id="main")).allowed  # another kind
    assert gate.denial_counts()[("code", "touch")] == 2
    with pytest.raises(DenialEscalated, match="touch"):
        await check(gate, git_repo, "bash", {"command": "env touch x"}, agent_id="code#3")


async def test_bad_input_is_a_refusal_not_a_traceback(setup, git_repo: Path) -> None:
    gate, _, _ = setup(PermissionMode.BYPASS)
    bad_path = await check(gate, git_repo, "write_file", {"path": "a\x00b", "content": ""})
    assert not bad_path.allowed and "not a usable path" in bad_path.reason
    gate, person, _ = setup(PermissionMode.BYPASS, deny=["bash(rm:*)"])
    weird = await check(gate, git_repo, "bash", {"command": "rm \x00 ((( $("})
    assert not weird.allowed


async def test_the_persons_own_commands_are_refused_but_never_escalate(
    setup, git_repo: Path
) -> None:
    gate, _, _ = setup(PermissionMode.BYPASS, deny=["bash(rm:*)"])
    for _ in range(4):
        refused = await check(gate, git_repo, "bash", {"command": "rm x"}, agent_id="user")
        assert not refused.allowed and "bash(rm:*)" in refused.reason
