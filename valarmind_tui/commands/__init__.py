"""Slash commands: what a command is and the context handlers are typed against (api.py), what
it returns and the face-level actions (result.py), the registry, the router every face goes
through, and the built-in commands by family (registered through the plugin hook)."""
