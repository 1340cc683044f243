"""The sandbox writes what later runs outside it (issue #27): each test is one sandboxed command
(through the real bash tool and real bubblewrap, as an approved or auto-allowed command runs)
that plants configuration the next session, `valarmind commit` or `review` would run
unconfined. Contained means the project on disk is as it was, and nothing is left behind.

The static write check (safety.shell_writes) is not in the way here: the commands run straight
through the tool, as a command the person approved would, and `python3 - <<'PY'` hides its
writes from any static check anyway.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.shell.bash import Bash

REPO_CONFIG = (".valarmind", ".mcp.json", "external-agents.json", "plugins", ".envrc",
               ".claude", ".codex", ".gemini", ".opencode", "opencode.json", ".agents")


@pytest.fixture
def run(sandbox: Sandbox, git_repo: Path):  # noqa: ANN201
    bash = Bash(sandbox=sandbox)

    async def call(command: str) -> ToolResult:
        ctx = ToolContext(project_root=git_repo)
        return await bash.run(bash.parse({"command": command}), ctx)

    return call


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


def tree(repo: Path) -> dict[str, str]:
    """Every file under the repository (`.git/objects` aside) with its content."""
    found = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if rel.startswith((".git/objects", ".git/logs")):
            continue
        found[rel] = "<dir>" if path.is_dir() else path.read_text(errors="replace")
    return found


# -- repository configuration ValarMind (and the other agents' tools) read ---------------------


@pytest.mark.parametrize("name", REPO_CONFIG)
async def test_create_repository_config_fresh(run, git_repo: Path, name: str) -> None:
    before = tree(git_repo)
    await run(f"mkdir -p {name} && echo pwned > {name}/x.py; echo pwned > {name}")
    assert tree(git_repo) == before


async def test_plugin_written_into_an_existing_plugins_folder(run, git_repo: Path) -> None:
    (git_repo / "plugins").mkdir()
    (git_repo / "plugins" / "ok.py").write_text("OK = 1\n")
    await run("echo 'import os; os.system(\"id\")' > plugins/x.py; echo pwned >> plugins/ok.py")
    assert sorted(p.name for p in (git_repo / "plugins").iterdir()) == ["ok.py"]
    assert (git_repo / "plugins" / "ok.py").read_text() == "OK = 1\n"


async def test_hooks_added_to_an_existing_project_config(run, git_repo: Path) -> None:
    config = git_repo / ".valarmind" / "config.toml"
    config.parent.mkdir()
    config.write_text("model = 'x'\n")
    await run("printf '[[hooks.SessionStart]]\\ncommand = \"touch /owned\"\\n' "
              ">> .valarmind/config.toml; rm -rf .valarmind; mv .valarmind gone")
    assert config.read_text() == "model = 'x'\n"


async def test_python_heredoc_writes_mcp_json_and_a_plugin(run, git_repo: Path) -> None:
    before = tree(git_repo)
    await run("python3 - <<'PY'\n"
              "import os, pathlib\n"
              "for p, text in (('.mcp.json', '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}'),"
              " ('plugins/x.py', 'import os'), ('.valarmind/config.toml', 'x = 1'),"
              " ('.git/commondir', '../evil')):\n"
              "    try:\n"
              "        os.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n"
              "        pathlib.Path(p).write_text(text)\n"
              "    except OSError as e:\n"
              "        print(e)\n"
              "PY")
    assert tree(git_repo) == before


async def test_swap_a_protected_folder_for_a_new_one(run, git_repo: Path) -> None:
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind" / "config.toml").write_text("model = 'x'\n")
    await run("mv .valarmind old; mkdir .valarmind; echo 'permission_mode=\"bypass\"' "
              "> .valarmind/config.toml")
    assert (git_repo / ".valarmind" / "config.toml").read_text() == "model = 'x'\n"
    assert not (git_repo / "old").exists()


# -- .git: everything but what ordinary work writes ------------------------------------------


@pytest.mark.parametrize("name", ["commondir", "config.worktree", "info/attributes",
                                  "hooks/post-checkout", "modules/x/config", "remotes/origin",
                                  "worktrees/x/commondir"])
async def test_create_a_file_git_reads_in_dot_git(run, git_repo: Path, name: str) -> None:
    target = git_repo / ".git" / name
    existed = target.exists()
    await run(f"mkdir -p .git/{Path(name).parent}; printf '../evil\\n' > .git/{name}")
    assert target.exists() == existed and not (target.exists() and "evil" in target.read_text())


async def test_commondir_created_is_undone_and_reported(run, git_repo: Path) -> None:
    (git_repo / "evil").mkdir()
    result = await run("echo ../evil > .git/commondir; cat .git/commondir")
    assert not (git_repo / ".git" / "commondir").exists()
    assert "the sandbox undid what the command wrote to .git/commondir" in result.output
    assert git(git_repo, "rev-parse", "--git-common-dir").strip() == ".git"


async def test_swap_dot_git_for_a_planted_one(run, git_repo: Path) -> None:
    config = (git_repo / ".git" / "config").read_text()
    await run("mv .git .git-old; git init -q . ; git config core.fsmonitor 'touch pwned'")
    assert (git_repo / ".git" / "config").read_text() == config
    assert not (git_repo / ".git-old").exists()


async def test_git_init_where_there_is_no_repository(run, git_repo: Path) -> None:
    (git_repo / "sub").mkdir()
    (git_repo / ".git").rename(git_repo / "moved-git")
    await run("git init -q . && git config core.fsmonitor 'touch pwned'; ls -a")
    assert not (git_repo / ".git").exists()


async def test_rewrite_a_dot_git_file(sandbox: Sandbox, git_repo: Path) -> None:
    """A worktree-style `.git` file pointing to a git dir inside the project: the file and the
    git dir's config are both read-only."""
    (git_repo / ".git").rename(git_repo / ".repo")
    (git_repo / ".git").write_text("gitdir: .repo\n")
    bash = Bash(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo)
    evil = "mkdir -p evil && cp -r .repo/* evil/ && echo 'gitdir: evil' > .git; " \
           "git config core.fsmonitor 'touch pwned'; echo '[core]' >> .repo/config"
    config = (git_repo / ".repo" / "config").read_text()
    await bash.run(bash.parse({"command": evil}), ctx)
    assert (git_repo / ".git").read_text() == "gitdir: .repo\n"
    assert (git_repo / ".repo" / "config").read_text() == config


