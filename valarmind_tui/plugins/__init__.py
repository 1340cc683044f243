"""What a plugin can add and how plugins are found: `specs.py` (the hooks, `hookimpl`),
`manager.py` (installed packages and trusted projects' `plugins/`), `defaults.py` (the built-in
commands, registered first through the same hook).

May import: `commands` and below.
"""
