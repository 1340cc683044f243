"""`valarmind acp`: ValarMind as an Agent Client Protocol agent over stdio (Zed, Neovim, ...).

A face like the others: each ACP session drives one `Session`; its bus events become ACP
session updates (updates.py), approvals become `session/request_permission` (link.py), and the
JSON-RPC side is the `agent-client-protocol` SDK, imported only when this face runs (server.py).
Start with `agent.py`. May import `session` and below; never another face.
"""
