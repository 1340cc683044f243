"""Slash commands: `registry.py` (what a command is and returns), `router.py` (the one place a
line is read as a command or a prompt, for every face), `api.py` (the `CommandContext` handlers
are typed against), and the built-in commands by family (`general.py`, `knowledge.py`,
`agent.py`, `session.py`, `rewind.py`, `commit.py`), registered through the plugin hook
(`plugins/defaults.py`). May import `agents` and below; never `session` or a face.
"""
