"""What an agent's prompt says about the skills it may load and the agents it may delegate to.

Skills are listed by name, description and folder only (progressive disclosure: the body is the
`skill` tool's), within `SKILL_SHARE` of the model's context window: over it, descriptions are
cut to their first sentence, then the last skills are left out with a line saying how many and
where to find them. The listing is measured by its UTF-8 bytes, at BYTES_PER_TOKEN bytes a
token (as Claude Code gives its skills a budget of characters): no tokenizer is loaded for it
(24 MB in the UI process; the listing is built on every prompt). Text that encodes into more
tokens than English prose (code, other scripts) takes more of the window than the share says;
a budget that held for every encoding (a token per byte) listed 24 of 50 skills at 128k where
cl100k_base's count listed 50.

The orchestrator also sees every agent that is not one of ours with its description, since
its own prompt names only the built-in specialists."""

from __future__ import annotations

from collections.abc import Iterable

from valarmind_tui.agents.registry import AgentRegistry
from valarmind_tui.agents.spec import AgentSpec
from valarmind_tui.context.tokens import most_tokens
from valarmind_tui.setup.skills import Skill

SKILL_SHARE = 0.02
BYTES_PER_TOKEN = 3
"""A listing line (name, description, folder path) in cl100k_base and o200k_base: 3.0-3.1."""
SHORT_DESCRIPTION = 160
_HEAD = ("Skills (load one with the skill tool when the task matches its description; "
         "its instructions are not in this prompt):")


def setup_listings(spec: AgentSpec, skills: list[Skill], registry: AgentRegistry,
                   window_tokens: int) -> tuple[str, str]:
    """The skills `spec` sees, and for the orchestrator the agents beyond ours ("" when none)."""
    agents = agents_section(registry) if spec.name == "orchestrator" else ""
    return skills_section(skills_for(spec, skills), window_tokens), agents


def skills_for(spec: AgentSpec, skills: Iterable[Skill]) -> list[Skill]:
    """The skills `spec` sees: all for the orchestrator and agents given the `skill` tool, only
    the named ones for an agent whose file lists `skills`."""
    chosen = [s for s in skills if s.model_invocable]
    if spec.skills is not None:
        return [s for s in chosen if s.name in spec.skills]
    if spec.name == "orchestrator" or "skill" in spec.tools:
        return chosen
    return []


def skills_section(skills: list[Skill], window_tokens: int) -> str:
    """The listing, fitted into `SKILL_SHARE` of `window_tokens` by its bytes."""
    if not skills:
        return ""
    budget = int(window_tokens * SKILL_SHARE * BYTES_PER_TOKEN)
    text = "\n".join([_HEAD, *(_line(s, s.description) for s in skills)])
    if most_tokens(text) <= budget:
        return text
    lines = [_line(s, _first_sentence(s.description)) for s in skills]
    text = "\n".join([_HEAD, *lines])
    if most_tokens(text) <= budget:
        return text
    kept: list[str] = [_HEAD]
    used = most_tokens(_HEAD)
    for number, line in enumerate(lines):
        with_line = used + 1 + most_tokens(line)  # "\n" and the line
        if with_line + 1 + most_tokens(_more(len(lines) - number - 1)) > budget:
            kept.append(_more(len(lines) - number))
            break
        kept.append(line)
        used = with_line
    return "\n".join(kept)


def _more(rest: int) -> str:
    return (f"- … and {rest} more skill{'s' if rest != 1 else ''}: call skill with a name from "
            "/skills, or ask the person which one.")


def agents_section(registry: AgentRegistry) -> str:
    """Agents beyond the built-in specialists, for the orchestrator."""
    others = [s for s in registry.specialists() if s.source != "builtin"]
    if not others:
        return ""
    lines = ["More specialists (delegate to them by name like the others):"]
    lines += [f"- {s.name}: {_first_sentence(s.description)}" for s in others]
    return "\n".join(lines)


def _line(skill: Skill, description: str) -> str:
    about = f": {description}" if description else ""
    return f"- {skill.name}{about} ({skill.path})"


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    cut = text.find(". ")
    short = text[: cut + 1] if 0 < cut < SHORT_DESCRIPTION else text
    return short if len(short) <= SHORT_DESCRIPTION else short[: SHORT_DESCRIPTION - 1] + "…"
