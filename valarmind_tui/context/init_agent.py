"""/init: write VALARMIND.md from project signals, with a model or as a deterministic draft.

The model never sees the existing VALARMIND.md (seed 001's context isolation); its answer is
wrapped in generated markers, held under the hard cap and merged into the existing file so
hand-written sections survive. Nothing is written here until `write_valarmind_md` is called
(the /init command shows `diff_vs_existing` and asks first; `valarmind init --yes` does not).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui.context.init_signals import Signals, collect_signals, render_tree
from valarmind_tui.context.tokens import count_tokens
from valarmind_tui.context.valarmind_md import (
    HARD_CAP,
    SECTIONS,
    TARGET_TOKENS,
    draft_within_budget,
    enforce_cap,
    mark_sections,
    merge_update,
)
from valarmind_tui.safe_files import atomic_write

FILENAME = "VALARMIND.md"
INIT_SYSTEM_PROMPT = (
    "You are ValarMind's init agent. From the project signals below, write VALARMIND.md: the "
    "operational brief every coding agent reads before working in this repository. Start with "
    "`# <project name>`, then one `## <Section>` per section, in this order: {sections}. "
    "Required: {required}. Add Endpoints, Environment Variables and External Integrations only "
    "when the signals show some. Be concrete and concise: prefer tables to lists, versions as "
    "major.minor, a TREE of depth 2-3 in a code block, no filler. Stay between {lo} and {hi} "
    "tokens (never above {cap}). Answer with the Markdown only."
)


@dataclass
class InitResult:
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


async def generate_valarmind_md(root: Path, provider: Any | None = None,
                                model: str | None = None) -> InitResult:
    """Collect signals and write the new text (with the model when `provider` is given)."""
    root = root.resolve()
    signals = collect_signals(root)
    if provider is None:
        new_text = draft_within_budget(signals)
    else:
        new_text = enforce_cap(mark_sections(await _ask_model(provider, model, signals)))
    path = root / FILENAME
    old_text = path.read_text(encoding="utf-8") if path.is_file() else None
    text = merge_update(old_text, new_text) if old_text is not None else new_text
    diff = "".join(difflib.unified_diff(
        (old_text or "").splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=f"a/{FILENAME}", tofile=f"b/{FILENAME}"))
    return InitResult(text=text, diff_vs_existing=diff, drafted_without_model=provider is None,
                      tokens=count_tokens(text), mode="update" if old_text else "create")


def write_valarmind_md(root: Path, text: str) -> Path:
    """Write VALARMIND.md atomically (temp file in the same directory, then rename)."""
    target = root.resolve() / FILENAME
    atomic_write(target, text)
    return target


def signals_prompt(signals: Signals) -> str:
    """The signals as the model's user message (no existing VALARMIND.md in it)."""
    data = {
        "name": signals.name, "description": signals.description,
        "languages": signals.languages, "manifests": signals.manifests,
        "dependencies": dict(list(signals.dependencies.items())[:40]),
        "dev_dependencies": dict(list(signals.dev_dependencies.items())[:25]),
        "commands": signals.commands, "configs": signals.configs, "ci": signals.ci,
        "env_vars": signals.env_vars, "endpoints": signals.endpoints,
        "integrations": signals.integrations, "sensitive_files": signals.sensitive,
        "top_dirs": signals.top_dirs, "test_dirs": signals.test_dirs,
        "docs": {k: v[:1500] for k, v in signals.docs.items() if k != FILENAME},
    }
    samples = "\n\n".join(f"### {path}\n```\n{text}\n```" for path, text in
                          signals.samples.items())
    return (f"Project signals (JSON):\n```json\n{json.dumps(data, indent=1)}\n```\n\n"
            f"Tree:\n```\n{render_tree(signals.files, 3)}\n```\n\nSampled code:\n\n{samples}")


async def _ask_model(provider: Any, model: str | None, signals: Signals) -> str:
    from valarmind_tui.providers.base import ModelRequest, TurnComplete

    system = INIT_SYSTEM_PROMPT.format(
        sections=", ".join(h for _, h, _ in SECTIONS),
        required=", ".join(h for _, h, r in SECTIONS if r),
        lo=TARGET_TOKENS[0], hi=TARGET_TOKENS[1], cap=HARD_CAP)
    request = ModelRequest(
        messages=[{"role": "system", "content": system},
                  {"role": "user", "content": signals_prompt(signals)}],
        model=model, max_tokens=6000)
    text = ""
    async for chunk in provider.stream(request):
        if isinstance(chunk, TurnComplete):
            text = chunk.turn.text
    return _strip_fence(text)


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```"):
        stripped = stripped.split("\n", 1)[1].rsplit("```", 1)[0]
    return stripped
