"""A project's manifests read once: `read.py` (read_manifests: every reader in turn), `facts.py`
(what they say, and the safe read of a manifest file), `python.py` (pyproject.toml, setup.cfg,
setup.py side by side), `langs.py` (Node, Go, Rust, Java, Ruby, PHP, .NET), `workspaces.py`
(cargo, uv, pnpm and npm workspace members; hatch and setuptools dynamic dependencies). The
readers import `facts`, never `read`: no module of the package imports the one that uses it.
"""
