"""Opening the Session behind the first frame: the trust question (when the folder ships its own
configuration and nobody decided yet), then the factory in a thread, and the model's warm-up
(once it is attached); the model library is imported in a thread from the first frame on, and
what drawing an answer needs as the first prompt leaves."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.faces.tui import garbage

if TYPE_CHECKING:
    from textual.app import App

    from valarmind_tui.session.session import Session


async def with_trust_answer(
    app: App[Any], root: Path, factory: Callable[..., Session]
) -> Callable[..., Session]:
    """The factory, given the person's answer when the folder needed one (remembered)."""
    trusted = await trust_answer(app, root)
    return factory if trusted is None else partial(factory, trusted)


async def trust_answer(app: App[Any], root: Path) -> bool | None:
    """Ask whether to trust the folder's own configuration, when it has some and nobody
    decided yet, or when a trusted folder's configuration changed since (a no then skips it
    this time and asks again next time); the answer is remembered. None when there was
    nothing to ask."""
    from valarmind_tui.faces.tui.screens.trust import TrustScreen
    from valarmind_tui.settings.trust.decision import answer, decide, should_ask

    trust = await asyncio.to_thread(decide, root)
    if not should_ask(trust):
        return None
    said = await app.push_screen_wait(TrustScreen(trust.root, trust.present, trust.changes))
    return await asyncio.to_thread(answer, trust, said)


def build(factory: Callable[[], Session]) -> Session:
    """The factory's session, built (in a thread) with no collection while it imports most of
    ValarMind: a full collection in that import took 20-50 ms of the 170-220."""
    with garbage.imports_then_freeze():
        return factory()


def import_model_library() -> None:
    """From the first frame on, beside the session's build: the longest part of the warm-up
    (started only once the session was attached, it was not done when a prompt typed 3 s after
    launch was sent)."""
    from valarmind_tui.providers.warm import import_model_library as load

    with garbage.imports_then_freeze():
        load()


def import_model_library_soon() -> None:
    """The person typed before the session was ready: the model library is imported from now
    on (in the model process), not from the session's warm-up on."""
    from valarmind_tui.providers.warm import import_model_library_soon as soon

    soon()


def warm_up(session: Session) -> None:
    """In a thread once the session is attached: the model library's warm-up (the first prompt
    does not wait ~2.5 s for it), its objects then frozen out of the collector's sight
    (garbage.py says why)."""
    with garbage.imports_then_freeze():
        session.warm_up()


def warm_answers() -> None:
    """In a thread as the first prompt's request leaves: import what drawing an answer needs
    (the Markdown widgets; pygments' lexer and colours, which made the first code block of an
    answer take 54 ms). Not at launch, where it held ~4 MB of an idle session (memory_bench
    --idle, three pairs: 180.5-180.7 -> 172.9-176.3 MB); a model's first words come after its
    own round trip, which this fills."""
    with garbage.imports_then_freeze():
        import valarmind_tui.faces.tui.widgets.answer  # noqa: F401
        from valarmind_tui.faces.tui.markdown.render import MarkdownRenderer

        MarkdownRenderer({}).render("```python\npass\n```\n", 40)
