"""/init: VALARMIND.md from the project's signals, written by the init agent or, without a
model, as a deterministic draft from the same signals.

The agent never sees the existing VALARMIND.md (seed 001's context isolation): it gets the
signals, reads the project with read-only tools and returns structured sections (agents/
init_run.py runs it). Its sections become hashed blocks, cut to the token budget by priority and
merged into the existing file so hand-written text and edited blocks survive. Nothing is written
here until `write_valarmind_md` is called (the /init command shows `diff_vs_existing` and asks
first; `valarmind init --yes` does not).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.context.init.budget import fit_budget
from valarmind_tui.context.init.signals import Signals, collect_signals
from valarmind_tui.context.init.tree import render_tree
from valarmind_tui.context.init.valarmind_md import (
    HARD_CAP,
    REQUIRED,
    TARGET_TOKENS,
    compose,
    draft,
    draft_sections,
    merge_update,
    missing_fields,
)
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.core.safe_files import atomic_write

FILENAME = "VALARMIND.md"


@dataclass
class ModelDraft:
    """What the init agent returned: sections as (key, heading, body)."""

    title: str
    sections: list[tuple[str, str, str]]
    warnings: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)


InitAgent = Callable[[Signals], Awaitable["ModelDraft | str"]]
"""Runs the init agent on the signals: its draft, or why there is none."""


@dataclass
class InitProposal:
    """What /init produced (not yet written)."""

    text: str
    """The merged VALARMIND.md to write."""
    diff_vs_existing: str
    """Unified diff from the current file ('' when unchanged); the whole file when new."""
    drafted_without_model: bool
    tokens: int
    mode: str = "create"
    """create or update."""
    path: str = FILENAME
    warnings: list[str] = field(default_factory=list)
    """Shown to the person: sections cut to the budget, an agent that failed..."""
    kept_edited: list[str] = field(default_factory=list)
    """Generated blocks the person edited since: kept, not regenerated."""
    missing: list[str] = field(default_factory=list)
    """Required sections nobody could fill (the person is asked to)."""
    questions: list[str] = field(default_factory=list)

    def report(self) -> str:
        """The warnings, kept edits and open questions, one line each ('' when none)."""
        lines = [f"warning: {w}" for w in self.warnings]
        if self.kept_edited:
            lines.append("kept your edits (not regenerated; delete a block to regenerate it): "
                         + ", ".join(self.kept_edited))
        if self.missing:
            lines.append("please fill in: " + ", ".join(self.missing))
        lines += [f"question: {q}" for q in self.questions]
        return "\n".join(lines)


async def generate_valarmind_md(root: Path, agent: InitAgent | None = None) -> InitProposal:
    """Collect signals and write the new text (by the init agent when `agent` is given)."""
    root = root.resolve()
    signals = collect_signals(root)
    warnings: list[str] = []
    questions: list[str] = []
    answer = await agent(signals) if agent is not None else None
    if isinstance(answer, ModelDraft):
        new_text = _from_agent(signals, answer)
        warnings += answer.warnings
        questions = answer.questions
    else:
        if isinstance(answer, str):
            warnings.append(f"{answer}; this is the deterministic draft instead.")
        new_text = _draft_within_target(signals)
    budget = fit_budget(new_text)
    warnings += budget.warnings
    path = root / FILENAME
    old_text = path.read_text(encoding="utf-8") if path.is_file() else None
    kept: list[str] = []
    text = budget.text
    if old_text is not None:
        merge = merge_update(old_text, budget.text)
        kept = merge.kept_edited
        capped = fit_budget(merge.text, HARD_CAP)
        text = capped.text
        warnings += [w for w in capped.warnings if w not in warnings]
    diff = "".join(difflib.unified_diff(
        (old_text or "").splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=f"a/{FILENAME}", tofile=f"b/{FILENAME}"))
    return InitProposal(text=text, diff_vs_existing=diff,
                      drafted_without_model=not isinstance(answer, ModelDraft),
                      tokens=count_tokens(text), mode="update" if old_text else "create",
                      warnings=warnings, kept_edited=kept, missing=missing_fields(text),
                      questions=questions)


def write_valarmind_md(root: Path, text: str) -> Path:
    """Write VALARMIND.md atomically (temp file in the same directory, then rename)."""
    target = root.resolve() / FILENAME
    atomic_write(target, text)
    return target


def _draft_within_target(signals: Signals) -> str:
    """The draft, made shallower (TREE depth, dependency rows) before anything is cut."""
    text = draft(signals)
    for depth, deps in ((2, 20), (2, 12), (1, 8)):
        if count_tokens(text) <= TARGET_TOKENS[1]:
            break
        text = draft(signals, tree_depth=depth, max_deps=deps)
    return text


def _from_agent(signals: Signals, answer: ModelDraft) -> str:
    """The agent's sections; a required one it left out comes from the deterministic draft."""
    sections = [s for s in answer.sections if s[2].strip()]
    have = {key for key, _, _ in sections}
    sections += [s for s in draft_sections(signals) if s[0] in REQUIRED and s[0] not in have]
    return compose(answer.title or signals.name, sections)


def init_task(signals: Signals) -> str:
    """The init agent's task: the signals (no existing VALARMIND.md in it)."""
    data = {
        "name": signals.name, "description": signals.description,
        "ecosystems": signals.ecosystems, "runtime": signals.runtime,
        "languages": signals.languages, "manifests": signals.manifests,
        "dependencies": dict(list(signals.dependencies.items())[:40]),
        "dev_dependencies": dict(list(signals.dev_dependencies.items())[:25]),
        "commands": {kind: {"command": command, "from": signals.command_sources.get(kind)}
                     for kind, command in signals.commands.items()},
        "other_commands": [c.command for c in signals.command_alternatives],
        "configs": signals.configs, "ci": signals.ci,
        "env_vars": signals.env_vars, "endpoints": signals.endpoints,
        "integrations": signals.integrations, "sensitive_files": signals.sensitive,
        "core_files_by_rank": signals.core, "test_dirs": signals.test_dirs,
        "docs": {k: v[:1500] for k, v in signals.docs.items() if k != FILENAME},
    }
    samples = "\n\n".join(f"### {path}\n```\n{text}\n```" for path, text in
                          signals.samples.items())
    return (
        "Draft VALARMIND.md for this project. ValarMind collected these signals from the "
        "manifests (trust them for the name, dependencies, versions and commands); read "
        "what else you need with your tools.\n\n"
        f"Budget: {TARGET_TOKENS[0]:,}-{TARGET_TOKENS[1]:,} tokens in all, never above "
        f"{HARD_CAP:,}; longer answers are cut, least important sections first.\n\n"
        f"Signals (JSON):\n```json\n{json.dumps(data, indent=1)}\n```\n\n"
        f"Tree (best-ranked first):\n```\n{render_tree(signals.files, 3, ranked=signals.ranked)}"
        f"\n```\n\nBest-ranked code:\n\n{samples}")

