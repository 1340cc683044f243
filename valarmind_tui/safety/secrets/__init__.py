"""Secrets by content: what reaches the model, the store, a hook or an export is masked.

- `masker.py`: SecretMasker (`project_masker(root)`), the one object every seam asks;
- `known.py`: the values known by where they live (`.env*` files, key-like variables);
- `patterns.py`: the formats recognised by their shape (one data table);
- `edits.py`: an edit may not write a marker over the real secret it stands for.

Masking is on what is shown and sent, never on what is written: a command still reads the real
`.env`. Imports only `safe_files` and the standard library, so every layer above may use it.
"""

from valarmind_tui.safety.secrets.edits import refuse_marker_writes
from valarmind_tui.safety.secrets.masker import MARKER, SecretMasker, marker, project_masker

__all__ = ["MARKER", "SecretMasker", "marker", "project_masker", "refuse_marker_writes"]
