"""The language-server tools: lsp_definition, lsp_references, lsp_hover, lsp_diagnostics
(`ask.py` holds what they share: the session's servers and a position from a line and a name).
"""
