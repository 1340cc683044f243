"""A conversation is measured by the tokens its provider reported for the last request (issue
#36): compaction comes when the model's own count says the window is near, even when the bytes
are few, and not before; a report stops counting once the history it described is gone; with no
report the bytes and tiktoken measure it, as before. A resumed conversation is measured by the
count kept with it when it is the conversation counted; a fallback model's count is its own.
Real sessions in the SQLite store, the fake model server reporting usage in its final chunk;
gpt-3.5-turbo's window (16,385 tokens: 13,927 before compaction) keeps the conversations
short."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.context.compaction import DEFAULT_THRESHOLD, SUMMARY_HEADER, SUMMARY_PROMPT
from valarmind_tui.context.history_size import (
    ReportedSize,
    fits_uncounted,
    messages_digest,
    reported_size,
)
from valarmind_tui.context.tokens import most_message_tokens
from valarmind_tui.providers.base import Usage
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session
from valarmind_tui.settings.config import load_settings

MODEL = "openai/gpt-3.5-turbo"
LIMIT = 16_385 * DEFAULT_THRESHOLD
WORDS = "word " * 3_000
"""15 KB, ~3,000 tokens: its bytes say five times what tiktoken (and the model) count."""


@pytest.fixture
def session(git_repo: Path, fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
            ) -> Session:
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = load_settings(git_repo, model=MODEL, api_base=fake_model.openai_base,
                             api_key_env="FAKE_API_KEY")
    return open_session(settings, git_repo, approver=PolicyApprover())


def _summaries(fake_model: FakeModelServer) -> int:
    return sum(1 for r in fake_model.requests if r["messages"][0]["content"] == SUMMARY_PROMPT)


def _long_answers_counted_far_from_the_window() -> tuple[ScriptedTurn, ScriptedTurn]:
    """Two answers of many bytes (over the window by the bytes alone) whose provider counts
    the history at 2,000 then 5,000 tokens in, far from it."""
    return (ScriptedTurn(text=WORDS, usage={"prompt_tokens": 2_000, "completion_tokens": 3_000}),
            ScriptedTurn(text=WORDS, usage={"prompt_tokens": 5_000, "completion_tokens": 3_000}))


async def _prompts(session: Session, count: int, first: int = 1) -> None:
    for n in range(first, first + count):
        await session.submit(f"prompt {n}")


async def test_the_model_s_own_count_near_the_window_compacts_a_history_of_few_bytes(
        session: Session, fake_model: FakeModelServer) -> None:
    fake_model.script(*[ScriptedTurn(text=f"answer {n}", usage={
        "prompt_tokens": 500 * n, "completion_tokens": 5}) for n in range(1, 4)],
        # a tokenizer denser than the bytes suggest, images, tool schemas: the model says
        ScriptedTurn(text="answer 4", usage={"prompt_tokens": 14_000, "completion_tokens": 5}),
        ScriptedTurn(text="We said hello four times."),  # the summary
        ScriptedTurn(text="answer 5", report_usage=False))
    await _prompts(session, 4)
    assert _summaries(fake_model) == 0
    assert most_message_tokens(session.history) < LIMIT / 2  # the bytes alone: far from it

    await session.submit("prompt 5")

    assert _summaries(fake_model) == 1
    assert fake_model.requests[4]["messages"][0]["content"] == SUMMARY_PROMPT
    assert session.history[1]["content"].startswith(SUMMARY_HEADER)
    assert "We said hello four times." in fake_model.requests[5]["messages"][1]["content"]
    await session.close()


async def test_a_report_of_the_history_before_compaction_is_not_trusted_after_it(
        session: Session, fake_model: FakeModelServer) -> None:
    fake_model.script(*[ScriptedTurn(text=f"answer {n}") for n in range(1, 4)],
                      ScriptedTurn(text="answer 4", usage={"prompt_tokens": 14_000}),
                      ScriptedTurn(text="summary"),
                      # the answer after compaction reports nothing: the 14,000 remain the last
                      ScriptedTurn(text="answer 5", report_usage=False),
                      ScriptedTurn(text="answer 6", report_usage=False),
                      ScriptedTurn(text="answer 7", report_usage=False))
    await _prompts(session, 5)
    assert _summaries(fake_model) == 1
    await _prompts(session, 2, first=6)
    assert _summaries(fake_model) == 1  # not compacted again at every prompt
    assert [r["messages"][-1]["content"] for r in fake_model.requests[-2:]] == [
        "prompt 6", "prompt 7"]
    await session.close()


async def test_a_long_history_the_model_counts_far_from_the_window_loads_no_tokenizer(
        session: Session, fake_model: FakeModelServer, encodings_asked: list[str]) -> None:
    fake_model.script(*_long_answers_counted_far_from_the_window(), ScriptedTurn(text="short"))
    await _prompts(session, 2)
    assert most_message_tokens(session.history) > LIMIT  # the bytes alone: over the window

    await session.submit("prompt 3")

    assert _summaries(fake_model) == 0  # not early: the model counted 8,000
    assert encodings_asked == []
    assert len(fake_model.requests) == 3
    await session.close()


async def test_the_messages_after_the_report_are_counted_when_they_bring_it_near(
        session: Session, fake_model: FakeModelServer, encodings_asked: list[str]) -> None:
    fake_model.script(ScriptedTurn(text="answer 1", usage={"prompt_tokens": 9_000}),
                      ScriptedTurn(text="answer 2"))
    await session.submit("prompt 1")
    session.history.append({"role": "user", "content": WORDS})  # 15 KB, ~3,000 tokens
    await session.submit("prompt 2")
    assert _summaries(fake_model) == 0  # 9,000 + ~3,000 counted: under 13,927
    assert encodings_asked and set(encodings_asked) == {"cl100k_base"}
    await session.close()


@pytest.mark.parametrize("usage", [{"report_usage": False},
                                   {"usage": {"prompt_tokens": 0, "completion_tokens": 3_000}}],
                         ids=["no usage", "zero prompt tokens"])
async def test_without_a_reported_count_the_bytes_then_tiktoken_decide(
        session: Session, fake_model: FakeModelServer, encodings_asked: list[str],
        usage: dict[str, Any]) -> None:
    fake_model.script(*[ScriptedTurn(text=WORDS, **usage) for _ in range(2)],
                      *[ScriptedTurn(text="short", **usage) for _ in range(2)],
                      ScriptedTurn(text=WORDS * 3, **usage),
                      ScriptedTurn(text="summary"), ScriptedTurn(text="after", **usage))
    await _prompts(session, 5)
    assert _summaries(fake_model) == 0  # ~6,500 tokens counted, 32 KB of bytes
    assert "cl100k_base" in encodings_asked
    await session.submit("prompt 6")  # ~15,500 tokens counted
    assert _summaries(fake_model) == 1
    assert fake_model.requests[5]["messages"][0]["content"] == SUMMARY_PROMPT
    await session.close()


async def test_a_specialist_s_own_count_is_not_the_conversation_s(
        session: Session, fake_model: FakeModelServer) -> None:
    """A delegated agent's requests carry its own conversation: near the window by its count,
    the person's conversation is not compacted for it."""
    fake_model.script(
        *[ScriptedTurn(text=f"answer {n}", usage={"prompt_tokens": 600 * n}) for n in (1, 2, 3)],
        ScriptedTurn(tool_calls=[{"name": "delegate", "arguments": {
            "agent": "research", "task": "read everything"}}], usage={"prompt_tokens": 2_000}),
        ScriptedTurn(text='{"summary": "Read it all."}', usage={"prompt_tokens": 15_000}),
        ScriptedTurn(text="It reads well.", usage={"prompt_tokens": 2_600}),
        ScriptedTurn(text="answer 5", usage={"prompt_tokens": 2_700}))
    await _prompts(session, 5)
    assert fake_model.requests[4]["messages"][0]["content"] != fake_model.requests[3][
        "messages"][0]["content"]  # the specialist's own request
    assert _summaries(fake_model) == 0
    assert len(fake_model.requests) == 7
    await session.close()


