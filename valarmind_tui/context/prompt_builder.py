"""Seed 001's PromptBuilder: prioritized sections fitted into a token budget.

Sections are kept in the order they were added; when the whole is over budget the lowest
priority sections are truncated (when `truncatable`) or dropped first. System is 100, project
context 80, the repo map 60 and working state 40 by default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.context.tokens import count_tokens

SYSTEM = 100
PROJECT_CONTEXT = 80
REPO_MAP = 60
WORKING_STATE = 40
_TRUNCATED = "\n[… truncated to fit the context budget]"


@dataclass
class Section:
    name: str
    text: str
    priority: int
    truncatable: bool = True
    tokens: int = 0
    """Counted only when the prompt had to be fitted to a budget."""


@dataclass
class BuiltPrompt:
    """The assembled prompt and what went into it."""

    text: str
    sections: list[Section] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sections)


class PromptBuilder:
    """Collects sections, then `build(budget)` fits them."""

    def __init__(self, counter: Callable[[str], int] = count_tokens) -> None:
        self._sections: list[Section] = []
        self._count = counter

    def add(self, name: str, text: str, priority: int, *, truncatable: bool = True
            ) -> PromptBuilder:
        if text and text.strip():
            self._sections.append(Section(name, text.strip(), priority, truncatable))
        return self

    def build(self, token_budget: int | None = None) -> BuiltPrompt:
        """The sections joined; with a budget, the least important cut or dropped to fit it.
        Tokens are counted only when the budget might be exceeded: loading the tokenizer cost
        every prompt ~0.1 s of CPU (a one-shot's whole prompt had no budget at all)."""
        sections = [Section(s.name, s.text, s.priority, s.truncatable) for s in self._sections]
        result = BuiltPrompt("", sections)
        if token_budget is not None and not _surely_fits(sections, token_budget):
            for section in sections:
                section.tokens = self._count(section.text)
            self._fit(result, token_budget)
        result.text = "\n\n".join(_render(s) for s in result.sections)
        return result

    def _fit(self, result: BuiltPrompt, budget: int) -> None:
        for section in sorted(result.sections, key=lambda s: s.priority):
            over = result.tokens + 8 * len(result.sections) - budget
            if over <= 0:
                return
            keep = section.tokens - over
            if section.truncatable and keep > 50:
                section.text = _cut(section.text, keep, self._count)
                section.tokens = self._count(section.text)
                result.truncated.append(section.name)
            elif section.priority < SYSTEM:
                result.sections.remove(section)
                result.dropped.append(section.name)


def _surely_fits(sections: list[Section], budget: int) -> bool:
    """Within `budget` without counting: a token is at least one byte of UTF-8."""
    return sum(len(s.text.encode()) + 8 for s in sections) <= budget


def _cut(text: str, tokens: int, count: Callable[[str], int]) -> str:
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) + count(_TRUNCATED) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    if "\n" in cut:
        cut = cut[: cut.rindex("\n")]
    return cut + _TRUNCATED


def _render(section: Section) -> str:
    if section.priority >= SYSTEM:
        return section.text
    return f"# {section.name}\n\n{section.text}"


def build_agent_prompt(spec: Any, *, project_context: str = "", repo_map: str = "",
                       working_state: str = "", token_budget: int | None = None) -> BuiltPrompt:
    """The system prompt of an agent (an AgentSpec or anything with `system_prompt` and
    `exclude_project_context`): the init agent never sees the existing project context."""
    builder = PromptBuilder().add("System", spec.system_prompt, SYSTEM, truncatable=False)
    if not getattr(spec, "exclude_project_context", False):
        builder.add("Project context", project_context, PROJECT_CONTEXT)
    builder.add("Repository map", repo_map, REPO_MAP)
    builder.add("Working state", working_state, WORKING_STATE)
    return builder.build(token_budget)
