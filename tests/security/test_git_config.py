"""git believes the repository (issue #27): a repository's own git config names a program, or
points git at files outside the project, and a git that ValarMind starts obeys it.

Each test plants one key in a real repository, in one of the files git reads for it (`.git/config`,
`.git/config.worktree` with `extensions.worktreeConfig`, a file named by `include.path`, or by
`includeIf "onbranch:main".path`), then runs one face: `valarmind commit` and `valarmind review`
as real processes, the MCP server's `review` tool and the git tools in-process, a plan-mode
`git_diff` through the fake model. The planted program writes a marker into the project (which the
sandbox leaves writable, so a sandboxed run would show it too); contained means no marker, and
for the keys that point outside the project, no outside content in the output or the model's
requests. Also: a push to a bare repository inside the project (its receive hooks would run as
the person). Work folders are under /var/tmp: the sandbox hides the host's /tmp.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.faces.mcp_server.serve import ValarMindMcpServer
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.config import KNOWN_KEYS, Settings
from valarmind_tui.settings.trust.decision import remember
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.catalog import builtin_tools

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
OUTSIDE_SECRET = "outside-secret-9d2e41"
SOURCES = ("config", "worktree", "include", "includeif")


@dataclass
class Place:
    """A project (a real repository with one commit) and a folder beside it, under /var/tmp."""

    base: Path
    repo: Path
    outside: Path
    marker: Path
    program: Path
    """An executable that appends its arguments to `marker`: the planted command."""
    auth_url: str = ""
    """An HTTP remote that answers 401: git asks for credentials (helper, then askpass)."""

    def git(self, *args: str, cwd: Path | None = None) -> str:
        return subprocess.run(["git", *args], cwd=cwd or self.repo, check=True,
                              capture_output=True, text=True, env={**os.environ, **IDENTITY}
                              ).stdout

    def plant(self, source: str, pairs: list[tuple[str, str]]) -> None:
        """Set each `key = value` in the file of `source` that git reads for this repository."""
        if source == "config":
            target = self.repo / ".git" / "config"
        elif source == "worktree":
            self.git("config", "extensions.worktreeConfig", "true")
            target = self.repo / ".git" / "config.worktree"
        else:
            target = self.repo / ".git" / "evil.inc"
            key = "include.path" if source == "include" else "includeIf.onbranch:main.path"
            self.git("config", key, "evil.inc")
        for key, value in pairs:
            self.git("config", "--file", str(target), "--add", key, value)

    def ran(self) -> bool:
        return self.marker.exists()

    def stage_a_change(self) -> None:
        (self.repo / "util.py").write_text("def farewell(name):\n    return 'Bye ' + name\n")
        self.git("add", "util.py")

    def stat_dirty(self) -> None:
        """app.py changed on disk (git must re-read it, through any filter or driver)."""
        (self.repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
        os.utime(self.repo / "app.py", (1_600_000_000, 1_600_000_000))


@pytest.fixture(scope="module")
def credentials_url() -> Iterator[str]:
    """An HTTP remote that answers every request 401, shared by the module's tests (it keeps
    nothing: a server per test cost each one half a second in `shutdown`'s poll)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AskForCredentials)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/x.git"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch, credentials_url: str) -> Iterator[Place]:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    root = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    base = Path(tempfile.mkdtemp(prefix="valarmind-gitcfg-", dir=root)).resolve()
    repo, outside = base / "repo", base / "outside"
    repo.mkdir()
    outside.mkdir()
    marker = repo / "PLANTED_PROGRAM_RAN"
    program = base / "planted.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\nexit 1\n')
    program.chmod(0o755)
    p = Place(base, repo, outside, marker, program, auth_url=credentials_url)
    p.git("init", "-q", "-b", "main")
    (repo / "README.md").write_text("# demo\n")
    (repo / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    (repo / ".gitattributes").write_text("*.py filter=evil diff=evil merge=evil\n")
    p.git("add", "-A")
    p.git("commit", "-qm", "init")
    try:
        yield p
    finally:
        shutil.rmtree(base, ignore_errors=True)


class _AskForCredentials(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        return None


def valarmind(place: Place, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valarmind_tui", *args], cwd=place.repo,
                          capture_output=True, text=True, env=dict(os.environ), timeout=timeout)


def trust(place: Place) -> None:
    """What `valarmind trust` does, in this process (a process per test cost ~2 s)."""
    remember(place.repo, True)


def commit(place: Place, *flags: str) -> subprocess.CompletedProcess[str]:
    return valarmind(place, "commit", "--no-review", "-m", "feat: farewell", *flags)


# -- the keys: what each plants, and what makes git want to run it ---------------------------

def program_keys(place: Place) -> dict[str, list[tuple[str, str]]]:
    """Keys that make `git commit` or `git push` run a program (push ones with a remote)."""
    cmd = str(place.program)
    upstream = [("branch.main.remote", "origin"), ("branch.main.merge", "refs/heads/main")]
    bare = place.base / "remote.git"
    if not bare.exists():
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    signing = [("commit.gpgsign", "true"), ("user.signingkey", "ABCDEF")]
    return {
        "gpg.program": [("gpg.program", cmd), *signing],
        "gpg.openpgp.program": [("gpg.openpgp.program", cmd), *signing],
        "gpg.ssh.program": [("gpg.format", "ssh"), ("gpg.ssh.program", cmd), *signing],
        "gpg.ssh.defaultKeyCommand": [("gpg.format", "ssh"), ("commit.gpgsign", "true"),
                                      ("gpg.ssh.defaultKeyCommand", cmd)],
        "gpg.x509.program": [("gpg.format", "x509"), ("gpg.x509.program", cmd), *signing],
        "filter.clean": [("filter.evil.clean", cmd), ("filter.evil.smudge", cmd)],
        "filter.process": [("filter.evil.process", cmd), ("filter.evil.required", "true")],
        "core.fsmonitor": [("core.fsmonitor", cmd)],
        "core.hooksPath": [("core.hooksPath", str(place.base / "hooks"))],
        "remote.receivepack": [("remote.origin.url", str(bare)),
                               ("remote.origin.receivepack", cmd), *upstream],
        "core.gitProxy": [("remote.origin.url", "git://example.invalid/x"),
                          ("core.gitProxy", cmd), *upstream],
        "core.sshCommand": [("remote.origin.url", "ssh://example.invalid/x"),
                            ("core.sshCommand", cmd), *upstream],
        "credential.helper": [("remote.origin.url", place.auth_url),
                              ("credential.helper", f"!{cmd}"), *upstream],
        "core.askPass": [("remote.origin.url", place.auth_url), ("core.askPass", cmd),
                         *upstream],
    }


def read_keys(place: Place) -> dict[str, list[tuple[str, str]]]:
    """Keys that make `git status`, `git diff` or `git cat-file` run a program."""
    cmd = str(place.program)
    return {
        "filter.clean": [("filter.evil.clean", cmd), ("filter.evil.smudge", cmd)],
        "filter.process": [("filter.evil.process", cmd), ("filter.evil.required", "true")],
        "diff.textconv": [("diff.evil.textconv", cmd)],
        "diff.command": [("diff.evil.command", cmd)],
        "diff.external": [("diff.external", cmd)],
        "core.fsmonitor": [("core.fsmonitor", cmd)],
        "core.hooksPath": [("core.hooksPath", str(place.base / "hooks"))],
    }


def plant_hooks(place: Place) -> None:
    hooks = place.base / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "commit-msg", "post-commit", "post-index-change",
                 "reference-transaction", "pre-push"):
        (hooks / name).write_text(f"#!/bin/sh\n{place.program} hook {name}\n")
        (hooks / name).chmod(0o755)


PUSH_KEYS = {"remote.receivepack", "core.gitProxy", "core.sshCommand", "credential.helper",
             "core.askPass"}
COMMIT_KEYS = ["gpg.program", "gpg.openpgp.program", "gpg.ssh.program",
               "gpg.ssh.defaultKeyCommand", "gpg.x509.program", "filter.clean",
               "filter.process", "core.fsmonitor", *sorted(PUSH_KEYS)]
READ_KEYS = ["filter.clean", "filter.process", "diff.textconv", "diff.command",
             "diff.external", "core.fsmonitor", "core.hooksPath"]


def plant_program_key(place: Place, name: str, source: str = "config") -> list[str]:
    """Plant a commit/push key; the extra `valarmind commit` flags it needs."""
    place.stage_a_change()
    place.stat_dirty()
    place.git("add", "app.py")
    plant_hooks(place)
    place.plant(source, program_keys(place)[name])
    place.stat_dirty()
    return ["--push"] if name in PUSH_KEYS else []


def plant_read_key(place: Place, name: str, source: str = "config") -> None:
    plant_hooks(place)
    place.plant(source, read_keys(place)[name])
    place.stat_dirty()


# -- valarmind commit ---------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMIT_KEYS)
def test_commit_untrusted(place: Place, name: str) -> None:
    flags = plant_program_key(place, name)
    out = commit(place, *flags)
    assert not place.ran(), f"{name} ran: {place.marker.read_text()}\n{out.stdout}{out.stderr}"


@pytest.mark.parametrize("name", COMMIT_KEYS)
def test_commit_trusted(place: Place, name: str) -> None:
    """Trust lets the project's hooks run, never a program its git config names."""
    flags = plant_program_key(place, name)
    trust(place)
    out = commit(place, *flags)
    assert not place.ran(), f"{name} ran: {place.marker.read_text()}\n{out.stdout}{out.stderr}"


@pytest.mark.parametrize("source", SOURCES[1:])
@pytest.mark.parametrize("name", ["gpg.ssh.defaultKeyCommand", "filter.clean", "core.sshCommand"])
def test_commit_key_from_another_config_file(place: Place, name: str, source: str) -> None:
    flags = plant_program_key(place, name, source)
    trust(place)
    out = commit(place, *flags)
    assert not place.ran(), f"{name} ran: {place.marker.read_text()}\n{out.stdout}{out.stderr}"


def test_commit_refusal_names_the_key_and_its_file(place: Place) -> None:
    flags = plant_program_key(place, "gpg.ssh.defaultKeyCommand", "worktree")
    out = commit(place, *flags)
    assert out.returncode != 0
    said = out.stdout + out.stderr
    assert "gpg.ssh.defaultkeycommand" in said.lower() and "config.worktree" in said
    assert not place.ran()


def test_commit_hooks_untrusted_do_not_run(place: Place) -> None:
    plant_program_key(place, "core.fsmonitor")
    place.plant("config", read_keys(place)["core.hooksPath"])
    commit(place)
    assert not place.ran()


def test_users_own_signing_program_still_runs(place: Place) -> None:
    """The person's own ~/.gitconfig is theirs: its gpg.program signs the commit."""
    place.stage_a_change()
    home_config = Path(os.environ["HOME"]) / ".gitconfig"
    home_config.write_text(f"[gpg]\n\tprogram = {place.program}\n[commit]\n\tgpgsign = true\n")
    out = commit(place)
    assert place.ran(), out.stdout + out.stderr  # the user's program was asked to sign


def test_commit_all_stages_and_commits(place: Place) -> None:
    """`valarmind commit --all` (argparse once read --all as an abbreviation: ambiguous)."""
    (place.repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    out = commit(place, "--all")
    assert out.returncode == 0, out.stderr
    assert place.git("log", "-1", "--format=%s").strip() == "feat: farewell"
    assert place.git("status", "--porcelain", "--untracked-files=no").strip() == ""


# -- valarmind review, the MCP review tool, the git tools -----------------------------------


@pytest.mark.parametrize("name", READ_KEYS)
def test_review_cli(place: Place, no_model: None, name: str) -> None:
    plant_read_key(place, name)
    out = valarmind(place, "review", "--json")
    assert not place.ran(), f"{name} ran: {place.marker.read_text()}\n{out.stdout}{out.stderr}"


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider key: a review is its static part (the diff, the linters), where git runs.
    With the sentinel key and no model configured, `valarmind review` would call the default
    provider over the network; test_review_cli_stays_in_the_project gives it the fake one."""
    for name in KNOWN_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server(place: Place, no_model: None) -> ValarMindMcpServer:
    return ValarMindMcpServer(Settings(), place.repo)


async def call(server: ValarMindMcpServer, name: str, args: dict[str, Any]) -> tuple[bool, str]:
    async def report_progress(*_: Any) -> None:
        return None

    ctx = SimpleNamespace(session=SimpleNamespace(
        client_capabilities=None, can_send_request=False, report_progress=report_progress))
    result = await server.call_tool(ctx, name, args)
    return bool(result.is_error), " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.parametrize("name", READ_KEYS)
async def test_mcp_review_tool(place: Place, server: ValarMindMcpServer, name: str) -> None:
    plant_read_key(place, name)
    await call(server, "review", {"target": ""})
    await call(server, "review", {"target": "HEAD"})
    assert not place.ran(), place.marker.read_text()


def sandbox_or_none(kind: str) -> Sandbox | None:
    if kind == "unsandboxed":
        return None
    box = Sandbox.detect("auto", False)
    if not box.active:
        pytest.skip(f"bubblewrap cannot run on this machine: {box.reason}")
    return box


async def git_tool(place: Place, name: str, args: dict[str, Any],
                   sandbox: Sandbox | None) -> str:
    tool = builtin_tools(sandbox=sandbox).get(name)
    assert tool is not None
    result = await tool.run(tool.parse(args), ToolContext(project_root=place.repo,
                                                          sandbox=sandbox))
    return result.output


@pytest.mark.parametrize("kind", ["unsandboxed", "sandboxed"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", READ_KEYS)
async def test_git_tools(place: Place, name: str, source: str, kind: str) -> None:
    box = sandbox_or_none(kind)
    plant_read_key(place, name, source)
    await git_tool(place, "git_status", {}, box)
    await git_tool(place, "git_diff", {}, box)
    await git_tool(place, "git_diff", {"ref": "HEAD"}, box)
    assert not place.ran(), place.marker.read_text()


@pytest.mark.parametrize("source", SOURCES[1:])
def test_review_cli_key_from_another_config_file(place: Place, no_model: None, source: str) -> None:
    plant_read_key(place, "filter.clean", source)
    valarmind(place, "review", "--json")
    assert not place.ran(), place.marker.read_text()


def test_submodule_config_filter(place: Place, no_model: None) -> None:
    """A submodule's own .git/modules/<name>/config defines a filter its files use."""
    sub = committed_repository(place, place.base / "sub", {
        "a.py": "a = 1\n", ".gitattributes": "*.py filter=subevil\n"})
    place.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    place.git("commit", "-qm", "sub")
    place.git("config", "--file", str(place.repo / ".git" / "modules" / "sub" / "config"),
              "filter.subevil.clean", str(place.program))
    os.utime(place.repo / "sub" / "a.py", (1_600_000_000, 1_600_000_000))
    import asyncio

    asyncio.run(git_tool(place, "git_status", {}, None))
    asyncio.run(git_tool(place, "git_diff", {}, None))
    valarmind(place, "review", "--json")
    assert not place.ran(), place.marker.read_text()


# -- git pointed outside the project -----------------------------------------------------------


def committed_repository(place: Place, folder: Path, files: dict[str, str]) -> Path:
    """A new git repository in `folder` with `files` committed."""
    folder.mkdir()
    place.git("init", "-q", "-b", "main", cwd=folder)
    for name, text in files.items():
        (folder / name).write_text(text)
    place.git("add", "-A", cwd=folder)
    place.git("commit", "-qm", "files", cwd=folder)
    return folder


def outside_repository(place: Place) -> Path:
    """A repository beside the project whose tracked file holds a secret."""
    return committed_repository(place, place.outside / "other", {
        "app.py": f"TOKEN = '{OUTSIDE_SECRET}'\n", "secret.txt": f"{OUTSIDE_SECRET}\n"})


def point_outside(place: Place, how: str) -> None:
    if how == "core.worktree":
        (place.outside / "app.py").write_text(f"TOKEN = '{OUTSIDE_SECRET}'\n")
        (place.outside / "notes.txt").write_text(f"{OUTSIDE_SECRET}\n")
        place.git("config", "core.worktree", str(place.outside))
    elif how == "gitfile":
        other = outside_repository(place)
        shutil.rmtree(place.repo / ".git")
        (place.repo / ".git").write_text(f"gitdir: {other / '.git'}\n")
    elif how == "gitlink":
        other = outside_repository(place)
        shutil.rmtree(place.repo / ".git")
        (place.repo / ".git").symlink_to(other / ".git")
    elif how == "commondir":
        other = outside_repository(place)
        (place.repo / ".git" / "commondir").write_text(f"{other / '.git'}\n")
    elif how == "core.worktree-in-include":
        (place.outside / "app.py").write_text(f"TOKEN = '{OUTSIDE_SECRET}'\n")
        place.plant("include", [("core.worktree", str(place.outside))])


OUTSIDE_WAYS = ["core.worktree", "gitfile", "gitlink", "commondir", "core.worktree-in-include"]


@pytest.mark.parametrize("kind", ["unsandboxed", "sandboxed"])
@pytest.mark.parametrize("how", OUTSIDE_WAYS)
async def test_git_tools_stay_in_the_project(place: Place, how: str, kind: str) -> None:
    box = sandbox_or_none(kind)
    point_outside(place, how)
    seen = [await git_tool(place, "git_status", {}, box),
            await git_tool(place, "git_diff", {}, box),
            await git_tool(place, "git_diff", {"ref": "HEAD"}, box),
            await git_tool(place, "git_diff", {"staged": True}, box)]
    assert not any(OUTSIDE_SECRET in s for s in seen), seen
    assert not any("notes.txt" in s or "secret.txt" in s for s in seen), seen


@pytest.mark.parametrize("how", OUTSIDE_WAYS)
def test_review_cli_stays_in_the_project(place: Place, review_model: FakeModelServer,
                                         how: str) -> None:
    point_outside(place, how)
    out = valarmind(place, "review", "--json")
    assert OUTSIDE_SECRET not in out.stdout + out.stderr
    assert OUTSIDE_SECRET not in json.dumps(review_model.requests)


@pytest.mark.parametrize("how", OUTSIDE_WAYS)
async def test_mcp_review_stays_in_the_project(place: Place, server: ValarMindMcpServer,
                                               how: str) -> None:
    point_outside(place, how)
    for target in ("", "HEAD", "--staged"):
        _, text = await call(server, "review", {"target": target})
        assert OUTSIDE_SECRET not in text


@pytest.mark.parametrize("how", ["core.worktree", "gitfile", "commondir"])
def test_commit_stays_in_the_project(place: Place, how: str) -> None:
    point_outside(place, how)
    out = commit(place, "--all")
    assert OUTSIDE_SECRET not in out.stdout + out.stderr
    other = place.outside / "other"
    if other.exists():  # the outside repository got no commit from us
        assert place.git("rev-list", "--count", "HEAD", cwd=other).strip() == "1"


@pytest.fixture
def user_model(fake_model: FakeModelServer) -> FakeModelServer:
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "OPENAI_API_KEY"\n')
    return fake_model


@pytest.fixture
def review_model(user_model: FakeModelServer) -> FakeModelServer:
    """The user's model for `valarmind review`, with the review agent's answer."""
    user_model.script(ScriptedTurn(text='{"summary": "fine", "findings": [], "approved": true}'))
    return user_model


def tool_answers(server: FakeModelServer) -> list[str]:
    """Every tool result the model was sent (the last request holds the whole history)."""
    answers: dict[tuple[str, str], str] = {}
    for request in server.requests:
        for message in request.get("messages", []):
            if message.get("role") == "tool":
                content = str(message.get("content"))
                answers[(str(message.get("tool_call_id")), content)] = content
    return list(answers.values())


@pytest.mark.parametrize("how", ["core.worktree", "gitfile", "commondir"])
def test_plan_mode_git_diff_sends_nothing_from_outside(place: Place, user_model: FakeModelServer,
                                                       how: str) -> None:
    """The orchestrator's git_status, then the search agent's git_diff (plan mode)."""
    point_outside(place, how)
    user_model.script(
        ScriptedTurn(tool_calls=[{"name": "git_status", "arguments": {}}]),
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "search", "task": "show the diff", "context": ""}}]),
        ScriptedTurn(tool_calls=[{"name": "git_diff", "arguments": {}}]),
        ScriptedTurn(tool_calls=[{"name": "git_diff", "arguments": {"ref": "HEAD"}}]),
        ScriptedTurn(text="nothing found"),
        ScriptedTurn(text="done"))
    out = valarmind(place, "-p", "what changed?", "--permission-mode", "plan")
    answers = tool_answers(user_model)
    assert len(answers) >= 3, answers  # git_status, git_diff (an error once), the delegation
    assert OUTSIDE_SECRET not in json.dumps(user_model.requests)
    assert OUTSIDE_SECRET not in out.stdout + out.stderr


