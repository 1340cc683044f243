"""Agent Skills: found where each tool keeps them, listed by name and description only, the body
loaded by the skill tool or /name, a file of the folder on demand, nothing from an untrusted
folder, nothing read through a link out of the skill's folder."""

from __future__ import annotations

import os
from pathlib import Path

from tests.setup.helpers import SETUPS, place, trust
from valarmind_tui.agents.listings import skills_section
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.trust.decision import decide
from valarmind_tui.setup.report import Scope
from valarmind_tui.setup.skills import load_skills, scan_skills
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.skills.skill import SkillTool


def test_skills_are_found_in_every_project_and_user_folder(git_repo: Path) -> None:
    home = Path(os.environ["HOME"])
    place("written", git_repo)  # .claude/skills/release-notes, .agents/skills/changelog
    place("gemini-cli", git_repo)  # .gemini/skills/code-reviewer (real, Apache-2.0)
    for folder in (".codex/skills/one", ".gemini/skills/two", ".agents/skills/three",
                   ".claude/skills/four", ".config/valarmind/skills/five"):
        (home / folder).mkdir(parents=True)
        (home / folder / "SKILL.md").write_text(
            f"---\nname: {Path(folder).name}\ndescription: does {folder}\n---\nbody\n")
    skills, report = load_skills(git_repo, home, trusted=True)
    by_name = {s.name: s for s in skills}
    assert set(by_name) == {"release-notes", "changelog", "code-reviewer", "one", "two",
                            "three", "four", "five"}
    assert (by_name["code-reviewer"].tool, by_name["code-reviewer"].scope) == (
        "gemini", Scope.PROJECT)
    assert by_name["one"].tool == "codex" and by_name["one"].scope is Scope.USER
    assert by_name["code-reviewer"].description.startswith("Use this skill to review code.")
    notes = {f.name: f.reason for f in report}
    assert "allowed-tools pre-approves nothing" in notes["release-notes"]
    assert all(f.loaded for f in report)


def test_an_untrusted_folder_reports_its_skills_and_loads_none(git_repo: Path) -> None:
    place("written", git_repo)
    found = scan_skills(git_repo, Path(os.environ["HOME"]), trusted=False)
    assert {f.name for f in found} == {"release-notes", "changelog"}
    assert not any(f.loaded for f in found)
    assert all("not trusted" in f.reason for f in found)


def test_a_project_skill_keeps_its_name_over_a_users(git_repo: Path) -> None:
    home = Path(os.environ["HOME"])
    place("written", git_repo)
    user = home / ".claude/skills/changelog"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text("---\nname: changelog\ndescription: mine\n---\nx\n")
    skills, report = load_skills(git_repo, home, trusted=True)
    assert [s.scope for s in skills if s.name == "changelog"] == [Scope.PROJECT]
    left_out = [f for f in report if not f.loaded]
    assert len(left_out) == 1 and "name taken by" in left_out[0].reason


async def test_the_skill_tool_loads_the_body_and_a_file_of_the_folder(git_repo: Path) -> None:
    place("written", git_repo)
    skills, _ = load_skills(git_repo, Path(os.environ["HOME"]), trusted=True)
    tool = SkillTool(skills)
    ctx = ToolContext(project_root=git_repo)
    body = await tool.run(tool.parse({"name": "release-notes"}), ctx)
    assert "Run `scripts/last-tag.sh`" in body.output
    assert str(git_repo / ".claude/skills/release-notes") in body.output
    style = await tool.run(tool.parse({"name": "release-notes",
                                       "file": "references/style.md"}), ctx)
    assert style.output.startswith("# Style")
    escape = await tool.run(tool.parse({"name": "release-notes", "file": "../../../app.py"}),
                            ctx)
    assert escape.is_error and "not inside the skill's folder" in escape.output
    (git_repo / ".claude/skills/release-notes/references/link.md").symlink_to(
        git_repo / "app.py")
    linked = await tool.run(tool.parse({"name": "release-notes",
                                        "file": "references/link.md"}), ctx)
    assert linked.is_error and "not inside" in linked.output
    unknown = await tool.run(tool.parse({"name": "nope"}), ctx)
    assert unknown.is_error and "release-notes" in unknown.output


