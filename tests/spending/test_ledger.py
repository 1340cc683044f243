"""The ledger against the fake server's own count: every model call recorded with the tokens
the server reported (cached and reasoning ones in OpenAI's and Anthropic's shapes), read back by
/cost through the command router and by `valarmind cost --json` from the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.test_headless import model_flags, valarmind
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings
from valarmind_tui.store.sessions import SessionStore

KEY = {"FAKE_API_KEY": "sk-test"}


def served_totals(server: FakeModelServer) -> dict[str, int]:
    keys = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
    return {k: sum(u[k] for u in server.usage_served) for k in keys}


def _session(root: Path, server: FakeModelServer, store: SessionStore, *,
             anthropic: bool = False) -> Any:
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n')
    settings = load_settings(
        root, model="anthropic/fake-model" if anthropic else "openai/fake-model",
        api_base=server.anthropic_base if anthropic else server.openai_base,
        api_key_env="FAKE_API_KEY")
    return build_session(settings, root, store=store)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_the_ledger_sums_to_what_the_server_reported(
        git_repo: Path, fake_model: FakeModelServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, wire: str) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    anthropic = wire == "anthropic"
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}],
                     usage={"prompt_tokens": 1200, "completion_tokens": 40,
                            "cached_tokens": 1024,
                            "reasoning_tokens": 0 if anthropic else 30}),
        ScriptedTurn(text="It greets.", usage={"prompt_tokens": 1300, "completion_tokens": 9,
                                               "cached_tokens": 1200}),
    )
    store = SessionStore(tmp_path / "sessions.db")
    session = _session(git_repo, fake_model, store, anthropic=anthropic)
    await session.start()
    session.spending.set_round(1)
    result = await session.submit("what does app.py do?")
    assert result.status == "done", result.text
    rows = store.calls(session.session_id)
    assert [(r.agent, r.kind, r.round) for r in rows] == [("main", "agent", 1)] * 2
    assert [(r.prompt_tokens, r.cached_tokens) for r in rows] == [(1200, 1024), (1300, 1200)]
    assert [r.reasoning_tokens for r in rows] == [0 if anthropic else 30, 0]
    assert all(r.cost_usd is None for r in rows)  # fake-model: unknown price, never 0

    cost = await session.run_command("/cost")
    assert cost.ok
    totals = {k: cost.data[k] for k in served_totals(fake_model)}
    assert totals == served_totals(fake_model)
    assert cost.data["cost_usd"] is None and cost.data["unknown_price_calls"] == 2
    assert "Cost: unknown price" in cost.text
    assert "By round:\n- 1: 2 calls, 2,500 in (2,224 cached)" in cost.text
    await session.close()


async def test_cost_by_tool_and_mcp_server_through_the_router(
        git_repo: Path, fake_model: FakeModelServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A specialist's calls are its agent's and the `delegate` tool's; the review of a tool
    call is its reviewer's and that (innermost) tool call's; without a round set, no round."""
    from tests.reviewers.conftest import reviewers_table, verdict

    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n'
                      + reviewers_table("tool_approve"))
    settings = load_settings(git_repo, model="openai/fake-model",
                             api_base=fake_model.openai_base, api_key_env="FAKE_API_KEY")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "code", "task": "rename greet"}}], usage={"prompt_tokens": 100,
                                                              "completion_tokens": 10}),
        ScriptedTurn(tool_calls=[{"name": "write_file", "arguments": {
            "path": "notes.md", "content": "renamed\n"}}],
                     usage={"prompt_tokens": 200, "completion_tokens": 20}),
        verdict("approve", "listing is harmless", prompt_tokens=300, completion_tokens=30),
        ScriptedTurn(text='{"summary": "nothing to rename", "files_modified": []}',
                     usage={"prompt_tokens": 400, "completion_tokens": 40}),
        ScriptedTurn(text="Nothing to do.", usage={"prompt_tokens": 500, "completion_tokens": 50}),
    )
    store = SessionStore(tmp_path / "sessions.db")
    from valarmind_tui.safety.gate.approval import PolicyApprover

    session = build_session(settings, git_repo, store=store,
                            approver=PolicyApprover())
    await session.start()
    result = await session.submit("rename greet")
    assert result.status == "done", result.text
    cost = await session.run_command("/cost")
    by = cost.data
    code = next(a for a in by["by_agent"] if a != "main")
    assert by["by_agent"]["main"]["prompt_tokens"] == 600
    assert by["by_agent"][code]["prompt_tokens"] == 600  # its own two turns
    assert by["by_reviewer"]["tool-approve"]["prompt_tokens"] == 300
    assert by["by_tool"]["delegate"]["prompt_tokens"] == 600  # the specialist's turns
    assert by["by_tool"]["write_file"]["prompt_tokens"] == 300  # the review of that write
    assert "by_round" not in by
    assert by["prompt_tokens"] == served_totals(fake_model)["prompt_tokens"] == 1500
    assert f"- {code}: 2 calls, 600 in" in cost.text and "By reviewer:" in cost.text
    await session.close()


