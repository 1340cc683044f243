"""Checkpoints of the work tree in a shadow git repository, and /undo, /redo, /rewind over them."""

from valarmind_tui.checkpoints.shadow import MAX_FILE_BYTES, RestoreReport, ShadowRepo, Snapshot
from valarmind_tui.checkpoints.turns import Restored, SessionCheckpoints, TurnRecord

__all__ = ["MAX_FILE_BYTES", "RestoreReport", "Restored", "SessionCheckpoints", "ShadowRepo",
           "Snapshot", "TurnRecord"]