async def test_a_resumed_long_conversation_is_measured_by_its_last_reported_count(
        session: Session, fake_model: FakeModelServer, encodings_asked: list[str]) -> None:
    """/resume, `--resume`: the count the provider last reported is kept with the session in
    the store, so a long conversation far from its window loads no tokenizer on its first
    prompt after being read back."""
    fake_model.script(*_long_answers_counted_far_from_the_window(), ScriptedTurn(text="resumed"))
    await _prompts(session, 2)
    await session.close()
    resumed = open_session(session.settings, session.project_root, approver=PolicyApprover(),
                           resume="last")
    assert len(resumed.history) == 5
    assert most_message_tokens(resumed.history) > LIMIT  # the bytes alone: over the window

    await resumed.submit("prompt 3")

    assert encodings_asked == []
    assert _summaries(fake_model) == 0
    assert fake_model.requests[-1]["messages"][-1]["content"] == "prompt 3"
    await resumed.close()
    fake_model.script(ScriptedTurn(text="another model"))
    other = open_session(session.settings.model_copy(update={"model": "openai/gpt-4"}),
                         session.project_root, approver=PolicyApprover(), resume="last")

    await other.submit("prompt 4")  # another model's tokenizer: its count is no count here

    assert set(encodings_asked) == {"cl100k_base"}
    await other.close()


