"""Everything that stands between a model's wish and the machine: the permission gate (`gate/`),
the sandbox (`sandbox/`), shell commands as the rules read them (`shell/`), secrets (`secrets/`),
paths that stay in the project (`paths.py`), what file content may leave (`content.py`), git run
without trusting the repository (`git_hardening.py`), the environment of child processes.

May import: `settings`, `core`.
"""
