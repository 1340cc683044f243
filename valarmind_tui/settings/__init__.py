"""What the person configured: the settings (user TOML, project TOML, VALARMIND_* environment,
flags), the tables inside them, changing a config file the way a person would, what a
repository's own config may not set, and whether a repository is trusted at all (`trust/`).

May import: `core`. Start with `config.py` (`load_settings`).
"""
