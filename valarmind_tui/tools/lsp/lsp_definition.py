"""lsp_definition: where a symbol is defined, from the file's language server."""

from __future__ import annotations

from valarmind_tui.lsp.render import locations
from valarmind_tui.tools.base import Risk, ToolContext, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.lsp.ask import PositionParams, location_line, request_at


class LspDefinition(BuiltinTool[PositionParams]):
    name = "lsp_definition"
    Params = PositionParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Where a symbol is defined (language server)."

    async def execute(self, params: PositionParams, ctx: ToolContext) -> ToolResult:
        lsp, result = await request_at(ctx, params, "textDocument/definition")
        found = locations(result)
        if not found:
            return ToolResult(f"No definition found for `{params.symbol or params.column}` at "
                              f"{params.path}:{params.line}.")
        lines = [location_line(lsp.root, path, start) for path, start in found]
        return ToolResult("Defined at:\n" + "\n".join(lines), data={"locations": lines})
