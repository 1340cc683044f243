"""Secrets leaving through tools other than read_file: diffs, status, search, multi-file reads,
/review (its report and its model's prompt) and the MCP server face's review and search.

Each test puts the sentinel key in a file that may hold secrets (`.env`, `id_rsa`...) in a real
git repository and makes one attempt to get it out; contained = the sentinel is nowhere in
what the model (or the MCP peer) would see.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.mcp.server.test_serve import stdio_session
from tests.security.conftest import SENTINEL
from valarmind_tui.agents.review.runner import run_review
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.files.grep import Grep

SOURCE = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
"""The server runs this checkout's code (the venv's `valarmind` may be installed from another)."""
ENV_TEXT = f"OPENAI_API_KEY={SENTINEL}\nDEBUG=1\n"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, env=GIT_ENV,
                          capture_output=True, text=True).stdout


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


async def tool(repo: Path, name: str, **arguments: Any) -> ToolResult:
    found = builtin_tools().get(name)
    assert found is not None
    return await found.run(found.parse(arguments), ToolContext(project_root=repo))


async def grep(repo: Path, backend: str, **arguments: Any) -> ToolResult:
    found = Grep(backend)  # type: ignore[arg-type]
    return await found.run(found.parse(arguments), ToolContext(project_root=repo))


def contained(result: ToolResult | str) -> str:
    text = result if isinstance(result, str) else result.output + repr(result.data)
    assert SENTINEL not in text
    return text


@pytest.fixture
def env_committed(git_repo: Path) -> Path:
    """A commit that adds `.env` (with the sentinel) next to an ordinary change."""
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    commit(git_repo, "add settings")
    return git_repo


# -- git_diff -------------------------------------------------------------------------------
async def test_git_diff_of_a_commit_adding_env(env_committed: Path) -> None:
    text = contained(await tool(env_committed, "git_diff", ref="HEAD~1"))
    assert "[.env: content left out: the file may hold secrets]" in text
    assert "+    return 'Hi ' + name" in text  # the harmless change is still shown


async def test_git_diff_of_a_range(env_committed: Path) -> None:
    text = contained(await tool(env_committed, "git_diff", ref="HEAD~1..HEAD"))
    assert "content left out" in text


async def test_git_diff_three_dot_range(env_committed: Path) -> None:
    contained(await tool(env_committed, "git_diff", ref="HEAD~1...HEAD"))


async def test_git_diff_working_tree(git_repo: Path) -> None:
    (git_repo / ".env").write_text("OPENAI_API_KEY=placeholder\n")
    commit(git_repo)
    (git_repo / ".env").write_text(ENV_TEXT)
    text = contained(await tool(git_repo, "git_diff"))
    assert "placeholder" not in text and ".env" in text


async def test_git_diff_staged(git_repo: Path) -> None:
    (git_repo / ".env.local").write_text(ENV_TEXT)
    git(git_repo, "add", ".env.local")
    text = contained(await tool(git_repo, "git_diff", staged=True))
    assert "[.env.local: content left out" in text


async def test_git_diff_naming_the_file(env_committed: Path) -> None:
    contained(await tool(env_committed, "git_diff", ref="HEAD~1", paths=[".env"]))


async def test_git_diff_rename_of_env_to_a_harmless_name(env_committed: Path) -> None:
    git(env_committed, "mv", ".env", "notes.txt")
    (env_committed / "notes.txt").write_text(ENV_TEXT + f"MORE={SENTINEL}\n")
    commit(env_committed, "rename")
    text = contained(await tool(env_committed, "git_diff", ref="HEAD~1"))
    assert "content left out" in text


async def test_git_diff_of_a_private_key(git_repo: Path) -> None:
    (git_repo / "deploy").mkdir()
    (git_repo / "deploy" / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SENTINEL}\n-----END OPENSSH PRIVATE KEY-----\n")
    commit(git_repo)
    text = contained(await tool(git_repo, "git_diff", ref="HEAD~1"))
    assert "[deploy/id_rsa: content left out" in text


async def test_git_diff_of_aws_credentials(git_repo: Path) -> None:
    (git_repo / ".aws").mkdir()
    (git_repo / ".aws" / "config").write_text(f"aws_secret_access_key = {SENTINEL}\n")
    commit(git_repo)
    contained(await tool(git_repo, "git_diff", ref="HEAD~1"))


async def test_git_diff_of_a_symlink_to_env_modified_in_place(git_repo: Path) -> None:
    (git_repo / ".env").write_text("A=1\n")
    commit(git_repo)
    os.symlink(".env", git_repo / "notes.txt")
    commit(git_repo, "link")
    (git_repo / ".env").write_text(ENV_TEXT)
    contained(await tool(git_repo, "git_diff"))
    contained(await tool(git_repo, "git_diff", ref="HEAD~1"))


# -- git_status -----------------------------------------------------------------------------
async def test_git_status_names_untracked_env_without_content(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    text = contained(await tool(git_repo, "git_status"))
    assert "?? .env" in text


# -- grep -----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_for_the_sentinel_across_the_project(git_repo: Path, backend: str) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "config").mkdir()
    (git_repo / "config" / "credentials.json").write_text(f'{{"key": "{SENTINEL}"}}\n')
    result = await grep(git_repo, backend, pattern="sk-valarmind")
    text = contained(result)
    assert ".env" in text and "not searched" in text


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_grep_through_a_symlink_named_like_notes(git_repo: Path, backend: str) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    os.symlink(".env", git_repo / "notes.txt")
    contained(await grep(git_repo, backend, pattern="OPENAI_API_KEY", glob="*.txt"))
    contained(await grep(git_repo, backend, pattern="OPENAI_API_KEY"))


# -- read_many_files ------------------------------------------------------------------------
async def test_read_many_files_with_env_in_a_glob(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / ".env.production").write_text(ENV_TEXT)
    text = contained(await tool(git_repo, "read_many_files", paths=["**/*", ".*"]))
    assert "app.py" in text and ".env: skipped, it may hold secrets" in text


async def test_read_many_files_through_a_symlink_in_a_glob(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    os.symlink(".env", git_repo / "notes.txt")
    text = contained(await tool(git_repo, "read_many_files", paths=["*.txt"]))
    assert "notes.txt: skipped" in text


# -- /review --------------------------------------------------------------------------------
async def test_review_of_untracked_env_offline(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "app.py").write_text("import os\n")
    report = await run_review(git_repo, [])
    contained(report.diff + report.to_markdown() + repr(report.to_dict()))
    assert ".env" in report.files and "[.env: content left out" in report.diff


async def test_review_of_a_commit_range_with_env(env_committed: Path) -> None:
    report = await run_review(env_committed, ["HEAD~1..HEAD"])
    contained(report.diff + report.to_markdown())
    assert any("left out" in note for note in report.notes)


async def test_review_agent_prompt_leaves_env_out(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "secrets.py").write_text(f"KEY = '{SENTINEL}'\n")
    prompts: list[str] = []

    class Recorder:
        async def run(self, name: str, task: str, **kw: Any) -> Any:
            prompts.append(task)
            return SimpleNamespace(result=None, problem="none", status="done",
                                   text=f"I saw {task[-200:]}")

    report = await run_review(git_repo, [], delegator=Recorder())  # type: ignore[arg-type]
    assert prompts and ".env" in prompts[0]
    contained(prompts[0] + report.to_markdown() + repr(report.to_dict()))


def test_valarmind_review_command_offline(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    env = {"HOME": os.environ["HOME"], "PATH": os.environ["PATH"],
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = subprocess.run([sys.executable, "-m", "valarmind_tui", "review", "--json"],
                         cwd=git_repo, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    contained(out.stdout + out.stderr)
    assert ".env" in out.stdout


# -- the MCP server face (a real `valarmind mcp serve` over stdio) --------------------------
async def test_mcp_review_tool_leaves_env_out(env_committed: Path) -> None:
    (env_committed / ".env.local").write_text(ENV_TEXT)
    async with stdio_session(env_committed, env=SOURCE) as session:
        working = await session.call_tool("review", {})
        ranged = await session.call_tool("review", {"target": "HEAD~1..HEAD"})
    for result in (working, ranged):
        assert not result.is_error, result.content
        contained(result.content[0].text + repr(result.structured_content))
    assert "content left out" in ranged.structured_content["raw_data"]["diff"]


async def test_mcp_search_for_the_sentinel(git_repo: Path) -> None:
    (git_repo / ".env").write_text(ENV_TEXT)
    os.symlink(".env", git_repo / "notes.txt")
    async with stdio_session(git_repo, env=SOURCE) as session:
        result = await session.call_tool("search", {"query": "sk-valarmind"})
        by_name = await session.call_tool("search", {"query": "OPENAI_API_KEY", "glob": "*.txt"})
    for found in (result, by_name):
        assert not found.is_error, found.content
        contained(found.content[0].text + repr(found.structured_content))
        assert found.structured_content["raw_data"]["matches"] == []


async def test_init_does_not_follow_symlinked_manifests_or_code_out_of_the_project(
        tmp_path: Path) -> None:
    """A repository whose setup.py, README.md and a module are symlinks to a secret outside it:
    /init's signals (what the init agent would be sent) and draft hold none of it."""
    from valarmind_tui.context.init.signals import collect_signals
    from valarmind_tui.context.init.write import generate_valarmind_md, init_task

    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text(f"setup(name='{SENTINEL}', install_requires=['{SENTINEL}'])\n"
                      f"# {SENTINEL}\n")
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").symlink_to(secret)
    (root / "setup.py").symlink_to(secret)
    (root / "README.md").symlink_to(secret)
    (root / "pyproject.toml").write_text('[project]\nname = "victim"\n')
    signals = collect_signals(root)
    assert signals.name == "victim"
    assert SENTINEL not in init_task(signals)
    assert SENTINEL not in (await generate_valarmind_md(root)).text
