"""Two processes checkpointing one project at once: no lost checkpoint, no broken index or
object store, each session's turns intact. (What another session changes during a turn counts as
that turn's: the work tree is shared.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.checkpoints.conftest import tree_state

WORKER = """
import asyncio, sys
from pathlib import Path
from valarmind_tui.checkpoints import SessionCheckpoints

root, name = Path(sys.argv[1]), sys.argv[2]
checkpoints = SessionCheckpoints(root, name)

async def main():
    for n in range(12):
        checkpoints.begin(f"{name} turn {n}")
        await checkpoints.before_change("bash")
        (root / f"{name}-{n}.txt").write_text(f"{name} {n}\\n")
        await checkpoints.before_change("bash")
        (root / f"{name}-{n}.txt").write_text(f"{name} {n} again\\n")
        await checkpoints.end()

asyncio.run(main())
print(len(checkpoints.turns()))
"""


def test_two_sessions_checkpoint_one_project_at_once(git_repo: Path) -> None:
    start = tree_state(git_repo)
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(git_repo), name],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in ("alpha", "beta")]
    for worker in workers:
        out, err = worker.communicate(timeout=240)
        assert worker.returncode == 0, err
        assert out.strip() == "12" and "No checkpoint taken" not in err

    from valarmind_tui.checkpoints import SessionCheckpoints

    for name in ("alpha", "beta"):
        checkpoints = SessionCheckpoints(git_repo, name)
        turns = checkpoints.turns()
        assert [t.prompt for t in turns] == [f"{name} turn {n}" for n in range(12)]
        for n, turn in enumerate(turns):
            assert turn.after is not None
            show = checkpoints.repo.git("show", f"{turn.after.tree}:{name}-{n}.txt")
            assert show == f"{name} {n} again\n".encode()
            before = checkpoints.repo.git("ls-tree", "--name-only", turn.before.tree).decode()
            assert f"{name}-{n}.txt" not in before.split()
    assert checkpoints.repo.git("fsck", "--no-dangling") == b""
    assert set(start) <= set(tree_state(git_repo))
