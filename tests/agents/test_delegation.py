"""Delegation limits: timeouts cancel cleanly, invalid results get one repair, then are flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.conftest import as_json, call
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.core.events import AgentFinished, AgentSpawned, ToolCallFinished

SLOW_SEARCH = """---
name: search
description: slow search for the test
tools: [read_file]
timeout: {default: 0.5, max: 1}
result: SearchResult
---
Search.
"""


async def test_specialist_over_its_timeout_is_cancelled_and_reported(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    agents = git_repo / ".valarmind" / "agents"
    agents.mkdir(parents=True)
    (agents / "search.md").write_text(SLOW_SEARCH)
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="search", task="find greet")]),
        ScriptedTurn(text="x" * 400, chunk_size=4, chunk_delay_s=0.05),  # ~5 s of streaming
        ScriptedTurn(text="Search timed out; greet is probably in app.py."),
    )
    s = stack(git_repo)
    outcome = await s.orchestrator.run("where is greet?")
    assert outcome.status == "done"
    (spawned,) = s.of(AgentSpawned)
    (finished,) = s.of(AgentFinished)
    assert 0.5 <= finished.at - spawned.at < 3  # cancelled at its 0.5 s limit, not after 5 s
    assert (finished.agent_id, finished.status) == (spawned.agent_id, "timeout")
    delegate = next(e for e in s.of(ToolCallFinished) if e.name == "delegate")
    assert delegate.status == "error"
    assert "search agent timed out after" in delegate.output
    assert "was cancelled" in delegate.output
    told = fake_model.requests[2]["messages"][-1]
    assert told["role"] == "tool" and "timed out" in told["content"]


async def test_invalid_result_gets_one_repair_request(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(text="It is in app.py, line 1."),
        ScriptedTurn(text=as_json({"query": "greet", "summary": "in app.py",
                                   "findings": [{"file": "app.py", "line": 1}]})),
    )
    s = stack(git_repo)
    result = await s.orchestrator.delegator.run("search", "find greet")
    assert result.valid and result.result is not None
    assert result.to_dict()["result"]["findings"][0]["file"] == "app.py"
    repair = fake_model.requests[1]["messages"][-1]["content"]
    assert "not a valid SearchResult" in repair


async def test_result_still_invalid_after_repair_is_returned_raw_and_flagged(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(ScriptedTurn(text="no json"), ScriptedTurn(text="still no json"))
    s = stack(git_repo)
    result = await s.orchestrator.delegator.run("search", "find greet")
    assert (result.status, result.valid, result.result) == ("done", False, None)
    shown = result.to_tool_result()
    assert not shown.is_error
    assert '"valid": false' in shown.output and "still no json" in shown.output
    assert len(fake_model.requests) == 2


async def test_review_agent_cannot_write_whatever_the_model_asks(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    s = stack(git_repo)
    # the review agent's tool set has no write_file, and its permissions refuse writes anyway
    review_tools = s.orchestrator.delegator._child_loop(
        s.orchestrator.registry.get("review"), "review-x").deps.tools
    assert "write_file" not in review_tools and "bash" not in review_tools
    fake_model.script(
        ScriptedTurn(tool_calls=[call("write_file", path="app.py", content="oops\n")]),
        ScriptedTurn(text=as_json({"summary": "fine", "findings": [], "approved": True})),
    )
    result = await s.orchestrator.delegator.run("review", "review app.py")
    assert result.valid
    assert (git_repo / "app.py").read_text().startswith("def greet")


async def test_unknown_agent_is_a_tool_error_listing_known_agents(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    fake_model.script(
        ScriptedTurn(tool_calls=[call("delegate", agent="wizard", task="magic")]),
        ScriptedTurn(text="ok"),
    )
    s = stack(git_repo)
    await s.orchestrator.run("do magic")
    (finished,) = s.of(ToolCallFinished)
    assert finished.status == "error"
    assert "unknown agent 'wizard'" in finished.output and "review" in finished.output
    assert s.of(AgentSpawned) == []


async def test_read_only_specialists_overlap_writers_take_turns(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    answer = as_json({"summary": "ok", "query": "q"})  # valid as SearchResult and CodeResult
    fake_model.script(*[ScriptedTurn(text=answer, chunk_size=2, chunk_delay_s=0.01)
                        for _ in range(4)])
    s = stack(git_repo)
    results = await s.orchestrator.delegator.run_many(
        [("search", "a", ""), ("search", "b", ""), ("code", "c", ""), ("code", "d", "")])
    assert [r.status for r in results] == ["done"] * 4 and all(r.valid for r in results)
    order = [(type(e).__name__, e.agent_id) for e in s.events
             if isinstance(e, AgentSpawned | AgentFinished)]
    ids = [r.agent_id for r in results]
    pos = {(kind, agent): i for i, (kind, agent) in enumerate(order)}
    # both searches were running at once
    assert max(pos["AgentSpawned", ids[0]], pos["AgentSpawned", ids[1]]) < min(
        pos["AgentFinished", ids[0]], pos["AgentFinished", ids[1]])
    # the two code agents never overlapped
    first, second = sorted(ids[2:], key=lambda i: pos["AgentSpawned", i])
    assert pos["AgentFinished", first] < pos["AgentSpawned", second]


def test_research_gets_online_suffix_on_openrouter(git_repo: Path, stack: Any) -> None:
    s = stack(git_repo)
    delegator = s.orchestrator.delegator
    registry = s.orchestrator.registry
    assert delegator.model_for(registry.get("research")) == "openai/fake-model"
    delegator.model = "openrouter/anthropic/claude-sonnet-4.5"
    assert delegator.model_for(registry.get("research")).endswith("claude-sonnet-4.5:online")
    assert delegator.model_for(registry.get("code")) == "openrouter/anthropic/claude-sonnet-4.5"
    s.settings.aliases["fast"] = "openai/tiny"
    assert delegator.model_for(registry.get("search")) == "openai/tiny"  # `model: fast`


async def test_specialists_see_project_context_except_init(
    git_repo: Path, fake_model: Any, stack: Any
) -> None:
    (git_repo / "VALARMIND.md").write_text("# Demo\nAlways use tabs.\n")
    fake_model.script(ScriptedTurn(text=as_json({"summary": "s"})),
                      ScriptedTurn(text=as_json({"mode": "create", "content": "# x"})))
    s = stack(git_repo)
    await s.orchestrator.delegator.run("search", "look")
    init = await s.orchestrator.delegator.run("init", "draft")
    assert init.valid
    search_system = fake_model.requests[0]["messages"][0]["content"]
    init_system = fake_model.requests[1]["messages"][0]["content"]
    assert "Always use tabs." in search_system and "You are the search agent" in search_system
    assert "Always use tabs." not in init_system and "You are the init agent" in init_system


async def test_profile_agent_uses_its_own_endpoint_and_key(
    git_repo: Path, fake_model: Any, stack: Any, monkeypatch: Any
) -> None:
    from tests.conftest import write_user_config

    write_user_config(f'[profiles.kimi-review]\napi_base = "{fake_model.openai_base}"\n'
                      'model = "openai/kimi-fake"\napi_key_env = "KIMI_TEST_KEY"\nmax_turns = 3\n')
    s = stack(git_repo)
    missing = await s.orchestrator.delegator.run("kimi-review", "review app.py")
    assert missing.status == "failed" and "KIMI_TEST_KEY" in (missing.problem or "")
    assert s.of(AgentFinished)[-1].status == "failed"
    monkeypatch.setenv("KIMI_TEST_KEY", "sk-kimi")
    fake_model.script(ScriptedTurn(text="app.py looks fine."))
    ok = await s.orchestrator.delegator.run("kimi-review", "review app.py")
    assert (ok.status, ok.text) == ("done", "app.py looks fine.")
    assert fake_model.requests[-1]["model"] == "kimi-fake"
    assert fake_model.request_headers[-1]["authorization"] == "Bearer sk-kimi"
