"""After the first frame the model library is imported in the background, and a background job
that fails says so instead of vanishing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from valarmind_tui.ui import garbage


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
        from valarmind_tui.config import Settings
        from valarmind_tui.session import Session
        from valarmind_tui.ui.app import ValarMindApp

        async def main():
            session = Session(Settings(model="openai/fake", api_base="http://127.0.0.1:9/v1"),
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
