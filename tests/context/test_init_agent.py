"""/init through the init agent (scripted fake model): signals in, structured sections out,
the budget enforced in tokens with a warning, and a block the person edited kept on re-run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.init_run import init_valarmind_md
from valarmind_tui.agents.read_only import read_only_delegator
from valarmind_tui.context.init.budget import TRIMMED_MARK
from valarmind_tui.context.init.valarmind_md import HARD_CAP, TARGET_TOKENS
from valarmind_tui.context.init.write import generate_valarmind_md, write_valarmind_md
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import ToolCallFinished
from valarmind_tui.providers.litellm_call import load_litellm
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

FIXTURES = Path(__file__).parent.parent / "fixtures" / "init_projects"


def _requests(tmp_path: Path) -> Path:
    root = tmp_path / "requests-2.32.3"
    shutil.copytree(FIXTURES / "requests-2.32.3", root)
    return root


def _delegator(root: Path, fake_model: Any, bus: EventBus) -> Any:
    load_litellm()  # its first import is slow; the init agent's 90 s are not for that
    provider = LiteLLMProvider(ProviderConfig(
        model="openai/fake-model", api_base=fake_model.openai_base, api_key="sk-test",
        max_retries=0))
    return read_only_delegator(root, provider, None, bus)


def _answer(sections: dict[str, str], **extra: Any) -> str:
    return json.dumps({"project_name": "requests", "sections": [
        {"name": name, "body": body, "source": "extracted", "confidence": 0.9}
        for name, body in sections.items()], **extra})


async def test_init_agent_reads_with_tools_and_returns_sections(
        tmp_path: Path, fake_model: Any) -> None:
    root = _requests(tmp_path)
    write_valarmind_md(root, "# Old\n\nOLD-HAND-NOTES-7731\n")
    fake_model.script(
        ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "README.md"}}]),
        ScriptedTurn(text=_answer({
            "Objective": "Requests is an elegant HTTP library for Python.",
            "Commands": "| Task | Command |\n|---|---|\n| test | `pytest -q` |",
        }, questions=["Which branch do releases come from?"])),
    )
    bus = EventBus()
    events: list[Any] = []
    bus.add_listener(events.append)
    result = await init_valarmind_md(root, _delegator(root, fake_model, bus))

    first = json.dumps(fake_model.requests[0])
    assert "charset_normalizer" in first and "src/requests/" in first  # the signals
    assert "OLD-HAND-NOTES-7731" not in first  # the agent never sees the old file
    assert "Python HTTP for Humans" in json.dumps(fake_model.requests[1])  # README read
    reads = [e for e in events if isinstance(e, ToolCallFinished) and e.name == "read_file"]
    assert [e.status for e in reads] == ["ok"]
    text = result.text
    assert not result.drafted_without_model
    assert "elegant HTTP library" in text and "OLD-HAND-NOTES-7731" in text
    # required sections the agent left out come from the same signals
    assert "## Main Dependencies" in text and "| `urllib3` |" in text
    assert "## TREE" in text and "  requests/" in text
    assert result.questions == ["Which branch do releases come from?"]
    assert "question: Which branch" in result.report()


async def test_a_verbose_init_model_is_cut_by_priority_with_a_warning(
        tmp_path: Path, fake_model: Any) -> None:
    root = _requests(tmp_path)
    rows = "\n".join(f"| `src/requests/module_{i}.py` | handles case {i} of the transport "
                     f"layer, retries {i} times and logs {i} lines |" for i in range(120))
    sections = {
        "Objective": "Requests is an elegant and simple HTTP library for Python.",
        "Commands": "| Task | Command |\n|---|---|\n| test | `pytest -q` |",
        "Architecture": "| File | Role |\n|---|---|\n" + rows,
        "TREE": "```\n" + "\n".join(f"src/requests/file_{i}.py" for i in range(400)) + "\n```",
        "References": "\n".join(f"- https://requests.readthedocs.io/page/{i}"
                                for i in range(300)),
    }
    verbose = _answer(sections)
    assert count_tokens(verbose) > 8000
    fake_model.script(ScriptedTurn(text=verbose))
    result = await init_valarmind_md(root, _delegator(root, fake_model, EventBus()))

    assert result.tokens == count_tokens(result.text) <= TARGET_TOKENS[1] < HARD_CAP
    assert any("token budget" in w and "references" in w for w in result.warnings)
    assert "warning: " in result.report()
    text = result.text
    assert "elegant and simple HTTP library" in text and "| test | `pytest -q` |" in text
    references = text[text.index("## References"):]
    assert TRIMMED_MARK in references and "page/299" not in references
    tree = text[text.index("## TREE"):text.index("## References")]
    assert tree.count("```") % 2 == 0  # fences stay balanced after a cut


async def test_invalid_agent_answer_falls_back_to_the_draft_with_a_warning(
        tmp_path: Path, fake_model: Any) -> None:
    root = _requests(tmp_path)
    fake_model.script(ScriptedTurn(text="{}"), ScriptedTurn(text='{"sections": []}'))
    result = await init_valarmind_md(root, _delegator(root, fake_model, EventBus()))
    assert result.drafted_without_model
    assert any("init agent returned no valid sections" in w for w in result.warnings)
    assert result.text.startswith("# requests\n")


async def test_an_edited_block_is_kept_and_reported_on_rerun(tmp_path: Path) -> None:
    root = _requests(tmp_path)
    first = await generate_valarmind_md(root)
    assert first.kept_edited == []
    mine = "| deploy | `make release` (ask Ana first) |"
    edited = first.text.replace("| test | `pytest -q` |", f"| test | `pytest -q` |\n{mine}")
    edited += "\n## Team\n\nOur own notes, outside any block.\n"
    write_valarmind_md(root, edited)
    (root / "src" / "requests" / "billing.py").write_text("def charge():\n    return 1\n")

    second = await generate_valarmind_md(root)
    assert second.kept_edited == ["commands"]
    assert mine in second.text and "Our own notes, outside any block." in second.text
    assert "billing.py" in second.text  # the other blocks were regenerated
    assert "kept your edits" in second.report() and "commands" in second.report()
    # a third run still keeps it: the edited block's hash still does not match
    write_valarmind_md(root, second.text)
    third = await generate_valarmind_md(root)
    assert third.kept_edited == ["commands"] and mine in third.text
    assert not third.diff_vs_existing


def test_blocks_carry_the_hash_of_their_text(tmp_path: Path) -> None:
    from valarmind_tui.context.init.valarmind_md import block_hash, blocks, wrap

    block = blocks(wrap("stack", "## Stack\n\nPython"))[0]
    assert re.fullmatch(r"[0-9a-f]{16}", block.group("hash"))
    assert block.group("hash") == block_hash("## Stack\n\nPython")
