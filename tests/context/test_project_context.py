"""Project context files with @imports; the prompt builder's budget and priorities."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.context.project_context import load_project_context
from valarmind_tui.context.prompt_builder import (
    PROJECT_CONTEXT,
    REPO_MAP,
    SYSTEM,
    PromptBuilder,
    build_agent_prompt,
)
from valarmind_tui.context.tokens import count_tokens


def test_loads_all_context_files_with_imports_cycle_safe(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "VALARMIND.md").write_text("# P\nSee @docs/style.md for style.\n")
    (tmp_path / "docs" / "style.md").write_text("Use tabs. Also @docs/more.md\n")
    (tmp_path / "docs" / "more.md").write_text("MORE-RULES and back to @docs/style.md\n")
    (tmp_path / ".valarmind").mkdir()
    (tmp_path / ".valarmind" / "local.md").write_text("my local note\n")
    (tmp_path / "AGENTS.md").write_text("agents file\n```\n@docs/more.md stays literal\n```\n")
    (tmp_path / "CLAUDE.md").write_text("claude file @../outside.md\n")
    (tmp_path.parent / "outside.md").write_text("OUTSIDE SECRET")
    context = load_project_context(tmp_path)
    assert [f.path for f in context.files] == [
        "VALARMIND.md", ".valarmind/local.md", "AGENTS.md", "CLAUDE.md"]
    first = context.files[0]
    assert "Use tabs." in first.text and "MORE-RULES" in first.text
    assert first.imports == ("docs/style.md", "docs/more.md")
    assert first.text.count("Use tabs.") == 1  # the cycle back to style.md is not followed
    assert "@docs/more.md stays literal" in context.files[2].text
    assert "OUTSIDE SECRET" not in context.text


def test_symlinked_import_outside_project_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("LEAKED")
    project = tmp_path / "p"
    project.mkdir()
    (project / "link.md").symlink_to(outside)
    (project / "VALARMIND.md").write_text("see @link.md\n")
    assert "LEAKED" not in load_project_context(project).text


def test_builder_drops_and_truncates_lowest_priority_first() -> None:
    builder = PromptBuilder()
    builder.add("System", "You are a careful agent. " * 20, SYSTEM, truncatable=False)
    builder.add("Project context", "Project rule line.\n" * 300, PROJECT_CONTEXT)
    builder.add("Repository map", "src/x.py:\n  def f()\n" * 300, REPO_MAP, truncatable=False)
    built = builder.build(token_budget=600)
    assert built.dropped == ["Repository map"]
    assert built.truncated == ["Project context"]
    assert count_tokens(built.text) <= 600
    assert built.text.startswith("You are a careful agent.")
    assert "truncated to fit" in built.text


def test_builder_keeps_everything_under_budget() -> None:
    built = PromptBuilder().add("System", "sys", SYSTEM).add("Working state", "ws", 40).build(
        1000)
    assert built.dropped == [] and built.truncated == []
    assert built.text == "sys\n\n# Working state\n\nws"


def test_init_agent_never_sees_project_context() -> None:
    init = AgentSpec(name="init", description="", system_prompt="INIT",
                     exclude_project_context=True)
    code = AgentSpec(name="code", description="", system_prompt="CODE")
    assert "OLD VALARMIND" not in build_agent_prompt(init, project_context="OLD VALARMIND").text
    assert "OLD VALARMIND" in build_agent_prompt(code, project_context="OLD VALARMIND").text
