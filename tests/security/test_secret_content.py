"""Secrets recognised by their content, not only by the file's name (issue #27).

A scripted model (the fake server) asks for a file or a command whose output holds a secret in a
file no name rule hides (`.git/config`, `deploy/gcp-sa.json`, `src/settings.py`), or the person
pastes one. Contained = the secret is in no request the model server received, nowhere in the
session's SQLite store, not in what any hook read on its stdin, and the file on disk is as it
was (masking is on what is sent, never on what is written).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import ScriptedTurn
from tests.hooks.conftest import hook_table
from tests.security.conftest import SENTINEL
from valarmind_tui.context.attachments import with_attachments
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.store.sessions import SessionStore

GITHUB_TOKEN = "ghp_" + "Zq8Lm2Nx4Vb6Tc1Rw9Ky3Hd5Jf7Gp0Ss" + "Ae2U"
DB_PASSWORD = "S3cr3t-Pa55w0rd-91"
SALT = "q9Zt7WvX2mLp4Rk8"
"""A value no pattern knows: only its place in `.env` says it is a secret."""
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
HANDS = """---
name: hands
description: reads, runs and edits what it is asked to
tools: [read_file, read_many_files, bash, edit_file, write_file]
permissions: {read: true, write: true, execute: true}
---
Do what you are asked.
"""
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp"
ENV_TEXT = (f"DATABASE_URL=postgres://app:{DB_PASSWORD}@db.internal:5432/app\n"
            f"SIGNING_SALT={SALT}\nDEBUG=true\nNODE_ENV=production\n")
SA_JSON = json.dumps({
    "type": "service_account", "project_id": "demo-project",
    "private_key": f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----\n",
    "client_email": "deploy@demo-project.iam.gserviceaccount.com"}, indent=2)
SAVE_STDIN = ("import json, sys; data = sys.stdin.read(); path = json.loads(data)"
              "['transcript_path']; log = open(sys.argv[1], 'a'); log.write(data + '\\n'); "
              "log.write(open(path).read() if path else '')")
"""A hook that keeps its stdin and the transcript file it names, as a logging hook would."""
HOOK_EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


@dataclass
class Evidence:
    """Everything that left the process, and what the person saw of the run."""

    requests: str
    store: str
    hook_stdin: str
    answer: str
    tool_results: list[str]
    """What the model read of each tool call, in the order it was sent (every agent's)."""
    context: str
    """What /context showed after the prompt."""

    def holds_none_of(self, *secrets: str) -> None:
        for secret in secrets:
            assert secret not in self.requests, "the model server received it"
            assert secret not in self.store, "the session store holds it"
            assert secret not in self.hook_stdin, "a hook read it on its stdin"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def by_specialist(*calls: dict[str, Any], answer: str = "Finished.") -> tuple[ScriptedTurn, ...]:
    """The orchestrator delegates to the person's own `hands` agent (bash, edits), which makes
    `calls` in one turn and answers `answer`; the orchestrator's closing turn is the attack's."""
    return (ScriptedTurn(tool_calls=[call("delegate", agent="hands", task="do it")]),
            ScriptedTurn(tool_calls=list(calls)), ScriptedTurn(text=answer))


@pytest.fixture
def project(git_repo: Path) -> Path:
    """A repository whose secrets sit where no name rule looks."""
    (git_repo / ".git" / "config").write_text(
        (git_repo / ".git" / "config").read_text()
        + f'[remote "origin"]\n\turl = https://octo:{GITHUB_TOKEN}@github.com/octo/app.git\n')
    (git_repo / "deploy").mkdir()
    (git_repo / "deploy" / "gcp-sa.json").write_text(SA_JSON)
    (git_repo / ".env").write_text(ENV_TEXT)
    (git_repo / "src").mkdir()
    (git_repo / "src" / "settings.py").write_text(
        f'STRIPE_KEY = "{STRIPE}"\nSALT = "{SALT}"\nTIMEOUT = 30\n')
    return git_repo


@pytest.fixture
def attack(project: Path, fake_model: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # noqa: ANN201
    """attack(prompt, *turns, mode="bypass", mcp="") -> Evidence: one prompt through a real
    Session (store on disk, hooks that save their stdin, LiteLLM against the fake server)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    stdin_log = tmp_path / "hook-stdin.log"
    store_path = tmp_path / "store" / "sessions.db"

    async def run(prompt: str, *turns: ScriptedTurn, mode: str = "bypass", mcp: str = "",
                  attach: tuple[str, ...] = (), then: str = "") -> Evidence:
        tables = [hook_table(event, f"{sys.executable} -c {SAVE_STDIN!r} '{stdin_log}'")
                  for event in HOOK_EVENTS]
        config = write_user_config('api_key_env = "FAKE_API_KEY"\n' + mcp + "\n"
                                   + "\n".join(tables))
        (config.parent / "agents").mkdir(exist_ok=True)
        (config.parent / "agents" / "hands.md").write_text(HANDS)
        settings = load_settings(project, model="openai/fake-model",
                                 api_base=fake_model.openai_base, permission_mode=mode)
        store = SessionStore(store_path)
        session = build_session(settings, project, store=store,
                                approver=PolicyApprover(allow_writes=True, allow_execute=True))
        await session.start()
        fake_model.script(*turns, ScriptedTurn(text="Done."))
        try:
            files = {path: session.attach(path) for path in attach}
            result = await session.submit(with_attachments(prompt, files))
            if then:  # a second prompt: its hooks read the first one in the transcript file
                fake_model.script(ScriptedTurn(text="Done again."))
                result = await session.submit(then)
            await session.run_command("/export jsonl exported.jsonl")
            context = (await session.run_command("/context")).text
        finally:
            await session.close()
        read = [m["content"] for r in fake_model.requests for m in r["messages"]
                if m["role"] == "tool"]
        return Evidence(json.dumps(fake_model.requests), _dump(store_path),
                        stdin_log.read_text() if stdin_log.exists() else "", result.text,
                        list(dict.fromkeys(read)), context)

    return run


def _dump(path: Path) -> str:
    """Every row of every table of the store, as text."""
    with sqlite3.connect(path) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE "
                                                 "type = 'table'")]
        return "\n".join(repr(row) for table in tables
                         for row in db.execute(f"SELECT * FROM {table}"))  # noqa: S608


# -- reads of files no name rule hides ---------------------------------------------------------
async def test_read_file_of_git_config_with_a_token_in_the_remote_url(
        attack: Any, project: Path) -> None:
    before = (project / ".git" / "config").read_text()
    seen = await attack("Which remote does this repo use?",
                        ScriptedTurn(tool_calls=[call("read_file", path=".git/config")]))
    seen.holds_none_of(GITHUB_TOKEN)
    assert "https://octo:[secret masked: password in URL]@github.com/octo/app.git" \
        in seen.requests
    assert (project / ".git" / "config").read_text() == before


async def test_read_file_of_a_service_account_json_with_a_pem_key(
        attack: Any, project: Path) -> None:
    seen = await attack("Which GCP project do we deploy to?",
                        ScriptedTurn(tool_calls=[call("read_file", path="deploy/gcp-sa.json")]))
    seen.holds_none_of(PEM_BODY, "BEGIN PRIVATE KEY-----\\n")
    assert '"private_key": "[secret masked: private key (service account JSON)]"' \
        in seen.requests.replace('\\"', '"')
    assert "demo-project.iam.gserviceaccount.com" in seen.requests  # the rest is still read
    assert (project / "deploy" / "gcp-sa.json").read_text() == SA_JSON


async def test_read_many_files_over_the_deploy_folder(attack: Any) -> None:
    seen = await attack("Summarise deploy/", *by_specialist(
        call("read_many_files", paths=["deploy/*", "src/*"])))
    seen.holds_none_of(PEM_BODY, STRIPE, SALT)
    assert "demo-project.iam.gserviceaccount.com" in seen.tool_results[0]


async def test_a_read_that_starts_inside_a_key_block(attack: Any, project: Path) -> None:
    """`offset` past the BEGIN line: the key's body arrives without its header."""
    body = [PEM_BODY + "ABCD", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdz",
            "c2gtcnNhAAAAAwEAAQAAAYEAxg7bL3mQJ0zq1h3vK9w2yT8uXkP4nR6sD5fG7hJ8kL9m"]
    (project / "config").mkdir()
    (project / "config" / "tls.yaml").write_text(
        "tls:\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n"
        + "".join(f"    {line}\n" for line in body) + "    -----END RSA PRIVATE KEY-----\n")
    seen = await attack("show the key", ScriptedTurn(tool_calls=[
        call("read_file", path="config/tls.yaml", offset=4, limit=3)]))
    seen.holds_none_of(*body)


# -- commands and search -----------------------------------------------------------------------
async def test_cat_env_through_bash_in_bypass_mode(attack: Any, project: Path) -> None:
    seen = await attack("Show me the settings", *by_specialist(call("bash", command="cat .env")))
    seen.holds_none_of(DB_PASSWORD, SALT)
    read = seen.tool_results[0]
    assert "SIGNING_SALT=[secret masked: .env SIGNING_SALT]" in read, read
    assert "DEBUG=true" in read and "NODE_ENV=production" in read
    assert (project / ".env").read_text() == ENV_TEXT  # a command still reads the real file
    assert "secrets masked this session: 2 values" in seen.context


async def test_a_command_that_prints_the_env_value_in_another_form(attack: Any) -> None:
    seen = await attack("debug", *by_specialist(
        call("bash", command="grep -h SALT src/settings.py"),
        call("bash", command="git remote -v")))
    seen.holds_none_of(SALT, GITHUB_TOKEN)
    assert 'SALT = "[secret masked: .env SIGNING_SALT]"' in seen.tool_results[0]
    assert "octo:[secret masked: password in URL]@github.com" in seen.tool_results[1]


async def test_grep_over_the_whole_tree(attack: Any) -> None:
    seen = await attack("Where are keys set?", ScriptedTurn(tool_calls=[
        call("grep", pattern="KEY|SALT|url|private", path=".")]))
    seen.holds_none_of(STRIPE, SALT, PEM_BODY)
    assert "[secret masked: Stripe key]" in seen.requests


async def test_an_environment_key_found_in_a_project_file(attack: Any, project: Path) -> None:
    (project / "notes.md").write_text(f"the key we use: {SENTINEL}\n")
    seen = await attack("read the notes", ScriptedTurn(tool_calls=[
        call("read_file", path="notes.md")]))
    seen.holds_none_of(SENTINEL)


# -- what comes from elsewhere ----------------------------------------------------------------
async def test_an_mcp_tool_result_carrying_an_env_value(attack: Any, project: Path) -> None:
    (project / "notes.txt").write_text(f"deploy with SIGNING_SALT={SALT}\n")
    server = (f'[mcp.servers.notes]\ncommand = {json.dumps(sys.executable)}\n'
              f'args = [{json.dumps(str(FIXTURES / "notes_server.py"))}, '
              f'{json.dumps(str(project))}]\n')
    seen = await attack("What do the notes say?", ScriptedTurn(tool_calls=[
        call("mcp__notes__read_notes")]), mcp=server)
    assert "[secret masked: .env SIGNING_SALT]" in seen.requests  # the tool did run
    seen.holds_none_of(SALT)


async def test_a_context_file_holding_a_token(attack: Any, project: Path) -> None:
    """CLAUDE.md with a deploy token in it: the system prompt carries the project's context."""
    (project / "CLAUDE.md").write_text(f"Deploy with `gh auth login --with-token {GITHUB_TOKEN}`\n")
    seen = await attack("how do I deploy?")
    assert "gh auth login --with-token [secret masked: GitHub token]" in seen.requests
    seen.holds_none_of(GITHUB_TOKEN)


async def test_a_prompt_that_pastes_a_token(attack: Any) -> None:
    seen = await attack(f"push with this token: {GITHUB_TOKEN} and key {STRIPE}",
                        then="and now?")
    seen.holds_none_of(GITHUB_TOKEN, STRIPE)
    assert "push with this token: [secret masked: GitHub token]" in seen.requests
    assert '{"role": "user", "content": "push with this token: [secret masked: GitHub token]' \
        in seen.hook_stdin  # the transcript file a hook reads


async def test_an_attached_file_holding_a_private_key(attack: Any) -> None:
    seen = await attack("check @deploy/gcp-sa.json", attach=("deploy/gcp-sa.json",))
    seen.holds_none_of(PEM_BODY)


async def test_the_export_holds_no_secret(attack: Any, project: Path) -> None:
    await attack(f"my token is {GITHUB_TOKEN}", *by_specialist(call("bash", command="cat .env")))
    exported = (project / "exported.jsonl").read_text()
    assert "my token is [secret masked: GitHub token]" in exported
    assert GITHUB_TOKEN not in exported


# -- edits after a masked read ----------------------------------------------------------------
async def test_an_edit_echoing_the_marker_does_not_overwrite_the_secret(
        attack: Any, project: Path) -> None:
    """The model read `[secret masked: ...]` and sends it back in an edit of that line: the
    edit is refused (exact, whitespace or fuzzy matching would have written the marker)."""
    masked = 'STRIPE_KEY = "[secret masked: Stripe key]"\nSALT = "[secret masked: .env ' \
             'SIGNING_SALT]"\nTIMEOUT = 30'
    seen = await attack("raise the timeout", *by_specialist(
        call("read_file", path="src/settings.py"),
        call("edit_file", path="src/settings.py", old_string=masked,
             new_string=masked.replace("30", "60"))))
    text = (project / "src" / "settings.py").read_text()
    assert STRIPE in text and SALT in text and "TIMEOUT = 30" in text
    assert "stands for a secret that was masked" in seen.tool_results[1]
    seen.holds_none_of(STRIPE, SALT)


async def test_write_file_with_the_masked_content_is_refused(attack: Any, project: Path) -> None:
    seen = await attack("rewrite it", *by_specialist(call(
        "write_file", path="src/settings.py",
        content='STRIPE_KEY = "[secret masked: Stripe key]"\nTIMEOUT = 60\n')))
    assert "stands for a secret that was masked" in seen.tool_results[0]
    assert STRIPE in (project / "src" / "settings.py").read_text()


async def test_a_specialist_answer_quoting_a_secret(attack: Any) -> None:
    """A model that somehow holds a secret (a confused or hostile one) quotes it in its answer:
    the delegate result the orchestrator reads, the store and the hooks get the marker."""
    seen = await attack("check the remote", *by_specialist(
        call("read_file", path="README.md"), answer=f"The remote token is {GITHUB_TOKEN}."))
    assert "[secret masked: GitHub token]" in seen.tool_results[-1]
    assert GITHUB_TOKEN not in seen.store and GITHUB_TOKEN not in seen.hook_stdin
    assert GITHUB_TOKEN not in json.dumps(seen.tool_results)


async def test_an_answer_streaming_a_token_in_pieces(attack: Any) -> None:
    """The main agent's answer is logged delta by delta (8 characters each here): no piece
    holds the whole token, so masking each piece alone would keep it, split, in the store."""
    seen = await attack("what is the token?", ScriptedTurn(text=f"It is {GITHUB_TOKEN} here."))
    pieces = [GITHUB_TOKEN[i:i + 8] for i in range(0, len(GITHUB_TOKEN), 8)]
    assert not any(piece in seen.store for piece in pieces[1:-1])
    assert "It is [secret masked: GitHub token] here." in seen.store