# -- the shadow repository of checkpoints ---------------------------------------------------


@pytest.mark.parametrize("name", ["filter.clean", "core.fsmonitor", "diff.textconv"])
def test_checkpoint_snapshot_ignores_the_project_config(place: Place, name: str,
                                                        tmp_path: Path) -> None:
    from valarmind_tui.checkpoints.shadow import ShadowRepo

    plant_read_key(place, name)
    shadow = ShadowRepo(place.repo, tmp_path / "shadow")
    first = shadow.snapshot()
    (place.repo / "app.py").write_text("changed = True\n")
    second = shadow.snapshot()
    assert first.tree != second.tree
    assert not place.ran(), place.marker.read_text()


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
@pytest.mark.parametrize("url", ["./evil.git", "file://{repo}/evil.git", "{repo}/evil.git"])
def test_push_to_a_repository_inside_the_project(place: Place, url: str, trusted: bool) -> None:
    """A bare repository in the project (a sandboxed command can write one) is the remote: a
    local push runs its receive-side hooks (pre-receive) as the person, outside the sandbox."""
    evil = place.repo / "evil.git"
    place.git("init", "-q", "--bare", str(evil))
    hook = evil / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\n{place.program} pre-receive\n")
    hook.chmod(0o755)
    place.stage_a_change()
    place.plant("config", [("remote.origin.url", url.format(repo=place.repo)),
                           ("branch.main.remote", "origin"),
                           ("branch.main.merge", "refs/heads/main")])
    if trusted:
        trust(place)
    out = commit(place, "--push")
    assert not place.ran(), f"{place.marker.read_text()}\n{out.stdout}{out.stderr}"


def test_push_with_the_remote_named_by_path(place: Place) -> None:
    """`branch.main.remote` may itself be a path instead of a remote's name."""
    evil = place.repo / "evil.git"
    place.git("init", "-q", "--bare", str(evil))
    hook = evil / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\n{place.program} pre-receive\n")
    hook.chmod(0o755)
    place.stage_a_change()
    place.plant("config", [("branch.main.remote", "./evil.git"),
                           ("branch.main.merge", "refs/heads/main")])
    out = commit(place, "--push")
    assert not place.ran(), f"{place.marker.read_text()}\n{out.stdout}{out.stderr}"
