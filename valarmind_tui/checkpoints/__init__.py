"""Checkpoints of the work tree in a shadow git repository, and /undo, /redo, /rewind over them.

`shadow.py` is the shadow repository (snapshot, byte-for-byte restore), `tree_files.py` how the
work tree is read and written (never through a link), `turns.py` a session's turns as refs,
`rewind.py` going back to before a message, `upkeep.py` warming and pruning. May import
`context`, `store`, `safety`, `settings`, `core`.
"""

from valarmind_tui.checkpoints.shadow import MAX_FILE_BYTES, RestoreReport, ShadowRepo, Snapshot
from valarmind_tui.checkpoints.turns import Restored, SessionCheckpoints, TurnRecord

__all__ = ["MAX_FILE_BYTES", "RestoreReport", "Restored", "SessionCheckpoints", "ShadowRepo",
           "Snapshot", "TurnRecord"]