def test_valarmind_cost_json_agrees_with_the_servers_count(git_repo: Path,
                                                          fake_model: FakeModelServer) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}],
                     usage={"prompt_tokens": 700, "completion_tokens": 70,
                            "cached_tokens": 512, "reasoning_tokens": 33}),
        ScriptedTurn(text="Read it.", usage={"prompt_tokens": 800, "completion_tokens": 8}),
    )
    run = valarmind("-p", "read app.py", "--output-format", "json", *model_flags(fake_model),
                    cwd=git_repo, env=KEY)
    assert run.returncode == 0, run.stderr
    session_id = json.loads(run.stdout)["session_id"]
    out = valarmind("cost", "--json", cwd=git_repo)
    assert out.returncode == 0, out.stderr
    ledger = json.loads(out.stdout)
    assert ledger["session_id"] == session_id
    assert {k: ledger[k] for k in served_totals(fake_model)} == served_totals(fake_model)
    assert ledger["calls"] == len(fake_model.usage_served) == 2
    assert ledger["cost_usd"] is None and ledger["unknown_price_calls"] == 2
    assert ledger["by_agent"]["main"]["calls"] == 2

    since = valarmind("cost", "--since", "2000-01-01", "--json", cwd=git_repo)
    assert json.loads(since.stdout)["calls"] == 2  # every session since then: the one
    text = valarmind("cost", f"--session={session_id}", cwd=git_repo)
    assert text.returncode == 0
    assert f"Session {session_id}: 2 model calls. Tokens: 1,500 in, 78 out." in text.stdout
    bad = valarmind("cost", "--since", "yesterday", cwd=git_repo)
    assert bad.returncode == 2 and "--since 'yesterday'" in bad.stderr


async def test_the_ledger_names_the_skill_a_call_follows(
        git_repo: Path, fake_model: FakeModelServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    skill = Path.home() / ".config/valarmind/skills/notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Write release notes\n---\nList the changes.\n")
    fake_model.script(
        ScriptedTurn(text="Notes written."),
        ScriptedTurn(tool_calls=[{"name": "skill", "arguments": {"name": "notes"}}]),
        ScriptedTurn(text="Following the skill."),
    )
    store = SessionStore(tmp_path / "sessions.db")
    session = _session(git_repo, fake_model, store)
    await session.start()
    typed = await session.run_command("/notes for 1.2")
    assert typed.ok, typed.text
    loaded = await session.submit("write the release notes")
    assert loaded.status == "done", loaded.text
    rows = store.calls(session.session_id)
    assert [r.skill for r in rows] == ["notes", None, "notes"]
    cost = await session.run_command("/cost")
    assert "By skill:\n- notes: 2 calls" in cost.text
    await session.close()
