"""lsp_hover: a symbol's type and documentation, from the file's language server."""

from __future__ import annotations

from valarmind_tui.lsp.render import hover_text
from valarmind_tui.tools.base import Risk, ToolContext, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.lsp.ask import PositionParams, request_at


class LspHover(BuiltinTool[PositionParams]):
    name = "lsp_hover"
    Params = PositionParams
    risk = Risk.READ
    path_params = ("path",)
    description = "A symbol's type and documentation (language server)."

    async def execute(self, params: PositionParams, ctx: ToolContext) -> ToolResult:
        _, result = await request_at(ctx, params, "textDocument/hover")
        text = hover_text(result)
        if not text:
            return ToolResult(f"The language server has nothing to say about "
                              f"`{params.symbol or params.column}` at {params.path}:{params.line}.")
        return ToolResult(text)
