"""The TUI's first model process is the face forked (providers/process/fork.py): it shares the
pages both hold, answers as a fresh one does, and keeps nothing of the face it was not given;
one that replaces it later, when the face runs threads, is started afresh."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.providers.face_scripts import ASK, run_face

FACE = textwrap.dedent("""
    import asyncio, json, os, sys, time
    from valarmind_tui.providers.process import client

    kept = open(sys.argv[2], "w")  # a descriptor of the face's (close-on-exec, as Python opens)
    process = client.start()  # first thing, one thread, no event loop: as the TUI does
    from valarmind_tui.providers.process.fork import IMPORTED_BY_BOTH
    unshared = [name for name in IMPORTED_BY_BOTH if name not in sys.modules]
    while not process.ready and process.exit_code is None:
        time.sleep(0.05)
    fds = {fd: os.readlink(f"/proc/{process.pid}/fd/{fd}")
           for fd in os.listdir(f"/proc/{process.pid}/fd")}
""") + ASK + textwrap.dedent("""
    first = asyncio.run(ask())
    facts = {"kind": type(process._proc).__name__, "answer": first, "unshared": unshared,
             "comm": open(f"/proc/{process.pid}/comm").read().strip(), "fds": fds,
             "kept": os.readlink(f"/proc/self/fd/{kept.fileno()}")}
    process._proc.kill()  # it dies; the next request starts another
    process._proc.wait()
    second = asyncio.run(ask())
    again = client.running()
    facts.update(second=second, again=type(again._proc).__name__,
                 again_argv=open(f"/proc/{again.pid}/cmdline").read().split("\\0"))
    client.stop()
    print(json.dumps(facts))
""")


def _run_face(fake_model: FakeModelServer, cwd: Path, tmp_path: Path) -> dict[str, Any]:
    fake_model.script(ScriptedTurn(text="from the fork"), ScriptedTurn(text="from a fresh one"))
    facts: dict[str, Any] = run_face(FACE, fake_model.openai_base,
                                     str(tmp_path / "face-file.txt"), cwd=cwd)
    return facts


def test_the_forked_model_process_answers_and_a_replacement_starts_afresh(
        fake_model: FakeModelServer, tmp_path: Path) -> None:
    facts = _run_face(fake_model, tmp_path, tmp_path)
    assert facts["kind"] == "ForkedWorker" and facts["comm"] == "valarmind-model"
    assert facts["unshared"] == []  # imported before the fork: one copy for both processes
    assert facts["answer"] == "from the fork"
    assert facts["second"] == "from a fresh one"  # retried on a new process
    assert facts["again"] == "Popen"
    assert "valarmind_tui.providers.process.worker" in facts["again_argv"]


def test_the_forked_model_process_holds_none_of_the_faces_descriptors(
        fake_model: FakeModelServer, tmp_path: Path) -> None:
    facts = _run_face(fake_model, tmp_path, tmp_path)
    held = facts["fds"].values()
    assert facts["kept"] not in held  # the face's open file
    assert all(facts["fds"][fd].startswith("pipe:") for fd in ("0", "1", "2"))
    assert not any(target.startswith("/dev/pts") or target == "/dev/tty" for target in held)


IMPORTS_OF = {
    "the model process": textwrap.dedent("""
        from valarmind_tui.providers.litellm_call import load_litellm
        load_litellm()
    """),
    "the face": textwrap.dedent("""
        import asyncio
        from pathlib import Path
        import valarmind_tui.faces.tui.app, valarmind_tui.session.wiring
        from valarmind_tui.settings.config import load_settings
        load_settings(Path.cwd())
        asyncio.run(asyncio.to_thread(len, ""))  # the session's work off the loop
    """),
}


@pytest.mark.parametrize("side", sorted(IMPORTS_OF))
def test_what_is_imported_before_the_fork_each_process_imports_anyway(
        side: str, tmp_path: Path) -> None:
    """Imported before the fork, a module's pages are shared by both processes: worth it only
    for modules each of them imports (one only the face needs would be the child's for
    nothing, and the other way round)."""
    check = IMPORTS_OF[side] + textwrap.dedent("""
        import json, sys
        from valarmind_tui.providers.process.fork import IMPORTED_BY_BOTH
        print(json.dumps([name for name in IMPORTED_BY_BOTH if name not in sys.modules]))
    """)
    assert run_face(check, cwd=tmp_path, HOME=str(tmp_path)) == []


LATE_FACE = textwrap.dedent("""
    import asyncio, json, sys, time
    from valarmind_tui.providers.process import client

    process = client.start(import_at_once=False)  # as the TUI starts without a first prompt
    time.sleep(2.0)  # the face's own start (litellm imports in ~1 s, worker.IMPORT_AFTER_S: 3)
    before = process.ready
""") + ASK + textwrap.dedent("""
    answer = asyncio.run(ask())
    print(json.dumps({"ready_before": before, "answer": answer, "ready_after": process.ready}))
    client.stop()
""")


def test_the_forked_model_process_imports_litellm_when_first_asked(
        fake_model: FakeModelServer, tmp_path: Path) -> None:
    """Started beside the TUI's face, it leaves the two cores to the face until the session
    asks for something (its warm-up); that request waits for the import, then is answered."""
    fake_model.script(ScriptedTurn(text="after the import"))
    facts = run_face(LATE_FACE, fake_model.openai_base, cwd=tmp_path)
    assert facts["ready_before"] is False  # litellm not imported after two seconds
    assert facts["answer"] == "after the import" and facts["ready_after"] is True