async def test_a_resumed_conversation_with_a_secret_in_its_prompt_keeps_its_count(
        session: Session, fake_model: FakeModelServer, encodings_asked: list[str]) -> None:
    """The system prompt holds a `.env` value (VALARMIND.md names it): the store keeps it
    masked, and the kept count's digest is of the masked messages, so the conversation read
    back is the one counted, and the store holds nothing to test a guess of the value with."""
    secret = "s3cr3t-deploy-value-1234"
    (session.project_root / ".env").write_text(f"DEPLOY_TOKEN={secret}\n")
    (session.project_root / "VALARMIND.md").write_text(f"Deploy with `{secret}`.\n")
    session.invalidate_context()
    fake_model.script(*_long_answers_counted_far_from_the_window(), ScriptedTurn(text="resumed"))
    await _prompts(session, 2)
    assert secret in session.history[0]["content"]  # in memory; the model was sent it masked
    await session.close()
    resumed = open_session(session.settings, session.project_root, approver=PolicyApprover(),
                           resume="last")
    assert secret not in resumed.history[0]["content"]
    assert resumed.store is not None and resumed.session_id is not None
    kept = resumed.store.reported_count(resumed.session_id)
    assert kept is not None  # of the masked messages alone: what the store holds
    assert kept.digest == messages_digest(resumed.history[:kept.messages])

    await resumed.submit("prompt 3")

    assert encodings_asked == []
    await resumed.close()


async def test_a_resumed_conversation_is_not_measured_by_a_count_of_its_compacted_form(
        session: Session, fake_model: FakeModelServer) -> None:
    """The store keeps every message, compacted or not: the last count was of the compacted
    history (13,105), which the conversation read back is not (~17,000 by tiktoken, over
    13,927): it is measured as stored, and compacted before its first prompt."""
    answer = "word " * 3_500  # ~3,500 tokens
    fake_model.script(*[ScriptedTurn(text=answer, usage={
        "prompt_tokens": 2_600 + 3_510 * n, "completion_tokens": 3_500}) for n in range(4)],
        ScriptedTurn(text="We read four answers."),  # the summary before prompt 5
        ScriptedTurn(text="answer 5", usage={"prompt_tokens": 13_100, "completion_tokens": 5}),
        ScriptedTurn(text="We read five answers."),  # the summary after resuming
        ScriptedTurn(text="resumed"))
    await _prompts(session, 5)
    assert _summaries(fake_model) == 1
    await session.close()
    resumed = open_session(session.settings, session.project_root, approver=PolicyApprover(),
                           resume="last")
    assert len(resumed.history) == 11  # the system prompt, 5 prompts, 5 answers

    await resumed.submit("prompt 6")

    assert _summaries(fake_model) == 2
    assert fake_model.requests[-2]["messages"][0]["content"] == SUMMARY_PROMPT
    assert resumed.history[1]["content"].startswith(SUMMARY_HEADER)
    await resumed.close()


async def test_a_fallback_model_s_count_is_not_taken_for_the_requested_model_s(
        git_repo: Path, fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The primary is overloaded and a fallback answers, counting with its own tokenizer: its
    count (7,000) is its own, and the next prompt, sent to the primary first again, measures
    the history with the primary's window and tiktoken (~14,500: over 13,927): compacted, by
    the primary first too."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    settings = load_settings(git_repo, model=MODEL, api_base=fake_model.openai_base,
                             api_key_env="FAKE_API_KEY", fallback_models=["openai/fake-backup"])
    session = open_session(settings, git_repo, approver=PolicyApprover())
    fake_model.script(*[ScriptedTurn(text=f"answer {n}", usage={"prompt_tokens": 600 * n})
                        for n in (1, 2, 3)],
                      ScriptedTurn(status=529, headers={"x-should-retry": "false"},
                                   error="Overloaded"),
                      ScriptedTurn(text="word " * 14_000, usage={"prompt_tokens": 2_000,
                                                                 "completion_tokens": 5_000}),
                      ScriptedTurn(text="summary"), ScriptedTurn(text="answer 5"))
    await _prompts(session, 4)
    assert [r["model"] for r in fake_model.requests[2:]] == [
        "gpt-3.5-turbo", "gpt-3.5-turbo", "fake-backup"]
    assert session.reported_size is not None
    assert session.reported_size.model == "openai/fake-backup"

    await session.submit("prompt 5")

    assert _summaries(fake_model) == 1
    assert [r["model"] for r in fake_model.requests[5:]] == ["gpt-3.5-turbo"] * 2
    assert session.history[1]["content"].startswith(SUMMARY_HEADER)
    await session.close()


