"""A project's manifests, read once: its name, description and dependencies from its own
metadata, for every ecosystem /init, QA and the test agent know (the readers: `python.py`,
`langs.py`, `workspaces.py` for members and dynamic metadata; what they fill: `facts.py`).

Only files at the project root (and a .NET solution's project files) are read; nothing is
executed (setup.py is parsed, not run).
"""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.context.manifests.facts import Manifests
from valarmind_tui.context.manifests.langs import LANGUAGE_READERS
from valarmind_tui.context.manifests.python import read_python
from valarmind_tui.context.manifests.workspaces import read_workspaces


def read_manifests(root: Path) -> Manifests:
    """Every manifest at `root`, Python first: the first that names the project wins."""
    m = Manifests()
    root = root.resolve()
    read_python(root, m)
    for reader in LANGUAGE_READERS:
        reader(root, m)
    read_workspaces(root, m)
    return m
