"""MCP client: the servers a session talks to, their tools, and the sampling they ask of us.

`manager.py` (McpManager) is the start; `connection.py` one server's task, `config_files.py`
which servers exist, `tools.py` their tools as ours, `limits.py` what one call may cost,
`sampling.py` answering a server's sampling with our model. May import `tools`, `providers`,
`safety`, `settings`, `core`.
"""
