"""lsp_diagnostics: a file's current errors and warnings, from its language server."""

from __future__ import annotations

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.lsp.manager import NoServer
from valarmind_tui.lsp.server import ServerTrouble
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool
from valarmind_tui.tools.lsp.ask import servers


class DiagnosticsParams(ToolParams):
    path: str = Field(description="The file, relative to the project root.")


class LspDiagnostics(BuiltinTool[DiagnosticsParams]):
    name = "lsp_diagnostics"
    Params = DiagnosticsParams
    risk = Risk.READ
    path_params = ("path",)
    description = "A file's errors and warnings (language server)."

    async def execute(self, params: DiagnosticsParams, ctx: ToolContext) -> ToolResult:
        try:
            return ToolResult(await servers(ctx).diagnostics_for(params.path))
        except (NoServer, ServerTrouble) as exc:
            raise ToolError(str(exc)) from None
