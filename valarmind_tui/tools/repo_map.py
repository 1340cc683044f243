"""repo_map: the ranked map of the repository's definitions (signatures) within a budget."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pydantic import BaseModel, Field

from valarmind_tui.tools.base import Risk, ToolContext, ToolResult
from valarmind_tui.tools.common import BuiltinTool


class Params(BaseModel):
    tokens: int = Field(default=1024, ge=128, le=16384,
                        description="Token budget of the map (default 1024).")
    focus_files: list[str] = Field(
        default_factory=list,
        description="Paths you are working on: the map favours what they use and omits them.")
    identifiers: list[str] = Field(
        default_factory=list, description="Names (functions, classes) to rank higher.")


class RepoMapTool(BuiltinTool):
    name = "repo_map"
    Params: ClassVar[type[BaseModel]] = Params
    risk = Risk.READ
    description = "A ranked map of the repository's most important definitions."

    async def execute(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
        assert isinstance(params, Params)
        from valarmind_tui.repomap import RepoMap

        def build() -> object:
            repo_map = RepoMap(ctx.project_root)
            try:
                return repo_map.build(params.tokens, params.focus_files, params.identifiers)
            finally:
                repo_map.close()

        result = await asyncio.to_thread(build)
        text = result.text or "No definitions found (no supported source files)."  # type: ignore[attr-defined]
        skipped = result.skipped  # type: ignore[attr-defined]
        if skipped:
            text += "\n(skipped: " + ", ".join(f"{n} {k}" for k, n in sorted(skipped.items())) + ")"
        return ToolResult(text, data=result.to_dict())  # type: ignore[attr-defined]
