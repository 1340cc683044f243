"""Slash commands: `api.py` (what a command is, and the `CommandContext` handlers are typed
against), `result.py` (what a command returns, and the typed actions a face performs),
`registry.py` (the commands a face completes from), `router.py` (the one place a line is read as
a command or a prompt, for every face), and the built-in commands by family (`general.py`,
`knowledge.py`, `agent.py`, `session.py`, `rewind.py`, `commit.py`), registered through the
plugin hook (`plugins/defaults.py`). May import `agents` and below; never `session` or a face.
"""
