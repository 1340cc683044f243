"""A tokenizer costs 39 MB (cl100k_base) once loaded: a conversation far from its window is
measured by its bytes and never loads one; near the window it is counted exactly, as before. A
loaded encoding keeps no Python copy of its vocabulary and counts what an untouched one does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.context.history_size import should_compact
from valarmind_tui.context.tokens import count_message_tokens, most_message_tokens
from valarmind_tui.core.tokenizer import count_tokens, encoding, most_tokens

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["hello world", "def greet(name):\n    return f'Hello {name}'\n" * 40,
         "<|endoftext|> is plain text here", "日本語のテキストと絵文字 🎉🎉", "a\ud800b surrogate",
         "    \n\n\t" * 50, "x" * 5000, "Ünïcödé façade, naïve café. " * 30]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_no_text_has_more_tokens_than_its_bytes(name: str) -> None:
    for text in TEXTS:
        assert count_tokens(text, name) <= most_tokens(text)


def test_the_loaded_encoding_counts_what_an_untouched_one_counts() -> None:
    import tiktoken
    from tiktoken_ext.openai_public import cl100k_base

    ours = encoding("cl100k_base")
    assert ours is not None
    untouched = tiktoken.Encoding(**cl100k_base())
    for text in TEXTS:
        assert count_tokens(text) == len(untouched.encode(text, disallowed_special=()))
    assert ours.decode(ours.encode("round trip", disallowed_special=())) == "round trip"


def test_a_history_under_its_window_by_bytes_is_measured_without_a_tokenizer() -> None:
    code = textwrap.dedent("""
        import sys
        from valarmind_tui.context.history_size import should_compact
        loaded = lambda: sorted(getattr(sys.modules.get("tiktoken.registry"), "ENCODINGS", {}))
        history = [{"role": "user", "content": "word " * 20_000}]  # 100 KB, ~20k tokens
        print(should_compact(history, 128_000, None, None), loaded())
        history = [{"role": "user", "content": "word " * 30_000}]  # 150 KB: counted
        print(should_compact(history, 128_000, None, None), loaded())
        print(should_compact(history, 32_000, None, None), loaded())
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.stdout.split("\n")[:3] == [
        "False []", "False ['cl100k_base']", "True ['cl100k_base']"], done.stderr[-2000:]


def test_the_bound_decides_as_the_exact_count_does() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "日本語 " * 3000},
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
        {"role": "user", "content": [{"type": "text", "text": "more " * 2000}]}]
    exact = count_message_tokens(history)
    assert exact <= most_message_tokens(history)
    for window in (1_000, exact, exact * 2, most_message_tokens(history) * 2):
        assert should_compact(history, window, None, None) == (exact > window * 0.85)


def test_a_session_s_warm_up_and_short_prompts_load_no_tokenizer(
        git_repo: Path, fake_model: Any) -> None:
    """The TUI's way: the model in its own process, the warm-up, then prompts; a history that
    comes near the window loads the tokenizer for the exact count."""
    code = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from valarmind_tui.providers.process import client
        from valarmind_tui.settings.config import Settings
        from valarmind_tui.session.wiring import build_session

        loaded = lambda: sorted(getattr(sys.modules.get("tiktoken.registry"), "ENCODINGS", {{}}))
        client.start()
        session = build_session(Settings(model="openai/fake-model",
                                   api_base={fake_model.openai_base!r}), Path({str(git_repo)!r}))
        session.warm_up()
        asyncio.run(session.submit("hello"))
        asyncio.run(session.submit("again"))
        print(loaded(), len(session.history) >= 4)
        session.history.append({{"role": "user", "content": "word " * 100_000}})
        asyncio.run(session.submit("and now?"))
        print(loaded())
        client.stop()
    """)
    fake_model.script(ScriptedTurn(text="one"), ScriptedTurn(text="two"),
                      ScriptedTurn(text="three"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=180, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                           "PATH": "/usr/bin:/bin", "HOME": str(git_repo)})
    assert out.stdout.split("\n")[:2] == ["[] True", "['cl100k_base']"], out.stdout + out.stderr
    assert len(fake_model.requests) == 3
