"""skill {name, file}: a skill's SKILL.md body, or one file of its folder (`references/x.md`,
`scripts/run.py` to read). Reading only: a script runs through bash, asked like any command."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.safety.content import read_regular_bytes
from valarmind_tui.setup.front_matter import FrontMatterError
from valarmind_tui.setup.places import inside
from valarmind_tui.setup.skills import Skill
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool

MAX_FILE_BYTES = 200_000


class SkillParams(ToolParams):
    name: str = Field(description="The skill's name, as listed.")
    file: str | None = Field(
        None, description="A file of the skill's folder to read instead of its instructions, "
        "relative to the folder (references/guide.md).")


class SkillTool(BuiltinTool[SkillParams]):
    name = "skill"
    Params = SkillParams
    risk = Risk.READ
    description = (
        "Load a skill's instructions by name when the task matches its description; with "
        "`file`, read one file of the skill's folder (its scripts/ and references/). Run a "
        "skill's scripts with bash, by the folder path this tool gives."
    )

    def __init__(self, skills: list[Skill], agents: tuple[str, ...] = ("orchestrator",)) -> None:
        self.skills = {s.name: s for s in skills if s.model_invocable}
        self.agents = agents

    async def execute(self, params: SkillParams, ctx: ToolContext) -> ToolResult:
        skill = self.skills.get(params.name)
        if skill is None:
            known = ", ".join(sorted(self.skills)) or "none"
            raise ToolError(f"no skill named {params.name!r}; skills: {known}")
        if params.file:
            return ToolResult(read_skill_file(skill, params.file))
        return ToolResult(skill_text(skill))


def skill_text(skill: Skill) -> str:
    """What the model reads when a skill is used: where its folder is, then its body."""
    try:
        body = skill.body()
    except FrontMatterError as exc:
        raise ToolError(str(exc)) from None
    return (f'<skill name="{skill.name}" folder="{skill.folder}">\n'
            f"Files this skill names (scripts/, references/) are relative to its folder.\n\n"
            f"{body}\n</skill>")


def read_skill_file(skill: Skill, relative: str) -> str:
    """One file of the skill's folder; a path (or link) leading out of it is refused."""
    path = skill.folder / relative
    if not inside(path, skill.folder):
        raise ToolError(f"{relative}: not inside the skill's folder {skill.folder}")
    data = read_regular_bytes(path.resolve(), relative, MAX_FILE_BYTES)
    if b"\0" in data[:8192]:
        raise ToolError(f"{relative}: a binary file")
    return data.decode("utf-8", errors="replace")
