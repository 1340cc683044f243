"""After the first frame the model library is imported in the background, and a background job
that fails says so instead of vanishing."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.ui.conftest import wait_for
from valarmind_tui.faces.tui import garbage


def test_imports_then_freeze_pauses_collection_and_freezes_what_was_imported() -> None:
    import gc

    gc.unfreeze()
    before = gc.get_freeze_count()
    with garbage.imports_then_freeze():
        assert not gc.isenabled()
        kept = [[i] for i in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() > before + 900
    assert kept


def test_the_warm_up_imports_litellm_after_the_first_frame(git_repo: Path) -> None:
    """In a fresh process (litellm not yet imported): the session attaches, then the warm-up
    worker imports litellm without a prompt being sent."""
    code = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from valarmind_tui.settings.config import Settings
        from valarmind_tui.session.wiring import build_session
        from valarmind_tui.faces.tui.app import ValarMindApp

        async def main():
            session = build_session(Settings(model="openai/fake", api_base="http://127.0.0.1:9/v1"),
                                    Path({str(git_repo)!r}))
            app = ValarMindApp(session, remember_theme=False)
            assert "litellm" not in sys.modules
            async with app.run_test(size=(80, 24)) as pilot:
                for _ in range(300):
                    await pilot.pause(0.1)
                    if "litellm" in sys.modules and not any(
                            w.name == "warm-up" for w in app.workers):
                        break
                failed = [w.name for w in app.workers if w.error is not None]
                print("litellm" in sys.modules, failed)
        asyncio.run(main())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                           "PATH": "/usr/bin:/bin", "HOME": str(git_repo)})
    assert out.stdout.strip() == "True []", out.stdout + out.stderr


async def test_a_failing_warm_up_is_logged_and_shown(
    make_session: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The warm-up once called a function that did not exist and nobody saw the AttributeError:
    a background job's failure reaches the log and the screen."""
    session = make_session()

    def broken() -> None:
        raise AttributeError("'Session' object has no attribute 'warm'")

    monkeypatch.setattr(session, "warm_up", broken)
    app = make_app(session)
    with caplog.at_level(logging.ERROR, logger="valarmind_tui.faces.tui.app"):
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: any("warm-up" in n.message
                                              for n in app._notifications))
            shown = next(n.message for n in app._notifications if "warm-up" in n.message)
    assert "has no attribute 'warm'" in shown
    logged = [r for r in caplog.records if "warm-up" in r.getMessage()]
    assert logged and isinstance(logged[0].exc_info[1], AttributeError)


def test_the_warm_up_readies_the_first_request(git_repo: Path, fake_model: Any) -> None:
    """In a fresh process: after Session.warm_up (no request reaches the model server), the
    first prompt's request imports no more of the provider's client (the OpenAI SDK's resources
    took 0.5-7 s on the first prompt before)."""
    code = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from valarmind_tui.settings.config import Settings
        from valarmind_tui.session.wiring import build_session

        session = build_session(Settings(model="openai/fake-model",
                                   api_base={fake_model.openai_base!r}), Path({str(git_repo)!r}))
        session.warm_up()
        warmed = "openai.resources.chat" in sys.modules
        before = set(sys.modules)
        asyncio.run(session.submit("hello"))
        late = sorted(m for m in set(sys.modules) - before if m.startswith("openai.resources"))
        print(warmed, late)
    """)
    fake_model.script(ScriptedTurn(text="hi there"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                           "PATH": "/usr/bin:/bin", "HOME": str(git_repo)})
    assert out.stdout.strip() == "True []", out.stdout + out.stderr
    assert len(fake_model.requests) == 1  # the warm-up's request never reached a server


def test_what_draws_an_answer_loads_as_the_first_prompt_leaves_not_at_launch(
        git_repo: Path, fake_model: Any) -> None:
    """In a fresh process: an idle session holds neither the answer's widgets nor pygments'
    Python lexer (~4 MB between them); the first prompt loads both, its answer drawn."""
    code = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from valarmind_tui.settings.config import Settings
        from valarmind_tui.session.wiring import build_session
        from valarmind_tui.faces.tui.app import ValarMindApp
        from valarmind_tui.faces.tui.widgets.prompt import PromptInput

        DRAWING = ("valarmind_tui.faces.tui.widgets.answer", "pygments.lexers.python")

        async def main():
            session = build_session(Settings(model="openai/fake-model",
                                             api_base={fake_model.openai_base!r}),
                                    Path({str(git_repo)!r}))
            app = ValarMindApp(session, remember_theme=False)
            async with app.run_test(size=(100, 30)) as pilot:
                for _ in range(300):
                    await pilot.pause(0.05)
                    if not any(w.name == "warm-up" for w in app.workers):
                        break
                idle = [m for m in DRAWING if m in sys.modules]
                app.query_one(PromptInput).load_text("hello")
                await pilot.press("enter")
                for _ in range(300):
                    await pilot.pause(0.05)
                    if "the answer" in str(app.screen._compositor.render_update(full=True)) \\
                            and not any(w.name == "answers warm-up" for w in app.workers):
                        break
                failed = [w.name for w in app.workers if w.error is not None]
                print(idle, [m for m in DRAWING if m in sys.modules], failed)
        asyncio.run(main())
    """)
    fake_model.script(ScriptedTurn(text="the answer"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                           "PATH": "/usr/bin:/bin", "HOME": str(git_repo)})
    loaded = "['valarmind_tui.faces.tui.widgets.answer', 'pygments.lexers.python']"
    assert out.stdout.strip() == f"[] {loaded} []", out.stdout + out.stderr


TYPED_EARLY = textwrap.dedent("""
    import asyncio, json, threading, time
    from pathlib import Path
    from valarmind_tui.providers.process import client, worker

    worker.IMPORT_AFTER_S = 120  # forked with this: only a request starts the import
    process = client.start(import_at_once=False)  # as the TUI starts without a first prompt
    from valarmind_tui.faces.tui.app import ValarMindApp

    built = threading.Event()

    def slow_session(trusted=None):  # still being built while the person types
        built.wait(60)
        raise RuntimeError("not built in this test")

    async def main():
        app = ValarMindApp(session_factory=slow_session, project_root=Path.cwd(),
                           remember_theme=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(1.5)
            untyped = process.ready
            await pilot.press("h", "i")
            typed_at = time.monotonic()
            while not process.ready and time.monotonic() - typed_at < 60:
                await pilot.pause(0.1)
            print(json.dumps({"untyped": untyped, "typed": process.ready,
                              "session": app.session is not None}), flush=True)
            built.set()

    asyncio.run(main())
    client.stop()
""")


def test_typing_before_the_session_is_ready_starts_the_model_librarys_import(
        tmp_path: Path) -> None:
    """The forked model process imports litellm when the session first asks (its warm-up),
    leaving the cores to the face's start; a person who types before then wants an answer
    soon, so their first key starts the import."""
    from tests.providers.face_scripts import run_face

    facts = run_face(TYPED_EARLY, cwd=tmp_path, HOME=str(tmp_path))
    assert facts == {"untyped": False, "typed": True, "session": False}
