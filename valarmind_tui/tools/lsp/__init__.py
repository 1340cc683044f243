"""The language-server tools: lsp_definition, lsp_references, lsp_hover, lsp_diagnostics
(`ask.py` holds what they share: the session's servers and a position from a line and a name).
"""

LSP_TOOLS = ("lsp_definition", "lsp_references", "lsp_hover", "lsp_diagnostics")
"""Offered only to runs that have the session's language servers (`ToolServices.lsp`): a
specialist of /review, /init or the MCP server's calls has none, and a tool that can only say
so would cost the model a turn."""
