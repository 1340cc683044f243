"""lsp_references: every use of a symbol in the project, from the file's language server."""

from __future__ import annotations

from valarmind_tui.lsp.render import locations, shown_path
from valarmind_tui.tools.base import Risk, ToolContext, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.lsp.ask import (
    SHOWN_LOCATIONS,
    PositionParams,
    location_line,
    request_at,
)


class LspReferences(BuiltinTool[PositionParams]):
    name = "lsp_references"
    Params = PositionParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Every reference to a symbol (language server)."

    async def execute(self, params: PositionParams, ctx: ToolContext) -> ToolResult:
        lsp, result = await request_at(ctx, params, "textDocument/references",
                                       {"context": {"includeDeclaration": False}})
        found = sorted(locations(result), key=lambda f: (str(f[0]), f[1].get("line", 0)))
        name = params.symbol or f"the symbol at column {params.column}"
        if not found:
            return ToolResult(f"No references to `{name}` found.")
        files = sorted({shown_path(path, lsp.root) for path, _ in found})
        lines = [location_line(lsp.root, path, start) for path, start in found]
        head = f"{len(found)} references to `{name}` in {len(files)} files:"
        more = ([f"… and {len(lines) - SHOWN_LOCATIONS} more"]
                if len(lines) > SHOWN_LOCATIONS else [])
        return ToolResult("\n".join([head, *lines[:SHOWN_LOCATIONS], *more]),
                          data={"references": lines, "files": files})