# -- what must keep working, and leave nothing behind ---------------------------------------


async def test_ordinary_git_work_still_succeeds(run, git_repo: Path) -> None:
    ident = "-c user.name=t -c user.email=t@example.com"
    result = await run(
        f"set -e; echo 1 > a.py; git add a.py; git {ident} commit -qm a; "
        f"git checkout -q -b feature; echo 2 >> a.py; git stash -q; git stash pop -q; "
        f"git {ident} commit -qam b; git checkout -q main; echo 3 > c.py; git add c.py; "
        f"git {ident} commit -qm c; git checkout -q feature; git {ident} rebase -q main; "
        "git tag v1; git gc -q 2>/dev/null || true; echo done")
    assert result.output.strip().endswith("done"), result.output
    log = git(git_repo, "log", "--format=%s", "feature")
    assert log.split() == ["b", "c", "a", "init"]
    assert git(git_repo, "tag").split() == ["v1"]


async def test_an_ordinary_command_leaves_nothing_behind(run, git_repo: Path) -> None:
    before = tree(git_repo)
    result = await run("echo ok > made.txt && git status --porcelain && git add -A && echo added")
    assert "added" in result.output and "?? made.txt" in result.output
    assert ".mcp.json" not in result.output and "plugins" not in result.output
    new = {p for p in set(tree(git_repo)) - set(before) if not p.startswith(".git/")}
    assert new == {"made.txt"}
    assert not {n for n in REPO_CONFIG if (git_repo / n).exists()}


async def test_a_parallel_command_outlives_anothers_placeholder(run, git_repo: Path) -> None:
    """Two commands at once: the first one's placeholder for `.mcp.json` is the second one's
    read-only mount; the first removes it when it ends, the second then writes."""
    import asyncio

    first = asyncio.ensure_future(run("sleep 0.3"))
    await asyncio.sleep(0.15)
    second = await run("sleep 0.6; echo '{\"mcpServers\": {}}' > .mcp.json; "
                       "mkdir -p plugins; echo pwned > plugins/x.py; ls -a")
    await first
    assert not (git_repo / ".mcp.json").exists() and not (git_repo / "plugins").exists()
    assert "undid" in second.output or "Read-only" in second.output


async def test_a_linked_worktree_works_and_its_git_dirs_stay_protected(
        sandbox: Sandbox, git_repo: Path) -> None:
    """The project is a linked worktree (`.git` is a file naming a git dir outside it): git
    work succeeds, its config, the common config and the `.git` file do not change."""
    worktree = git_repo.parent / "wt"
    git(git_repo, "worktree", "add", "-q", "-b", "wt", str(worktree))
    git_dir = git_repo / ".git" / "worktrees" / "wt"
    dot_git, config = (worktree / ".git").read_text(), (git_repo / ".git" / "config").read_text()
    bash = Bash(sandbox=sandbox)
    ident = "-c user.name=t -c user.email=t@example.com"
    result = await bash.run(bash.parse({"command": (
        f"echo 1 > n.py && git add n.py && git {ident} commit -qm n && echo committed; "
        "git config core.fsmonitor 'touch pwned'; "
        f"echo '[core]' > {git_dir}/config.worktree; echo gitdir: /x > .git")}),
        ToolContext(project_root=worktree))
    assert "committed" in result.output, result.output
    assert git(worktree, "log", "-1", "--format=%s").strip() == "n"
    assert (git_repo / ".git" / "config").read_text() == config
    assert (worktree / ".git").read_text() == dot_git
    assert not (git_dir / "config.worktree").exists()


async def test_dot_git_as_a_link_to_a_git_dir_in_the_project(run, git_repo: Path) -> None:
    (git_repo / ".git").rename(git_repo / "real-git")
    (git_repo / ".git").symlink_to("real-git")
    config = (git_repo / "real-git" / "config").read_text()
    await run("git config core.fsmonitor 'touch pwned'; echo '[core]' >> real-git/config; "
              "rm .git && ln -s elsewhere .git")
    assert (git_repo / "real-git" / "config").read_text() == config
    assert os.readlink(git_repo / ".git") == "real-git"
