"""/init through the init agent: the signals go to the `init` specialist (read-only tools, its
own loop), its structured sections come back and context/init_agent.py turns them into
VALARMIND.md. Without a delegator (no model) the same signals give the deterministic draft."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.agents.delegation.delegate import Delegator
from valarmind_tui.agents.results import InitResult
from valarmind_tui.context.init.signals import Signals
from valarmind_tui.context.init.valarmind_md import section_key, split_markdown
from valarmind_tui.context.init.write import (
    InitProposal,
    ModelDraft,
    generate_valarmind_md,
    init_task,
)


async def init_valarmind_md(root: Path, delegator: Delegator | None = None) -> InitProposal:
    """VALARMIND.md's new text (not written), by the init agent when a delegator is given."""
    if delegator is None:
        return await generate_valarmind_md(root)

    async def ask(signals: Signals) -> ModelDraft | str:
        ran = await delegator.run("init", init_task(signals))
        result = ran.result
        if not isinstance(result, InitResult):
            why = ran.problem or ran.status
            return f"the init agent returned no valid sections ({ran.status}: {why})"
        return to_draft(result)

    return await generate_valarmind_md(root, ask)


def to_draft(result: InitResult) -> ModelDraft:
    """The agent's structured answer as (key, heading, body) sections."""
    sections = [(section_key(s.name), s.name.strip(), _without_heading(s.name, s.body))
                for s in result.sections if s.body.strip()]
    title = result.project_name.strip()
    if not sections:
        split_title, sections = split_markdown(result.content)
        title = title or split_title
    return ModelDraft(title=title, sections=sections, warnings=list(result.warnings),
                      questions=list(result.questions))


def _without_heading(name: str, body: str) -> str:
    """A body that repeats its own `## Heading` loses it (the block adds one)."""
    lines = body.strip().splitlines()
    if lines and lines[0].lstrip("#").strip().lower() == name.strip().lower():
        lines = lines[1:]
    return "\n".join(lines).strip()
