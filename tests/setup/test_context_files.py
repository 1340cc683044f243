"""Context files where people keep them: each name, the person's own, root down to the starting
folder, each file once (ruff's CLAUDE.md is `@AGENTS.md`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.setup.conftest import place
from valarmind_tui.context.project_context import load_project_context
from valarmind_tui.setup.context_files import project_root_for, scan_context_files


def test_ruffs_claude_md_importing_agents_md_reads_it_once(tmp_path: Path) -> None:
    ruff = place("ruff", tmp_path / "ruff")
    context = load_project_context(ruff, home=tmp_path / "home")
    assert [f.path for f in context.files] == ["AGENTS.md", "CLAUDE.md"]
    assert context.text.count("# Ruff Repository") == 1
    assert context.files[1].text.strip() == "@AGENTS.md (in the context above as AGENTS.md)"
    assert context.files[0].size == (ruff / "AGENTS.md").stat().st_size


def test_every_name_in_a_folder(tmp_path: Path) -> None:
    for name in ("GEMINI.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md",
                 "AGENTS.override.md", "CLAUDE.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(f"text of {name}\n")
    context = load_project_context(tmp_path, home=tmp_path / "nobody")
    assert [f.path for f in context.files] == [
        "AGENTS.override.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "GEMINI.md"]
    rows = {f.name: f for f in scan_context_files(tmp_path, tmp_path / "nobody", False)}
    assert rows["AGENTS.md"].loaded is False
    assert rows["AGENTS.md"].reason == "AGENTS.override.md replaces it"


def test_the_persons_own_files_come_first(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("project rules\n")
    for name in (".claude/CLAUDE.md", ".codex/AGENTS.md", ".gemini/GEMINI.md",
                 ".config/valarmind/VALARMIND.md"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"my {name}\n")
    (home / ".claude" / "style.md").write_text("IMPORTED FROM HOME\n")
    (home / ".claude" / "CLAUDE.md").write_text("mine, and @style.md\n")
    context = load_project_context(project, home=home)
    assert [f.path for f in context.files] == [
        "~/.config/valarmind/VALARMIND.md", "~/.claude/CLAUDE.md", "~/.codex/AGENTS.md",
        "~/.gemini/GEMINI.md", "AGENTS.md"]
    assert "IMPORTED FROM HOME" in context.files[1].text


def test_a_copy_or_a_link_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("the shared rules\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    (tmp_path / "GEMINI.md").write_text("the shared rules\n")
    context = load_project_context(tmp_path, home=tmp_path / "nobody")
    assert [f.path for f in context.files] == ["AGENTS.md"]
    rows = {f.name: f.reason for f in scan_context_files(tmp_path, tmp_path / "nobody", False)}
    assert rows["CLAUDE.md"] == "the same file as AGENTS.md, read once"
    assert rows["GEMINI.md"] == "the same text as AGENTS.md, read once"


def test_from_the_git_root_down_to_the_starting_folder(git_repo: Path, tmp_path: Path) -> None:
    deep = git_repo / "src" / "pkg"
    deep.mkdir(parents=True)
    (git_repo / "AGENTS.md").write_text("root rules\n")
    (git_repo / "src" / "AGENTS.md").write_text("src rules\n")
    (git_repo / "src" / "pkg" / "CLAUDE.md").write_text("pkg rules\n")
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "AGENTS.md").write_text("docs rules, another branch\n")
    assert project_root_for(deep, home=tmp_path / "elsewhere") == git_repo
    monorepo_service = git_repo / "src"  # trusted (or declined) alone: a project of its own
    assert project_root_for(deep, home=tmp_path / "elsewhere",
                            decided=lambda f: f == monorepo_service) == monorepo_service
    context = load_project_context(git_repo, cwd=deep, home=tmp_path / "nobody")
    assert [f.path for f in context.files] == [
        "AGENTS.md", "src/AGENTS.md", "src/pkg/CLAUDE.md"]
    assert [f.path for f in load_project_context(git_repo, home=tmp_path).files] == [
        "AGENTS.md"]


def test_the_root_walk_stops_below_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repository
    folder = home / "scratch" / "notes"
    folder.mkdir(parents=True)
    assert project_root_for(folder, home=home) == folder
    assert project_root_for(home, home=home) == home


def test_valarmind_setup_in_a_subfolder_reports_the_git_roots_files(
        git_repo: Path, isolated_home: Path) -> None:
    (git_repo / "AGENTS.md").write_text("root rules\n")
    sub = git_repo / "src"
    sub.mkdir()
    run = subprocess.run([sys.executable, "-m", "valarmind_tui", "setup"], cwd=sub,
                         capture_output=True, text=True, check=True, timeout=60)
    assert f"Setup found for {git_repo}:" in run.stdout
    assert "ok AGENTS.md  [project, AGENTS.md]" in run.stdout
    (sub / "AGENTS.md").write_text("src rules\n")
    nested = subprocess.run([sys.executable, "-m", "valarmind_tui", "setup"], cwd=sub,
                            capture_output=True, text=True, check=True, timeout=60)
    assert "ok src/AGENTS.md  [project, src/AGENTS.md]" in nested.stdout


def test_valarmind_setup_json_for_scripts(git_repo: Path, isolated_home: Path) -> None:
    place("vscode", git_repo)
    run = subprocess.run([sys.executable, "-m", "valarmind_tui", "setup", "--json"],
                         cwd=git_repo, capture_output=True, text=True, check=True, timeout=60)
    rows = json.loads(run.stdout)
    assert rows == [{"kind": "hook", "name": "PreToolUse", "source": str(
        git_repo / ".claude" / "settings.json"), "scope": "project", "tool": "claude",
        "loaded": False, "reason": "untrusted folder: a project's hooks wait for /trust yes"}]
    trusted = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "setup", "--json", "--trust-project"],
        cwd=git_repo, capture_output=True, text=True, check=True, timeout=60)
    assert [(r["name"], r["loaded"]) for r in json.loads(trusted.stdout)] == [
        ("PreToolUse Bash: npx block-no-verify@1.1.2", True)]


async def test_a_subfolders_context_file_loads_when_an_agent_first_reads_there(
        git_repo: Path, isolated_home: Path, tmp_path: Path) -> None:
    from valarmind_tui.agents.gated_call import run_gated
    from valarmind_tui.safety.gate.approval import PolicyApprover
    from valarmind_tui.safety.gate.permissions import AgentPermissions
    from valarmind_tui.session.wiring import build_session
    from valarmind_tui.settings.config import load_settings
    from valarmind_tui.tools.base import ToolContext

    (git_repo / "AGENTS.md").write_text("root rules\n")
    pkg = git_repo / "src" / "pkg"
    pkg.mkdir(parents=True)
    (git_repo / "src" / "CLAUDE.md").write_text("SRC RULES: tabs\n")
    (pkg / "AGENTS.md").write_text("PKG RULES: no globals\n")
    (pkg / "mod.py").write_text("x = 1\n")
    (pkg / "other.py").write_text("y = 2\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("OUTSIDE RULES\n")
    (outside / "f.py").write_text("z = 3\n")
    (git_repo / "linked").symlink_to(outside)
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    assert [f.path for f in session.project_context.load().files] == ["AGENTS.md"]
    ctx = ToolContext(project_root=git_repo, services=session.services)
    read = session.tools.get("read_file")
    assert read is not None

    async def read_file(path: str) -> str:
        _, result = await run_gated(read, read.parse({"path": path}), ctx, session.gate,
                                    AgentPermissions.full())
        return result.output

    first = await read_file("src/pkg/mod.py")
    assert "x = 1" in first and "SRC RULES: tabs" in first and "PKG RULES: no globals" in first
    assert "<!-- src/pkg/AGENTS.md: the context file of a folder you are working in -->" in first
    again = await read_file("src/pkg/other.py")
    assert "y = 2" in again and "PKG RULES" not in again and "SRC RULES" not in again
    assert session.project_context.nested(["linked/f.py"]) == ""  # a link out of the project
