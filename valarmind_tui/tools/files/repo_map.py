"""repo_map: the ranked map of the repository's definitions (signatures) within a budget."""

from __future__ import annotations

import asyncio

from pydantic import Field

from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool


class RepoMapParams(ToolParams):
    tokens: int = Field(default=1024, ge=128, le=16384,
                        description="Token budget of the map (default 1024).")
    focus_files: list[str] = Field(
        default_factory=list,
        description="Paths you are working on: the map favours what they use and omits them.")
    identifiers: list[str] = Field(
        default_factory=list, description="Names (functions, classes) to rank higher.")
    callers: list[str] = Field(
        default_factory=list, max_length=20,
        description="Names whose users you want (what changing or renaming them would touch): "
                    "for each, the files that reference it and a line in each.")


class RepoMapTool(BuiltinTool[RepoMapParams]):
    name = "repo_map"
    Params = RepoMapParams
    risk = Risk.READ
    description = "A ranked map of the repository's most important definitions."

    async def execute(self, params: RepoMapParams, ctx: ToolContext) -> ToolResult:
        from valarmind_tui.repomap import RepoMap
        from valarmind_tui.repomap.refine import build_map

        def build() -> tuple[object, dict[str, list[tuple[str, int]]]]:
            result = build_map(ctx.project_root, params.tokens, params.focus_files,
                               params.identifiers)[0]
            if not params.callers:
                return result, {}
            repo_map = RepoMap(ctx.project_root)
            try:
                return result, _callers(ctx, repo_map.file_tags(), params.callers)
            finally:
                repo_map.close()

        result, users = await asyncio.to_thread(build)
        # why the ignore below: to_thread loses build's return type
        text = result.text or "No definitions found (no supported source files)."  # type: ignore[attr-defined]  # why: above
        # why the ignore below: to_thread loses build's return type
        skipped = result.skipped  # type: ignore[attr-defined]  # why: above
        if skipped:
            text += "\n(skipped: " + ", ".join(f"{n} {k}" for k, n in sorted(skipped.items())) + ")"
        if result.draft:  # type: ignore[attr-defined]  # to_thread loses build's return type
            text += "\n(draft: Python read without its grammar; the exact map is being built)"
        data = result.to_dict()  # type: ignore[attr-defined]  # to_thread loses build's return type
        if users:
            text += "\n\n" + "\n".join(_render_callers(n, found) for n, found in users.items())
            data["callers"] = {name: [f"{f}:{line}" if line else f for f, line in found]
                               for name, found in users.items()}
        return ToolResult(text, data=data)


def _callers(ctx: ToolContext, index: dict, names: list[str]) -> dict[str, list[tuple[str, int]]]:
    from valarmind_tui.repomap.references import callers
    from valarmind_tui.safety.content import holds_secrets

    root = ctx.project_root
    return {name: callers(root, index, name, readable=lambda rel: not holds_secrets(root, rel))
            for name in dict.fromkeys(names)}


def _render_callers(name: str, found: list[tuple[str, int]]) -> str:
    if not found:
        return f"`{name}`: no other file references it."
    shown = ", ".join(f"{f}:{line}" if line else f for f, line in found[:CALLERS_SHOWN])
    more = f" and {len(found) - CALLERS_SHOWN} more" if len(found) > CALLERS_SHOWN else ""
    return f"`{name}`: used by {len(found)} file(s): {shown}{more}"


CALLERS_SHOWN = 20
