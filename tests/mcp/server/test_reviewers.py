"""`valarmind mcp serve` runs the person's model reviewers in its gates, as a session does, with
the same limits (the official MCP client over stdio; the fake model server thinks and reviews)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_user_config
from tests.mcp.server.test_serve import assert_fits_schema, stdio_session
from tests.reviewers.conftest import reviewers_table, system_prompts, verdict

FOUND = {"query": "greet", "summary": "greet is defined in app.py", "confidence": 0.9,
         "findings": [{"file": "app.py", "line": 1, "snippet": "def greet(name):"}]}


def _read_env_then_answer(reviewer_says: dict[str, Any]) -> list[dict[str, Any]]:
    """The search agent tries to read .env, the reviewer judges it, the agent answers."""
    return [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": ".env"}}],
         "usage": {"prompt_tokens": 1000, "completion_tokens": 50}},
        reviewer_says,
        {"text": json.dumps(FOUND), "usage": {"prompt_tokens": 1200, "completion_tokens": 40}},
    ]


async def test_tool_approve_reviews_the_servers_calls_and_never_approves_a_secret(
    git_repo: Path, fake_model: Any
) -> None:
    write_user_config(reviewers_table("tool_approve"))
    (git_repo / ".env").write_text("TOKEN=hunter2hunter2\n")
    fake_model.script(
        *_read_env_then_answer(verdict("deny", "secrets are not needed to find greet",
                                       prompt_tokens=300, completion_tokens=20)),
        *_read_env_then_answer(verdict("approve", "looks harmless")),
    )
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with stdio_session(git_repo, "--model", "openai/fake-model",
                             "--api-base", fake_model.openai_base,
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        denied = await session.call_tool("search", {"query": "greet"},
                                         progress_callback=on_progress)
        approved = await session.call_tool("search", {"query": "greet"})
        await assert_fits_schema(session, ("search", denied), ("search", approved))

    assert [p[:24] for p in system_prompts(fake_model)][1::3] == [
        "You review a tool call a"] * 2
    review = fake_model.requests[1]["messages"][1]["content"]
    assert "read_file" in review and ".env" in review
    assert "<request>" in review and "greet" in review  # judged against the agent's task

    # the reviewer's denial is what the agent reads; the secret never reaches a model
    after_deny = json.dumps(fake_model.requests[2]["messages"])
    assert "Denied by the tool-approve reviewer: secrets are not needed to find greet" in (
        after_deny)
    assert "tool-approve reviewer: deny: secrets are not needed to find greet" in progress
    # an "approve" does not approve a sensitive path under the server's policy
    after_approve = json.dumps(fake_model.requests[5]["messages"])
    assert "Not allowed" in after_approve and "may hold secrets" in after_approve
    assert not any("hunter2" in json.dumps(r["messages"]) for r in fake_model.requests)

    assert not denied.is_error, denied.content
    data = denied.structured_content
    assert data["mode"] == "own-model" and data["result"]["findings"][0]["file"] == "app.py"
    assert data["reviewers"] == {"tool-approve": {
        "calls": 1, "prompt_tokens": 300, "completion_tokens": 20, "cost_usd": 0.0}}
    assert data["usage"]["prompt_tokens"] == 1000 + 300 + 1200  # the reviewer's share counted
    assert data["usage"]["completion_tokens"] == 50 + 20 + 40


async def test_no_reviewer_configured_adds_nothing(git_repo: Path, fake_model: Any) -> None:
    (git_repo / ".env").write_text("TOKEN=hunter2hunter2\n")
    fake_model.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": ".env"}}]},
        {"text": json.dumps(FOUND)},
    )
    async with stdio_session(git_repo, "--model", "openai/fake-model",
                             "--api-base", fake_model.openai_base,
                             env={"OPENAI_API_KEY": "sk-test"}) as session:
        result = await session.call_tool("search", {"query": "greet"})
    assert len(fake_model.requests) == 2  # no review in between
    assert "reviewers" not in result.structured_content
    assert "Not allowed" in json.dumps(fake_model.requests[1]["messages"])
