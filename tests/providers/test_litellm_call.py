"""Importing litellm: without collections on the way, its objects frozen afterwards, the
collector on again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_IMPORT = r"""
import gc, json
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
from valarmind_tui.providers.litellm_call import load_litellm
collections.clear()
load_litellm()
print(json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "collections": len(collections), "again": load_litellm() is load_litellm()}))
"""


def test_litellm_imports_without_collections_and_is_frozen_afterwards() -> None:
    done = subprocess.run([sys.executable, "-c", _IMPORT], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["enabled"] is True and got["again"] is True
    assert got["collections"] == 0  # hundreds with the collector on
    assert got["frozen"] > 100_000
