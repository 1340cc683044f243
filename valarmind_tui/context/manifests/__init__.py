"""A project's manifests read once: `read.py` (name, description, dependencies from whichever
manifests it has), `python.py` (pyproject.toml, setup.cfg, setup.py side by side), `langs.py`
(Node, Go, Rust, Java, Ruby, PHP, .NET).
"""
