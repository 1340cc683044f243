"""Slash commands: `api.py` (what a command is, and the `CommandContext` handlers are typed
against), `result.py` (what a command returns, and the typed actions a face performs),
`registry.py` (the commands a face completes from), `router.py` (the one place a line is read as
a command or a prompt, for every face), and the built-in commands by family (`families.py`:
`general.py`, `knowledge.py`, `agent.py`, `undo.py`, `export.py`, `rewind.py`, `commit.py`;
`setup.py`), registered through the plugin hook (`plugins/defaults.py`). May import `agents`
and below; never `session` or a face.
"""
