"""Slash commands: the registry, the router every face goes through, the context handlers are
typed against, and the built-in commands by family (registered through the plugin hook)."""
