"""Claude Code's `Setup` event: its hooks run when /init starts (matcher `init`), before the
project is read, as Claude Code runs them for `claude --init`."""

from __future__ import annotations

import json
from pathlib import Path

from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


async def test_a_setup_hook_runs_when_init_starts(git_repo: Path, isolated_home: Path) -> None:
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "Setup": [{"matcher": "init", "hooks": [{"type": "command", "command":
                   "cat > \"$HOME/setup-input.json\""}]},
                  {"matcher": "maintenance", "hooks": [{"type": "command", "command":
                   "touch \"$HOME/maintenance-ran\""}]}]}}))
    session = build_session(load_settings(git_repo), git_repo, approver=PolicyApprover())
    await session.start()
    assert (await session.run_command("/init")).ok  # offline: the deterministic draft
    told = json.loads((isolated_home / "setup-input.json").read_text())
    assert (told["hook_event_name"], told["trigger"]) == ("Setup", "init")
    assert not (isolated_home / "maintenance-ran").exists()
