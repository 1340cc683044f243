"""MCP server face: `valarmind mcp serve`, the agents as MCP tools.

`serve.py` is the server (stdio or streamable HTTP on 127.0.0.1), `tools.py` what it exposes,
`params.py` and `schema.py` their arguments and outputSchema, `data.py` the project tools over
the real modules, `think.py` who thinks for a call, `call.py` one call's time limit, `usage.py`
its metering, `reviews.py` the person's model reviewers. May import `session` and below; never
another face.
"""