def test_a_report_describes_only_the_messages_it_counted() -> None:
    system = {"role": "system", "content": "you help"}
    asked = {"role": "user", "content": "hi"}
    answer = {"role": "assistant", "content": "hello"}
    report = reported_size(Usage(120, 30), [system, asked, answer], MODEL)
    assert report == ReportedSize(MODEL, 150, (system, asked, answer))
    later = {"role": "user", "content": "[gates] all passed"}
    assert report.added_since([system, asked, answer, later], MODEL) == [later]
    assert report.added_since([system, asked, answer], "openai/gpt-4") is None  # /model
    assert report.added_since([], MODEL) is None  # /clear
    assert report.added_since([system, asked], MODEL) is None  # /undo, /rewind
    summary = {"role": "user", "content": f"{SUMMARY_HEADER}\nhello"}
    assert report.added_since([system, summary, answer], MODEL) is None  # compacted
    resumed = [dict(m) for m in (system, asked, answer)]  # read back from the store
    assert report.added_since(resumed, MODEL) is None
    assert reported_size(Usage(0, 30), [system, asked, answer], MODEL) is None
    pasted = {"role": "user", "content": "def greet(name):\n    return name\n" * 3_000}
    assert reported_size(Usage(10, 30), [system, pasted, answer], MODEL) is None  # made up
    assert reported_size(Usage(30_000, 30), [system, pasted, answer], MODEL) is not None


def test_a_smaller_window_after_a_model_switch_is_measured_without_the_old_report() -> None:
    history: list[dict[str, Any]] = [{"role": "user", "content": "x" * 40_000}]
    report = reported_size(Usage(9_000, 0), history, MODEL)
    assert fits_uncounted(history, 100_000, report, MODEL) is True
    assert fits_uncounted(history, 10_000, report, MODEL) is False
    assert fits_uncounted(history, 10_000, report, "openai/gpt-4") is None  # bytes: count


def test_the_tui_s_thirty_prompts_under_the_window_never_load_the_tokenizer(
        git_repo: Path, fake_model: FakeModelServer, tmp_path: Path) -> None:
    """The TUI's way (the model in its own process, the warm-up): a conversation whose bytes
    pass the window's threshold but whose reported count does not loads no encoding, nor does
    its first prompt once resumed from the store (the last count was kept with it)."""
    code = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from valarmind_tui.providers.process import client
        from valarmind_tui.safety.gate.approval import PolicyApprover
        from valarmind_tui.settings.config import Settings
        from valarmind_tui.session.wiring import open_session

        loaded = lambda: sorted(getattr(sys.modules.get("tiktoken.registry"), "ENCODINGS", {{}}))
        settings = Settings(model="openai/fake-model", api_base={fake_model.openai_base!r})
        root = Path({str(git_repo)!r})
        client.start()
        session = open_session(settings, root, approver=PolicyApprover())
        session.warm_up()
        for n in range(30):
            asyncio.run(session.submit(f"explain app.py, part {{n}}"))
        from valarmind_tui.context.tokens import most_message_tokens
        print(loaded(), len(session.history), most_message_tokens(session.history) > 108_800)
        asyncio.run(session.close())
        again = open_session(settings, root, approver=PolicyApprover(), resume="last")
        print(len(again.history))
        asyncio.run(again.submit("and now?"))
        print(loaded())
        client.stop()
    """)
    answer = "We change `greet` in app.py so that it returns a greeting. " * 70  # ~4 KB
    sent = 3_000  # the system prompt and the tools, about
    for _ in range(30):
        fake_model.script(ScriptedTurn(text=answer, usage={"prompt_tokens": sent,
                                                          "completion_tokens": 900}))
        sent += 920
    fake_model.script(ScriptedTurn(text="resumed", report_usage=False))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                           "XDG_DATA_HOME": str(tmp_path / "data"),
                                           "XDG_CONFIG_HOME": str(tmp_path / "config"),
                                           "VALARMIND_MODEL_DAEMON": "0",
                                           "VALARMIND_LSP__ENABLED": "0"})
    lines = out.stdout.split("\n")
    assert lines[0] == "[] 61 True", out.stdout + out.stderr[-3000:]  # True: bytes over
    assert lines[1:3] == ["61", "[]"], out.stdout + out.stderr[-3000:]
    assert len(fake_model.requests) == 31
    assert _summaries(fake_model) == 0

