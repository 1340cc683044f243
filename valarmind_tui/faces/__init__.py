"""The five ways a person or a program drives a `Session`, each a thin adapter over the same core:
`tui/` (Textual, `valarmind`), `repl/` (`valarmind --plain`), `headless.py` (`-p`, `valarmind run`),
`acp/` (editors over the Agent Client Protocol), `mcp_server/` (`valarmind mcp serve`).

May import: `session` and everything below; never each other (a contract in pyproject.toml).
Only `tui/` imports textual. A face renders events and sends intents; it never calls a tool or a
model itself.
"""
