"""Secrets a background command prints: its output ring on disk, command_output, /jobs and the
agent's handle never hold them (the ring is masked as it is written), and the ring's folder is
the person's alone (0700/0600) and hidden from sandboxed commands."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.security.conftest import SENTINEL
from tests.tools.test_background_commands import call, live_session


async def test_a_background_commands_secrets_are_masked_on_disk_and_in_its_output(
    git_repo: Path,
) -> None:
    (git_repo / ".env").write_text(f"OPENAI_API_KEY={SENTINEL}\n")
    session = live_session(git_repo)
    started = await call(session, "bash", command="cat .env; echo ghp_" + "a1B2" * 9,
                         run_in_background=True)
    job = session.jobs.get(started.data["handle"])
    assert job.watcher is not None
    await job.watcher

    on_disk = job.ring.path.read_bytes().decode()
    read = await call(session, "command_output", handle=job.handle)
    listed = await session.run_command("/jobs")
    for shown in (on_disk, read.output, listed.text):
        assert SENTINEL not in shown and "ghp_" + "a1B2" * 9 not in shown
    assert "OPENAI_API_KEY=" in read.output  # the line is there, its value masked
    assert stat.S_IMODE(job.ring.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(job.ring.path.parent.stat().st_mode) == 0o700

    if session.sandbox.active:  # a sandboxed command cannot read another's output
        peek = await call(session, "bash", command=f"cat {job.ring.path}")
        assert "No such file" in peek.output or peek.output.strip() == "(no output)"
    await session.close()
