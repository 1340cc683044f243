"""What the lsp_* tools share: the position a call names (a line and a symbol on it, or a
column) and one request to the file's language server, its failures as results the model reads.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import Field

from valarmind_tui.core.errors import ToolError
from valarmind_tui.lsp.documents import read_document
from valarmind_tui.lsp.manager import LspManager, NoServer
from valarmind_tui.lsp.render import position, shown_path, to_utf16
from valarmind_tui.lsp.server import ServerTrouble
from valarmind_tui.tools.base import ToolContext, ToolParams

NO_SESSION = "Language servers are not available here (this run has no session's servers)."
SHOWN_LOCATIONS = 100


class PositionParams(ToolParams):
    path: str = Field(description="The file, relative to the project root.")
    line: int = Field(ge=1, description="1-based line number.")
    symbol: str = Field(
        default="", description="The name on that line to ask about (its first occurrence as "
        "a whole word). Give this, or column.")
    column: int | None = Field(
        default=None, ge=1, description="1-based column, in characters; used when symbol is "
        "empty.")


def servers(ctx: ToolContext) -> LspManager:
    lsp = ctx.services.lsp
    if lsp is None:
        raise ToolError(NO_SESSION)
    return lsp


async def request_at(ctx: ToolContext, params: PositionParams, method: str,
                     extra: dict[str, Any] | None = None) -> tuple[LspManager, Any]:
    """The server's answer to `method` at the params' position; ToolError when no server
    serves the file, the position is not found, or the server failed."""
    lsp = servers(ctx)
    try:
        server, _, synced = await lsp.open(params.path)
        text = server.document_text(synced.uri) or ""
        position = _position(text, params)
        result = await server.request(method, {
            "textDocument": {"uri": synced.uri}, "position": position, **(extra or {})})
    except (NoServer, ServerTrouble) as exc:
        raise ToolError(str(exc)) from None
    return lsp, result


def _position(text: str, params: PositionParams) -> dict[str, int]:
    lines = text.splitlines()
    if params.line > len(lines):
        raise ToolError(f"{params.path} has {len(lines)} lines; there is no line {params.line}.")
    line_text = lines[params.line - 1]
    if params.symbol:
        found = re.search(rf"(?<![\w$]){re.escape(params.symbol)}(?![\w$])", line_text)
        if found is None:
            raise ToolError(f"`{params.symbol}` is not on line {params.line} of {params.path}: "
                            f"{line_text.strip()[:200]!r}")
        column = found.start()
    elif params.column is not None:
        column = min(params.column - 1, len(line_text))
    else:
        raise ToolError("Give the symbol on that line (or its column).")
    return {"line": params.line - 1, "character": to_utf16(line_text, column)}


def location_line(root: Path, path: Path, start: dict[str, Any]) -> str:
    """`path:line:column` and, for a project file, that line's text."""
    text = read_document(path) if path.is_relative_to(root) else None
    line, column = position(start, text)
    where = f"{shown_path(path, root)}:{line}:{column}"
    if text is None:
        return where
    lines = text.splitlines()
    code = lines[line - 1].strip()[:200] if line - 1 < len(lines) else ""
    return f"{where}  {code}" if code else where
