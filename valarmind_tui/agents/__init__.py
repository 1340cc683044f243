"""Agents: the loop (`loop.py`), the orchestrator, specialists defined as `.md` files
(`builtin/`, loaded by `registry.py`), their results, the task list, and one folder per kind of
work they do with the person: `delegation/`, `review/` (code review), `commit/`,
`verification/` (review and QA before "done").

May import: `hooks`, `oversight`, `mcp_client`, `checkpoints` and below.
"""
