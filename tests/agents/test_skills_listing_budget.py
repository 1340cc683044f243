"""The skills listing fits its share of the window (2%) without a tokenizer (issue #36): a long
listing is cut by its UTF-8 bytes at 3 a token, so the system prompt a session sends loads no
tiktoken encoding (24 MB in the UI process), a person's 50 skills are all listed at 128k, and
what is sent is within its share in cl100k_base and o200k_base for English text and paths."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.setup.helpers import SETUPS
from valarmind_tui.agents.listings import BYTES_PER_TOKEN, SKILL_SHARE, skills_section
from valarmind_tui.core import tokenizer
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.setup.skills import Skill, load_skills

REVIEWER = (SETUPS / "gemini-cli/.gemini/skills/code-reviewer/SKILL.md").read_text()
"""A real skill (Apache-2.0) whose description is long: 50 of them pass 2% of 32k."""


def _fifty_skills(root: Path) -> list[Skill]:
    home = Path(os.environ["HOME"])
    for number in range(50):
        folder = home / ".claude/skills" / f"skill-{number:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(REVIEWER.replace("name: code-reviewer",
                                                          f"name: skill-{number:02d}"))
    skills, _ = load_skills(root, home, trusted=False)
    assert len(skills) == 50
    return skills


def _listing(system_prompt: str) -> str:
    start = system_prompt.index("Skills (load one")
    end = system_prompt.find("\n\n", start)
    return system_prompt[start:] if end < 0 else system_prompt[start:end]


async def test_a_session_s_long_skills_listing_is_cut_without_loading_a_tokenizer(
        git_repo: Path, fake_model: FakeModelServer, model_settings: Any,
        encodings_asked: list[str]) -> None:
    _fifty_skills(git_repo)
    session = build_session(model_settings(git_repo), git_repo, approver=PolicyApprover())
    fake_model.script(ScriptedTurn(text="hello"))
    await session.submit("hi")
    await session.close()
    assert encodings_asked == []
    listing = _listing(fake_model.requests[0]["messages"][0]["content"])
    assert listing.count("\n- skill-") == 50  # fake-model's window: 128k (LiteLLM has none)
    assert "- skill-49: Use this skill to review code." in listing
    budget = 128_000 * SKILL_SHARE
    for name in tokenizer.BUDGET_ENCODINGS:
        assert tokenizer.count_tokens(listing, name) <= budget


async def test_a_long_listing_in_a_small_window_is_cut_and_says_so(
        git_repo: Path, fake_model: FakeModelServer, encodings_asked: list[str]) -> None:
    listing = skills_section(_fifty_skills(git_repo), 32_000)
    assert encodings_asked == []
    assert "- skill-00: Use this skill to review code." in listing
    assert "more skills: call skill with a name from /skills" in listing  # cut, and says so
    for name in tokenizer.BUDGET_ENCODINGS:
        assert tokenizer.count_tokens(listing, name) <= 32_000 * SKILL_SHARE


def test_the_cut_keeps_every_skill_it_has_room_for(git_repo: Path) -> None:
    skills = _fifty_skills(git_repo)
    for window in (32_000, 128_000, 200_000, 1_000_000):
        listing = skills_section(skills, window)
        budget = window * SKILL_SHARE * BYTES_PER_TOKEN
        assert len(listing.encode()) <= budget
        if listing.count("\n- skill-") < 50:  # one more skill's line would not have fit
            one_more = len(listing.encode()) + len(listing.splitlines()[1].encode())
            assert one_more > budget  # its "\n", and "and N more" perhaps a digit shorter
    assert skills_section(skills, 32_000).count("\n- skill-") < 50
    assert skills_section(skills, 200_000).count("\n- skill-") == 50
    full = skills_section(skills[:3], 128_000)
    assert full.count("\n- skill-") == 3 and skills[0].description in full  # whole, uncut