async def test_skills_command_and_slash_name_in_a_session(git_repo: Path, model_settings,
                                                         fake_model) -> None:
    from tests.fakes.model_server import ScriptedTurn

    place("written", git_repo)
    trust(git_repo)
    session = build_session(model_settings(git_repo, trusted=decide(git_repo).trusted), git_repo,
                      approver=PolicyApprover())
    await session.start()
    listed = await session.run_command("/skills")
    assert "| release-notes | project (claude)" in listed.text
    assert "| changelog | project (agents)" in listed.text
    fake_model.script(ScriptedTurn(text="Notes drafted."))
    answer = await session.run_command("/release-notes for 2.0")
    assert answer.ok and answer.text == "Notes drafted."
    sent = fake_model.requests[-1]["messages"]
    system, user = sent[0]["content"], sent[-1]["content"]
    assert "- release-notes: Drafts release notes" in system  # the listing, not the body
    assert "Run `scripts/last-tag.sh`" not in system
    assert "Run `scripts/last-tag.sh`" in user and user.rstrip().endswith("for 2.0")
    tools = {t["function"]["name"] for t in fake_model.requests[-1]["tools"]}
    assert "skill" in tools


async def test_a_skill_only_the_person_may_use_is_not_listed(git_repo: Path, model_settings,
                                                            fake_model) -> None:
    from tests.fakes.model_server import ScriptedTurn

    place("written", git_repo)
    path = git_repo / ".agents/skills/changelog/SKILL.md"
    path.write_text(path.read_text().replace(
        "---\n\n", "disable-model-invocation: true\n---\n\n"))
    trust(git_repo)
    session = build_session(model_settings(git_repo, trusted=decide(git_repo).trusted), git_repo,
                      approver=PolicyApprover())
    await session.start()
    fake_model.script(ScriptedTurn(text="ok"), ScriptedTurn(text="ok"))
    await session.submit("hello")
    system = fake_model.requests[-1]["messages"][0]["content"]
    assert "- release-notes:" in system and "- changelog" not in system
    await session.run_command("/changelog added skills")
    sent = fake_model.requests[-1]["messages"][-1]["content"]
    assert 'Add the change under "Unreleased"' in sent


def test_fifty_skills_stay_within_two_percent_of_the_window(tmp_path: Path) -> None:
    home = tmp_path / "home"
    real = (SETUPS / "gemini-cli/.gemini/skills/code-reviewer/SKILL.md").read_text()
    for number in range(50):
        folder = home / ".claude/skills" / f"skill-{number:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(real.replace("name: code-reviewer",
                                                      f"name: skill-{number:02d}"))
    skills, _ = load_skills(tmp_path / "project", home, trusted=False)
    assert len(skills) == 50
    for window in (128_000, 200_000, 32_000):
        listing = skills_section(skills, window)
        assert count_tokens(listing) <= window * 0.02
    small = skills_section(skills, 32_000)
    assert "more skills" in small  # cut, and says so
    assert skills_section(skills, 1_000_000).count("\n- ") == 50


def test_agents_skills_load_from_every_folder_between_the_cwd_and_the_git_root(
        git_repo: Path) -> None:
    home = Path(os.environ["HOME"])
    place("written", git_repo)  # the root's .agents/skills/changelog
    package = git_repo / "packages" / "api"
    nested = package / ".agents" / "skills"
    (nested / "migrate").mkdir(parents=True)
    (nested / "migrate" / "SKILL.md").write_text(
        "---\nname: migrate\ndescription: Run the api's migrations.\n---\nalembic upgrade\n")
    (nested / "changelog").mkdir()
    (nested / "changelog" / "SKILL.md").write_text(
        "---\nname: changelog\ndescription: The api's own changelog.\n---\nx\n")
    (git_repo / "packages" / ".agents" / "skills" / "lint").mkdir(parents=True)
    (git_repo / "packages" / ".agents" / "skills" / "lint" / "SKILL.md").write_text(
        "---\nname: lint\ndescription: Lint every package.\n---\nx\n")
    skills, report = load_skills(git_repo, home, trusted=True, cwd=package)
    by_name = {s.name: s for s in skills}
    assert {"migrate", "lint", "changelog"} <= set(by_name)
    assert by_name["changelog"].description == "The api's own changelog."  # nearest wins
    assert [f.reason for f in report if f.name == "changelog" and not f.loaded] == [
        f"name taken by {nested / 'changelog' / 'SKILL.md'}"]
    at_root, _ = load_skills(git_repo, home, trusted=True, cwd=git_repo)
    assert "migrate" not in {s.name for s in at_root}  # a sibling package's stay out
    untrusted = scan_skills(git_repo, home, trusted=False, cwd=package)
    assert {f.name for f in untrusted} >= {"migrate", "lint"}
    assert not any(f.loaded for f in untrusted)
