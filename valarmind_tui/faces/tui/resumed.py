"""A stored conversation shown again in the chat: when a session is resumed (at launch or by
/resume) and when /rewind cut the conversation. Given the chat and the session, nothing else."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from valarmind_tui.faces.tui.widgets.messages import NoticeLine

if TYPE_CHECKING:
    from valarmind_tui.faces.tui.widgets.chat import ChatView
    from valarmind_tui.session.session import Session


async def show_resumed(chat: ChatView, session: Session) -> None:
    """A resumed session: its conversation again, then a notice saying so."""
    from valarmind_tui.context.transcript import resume_notice  # only for a resumed session

    transcript = await asyncio.to_thread(session.transcript)  # the event log can be large
    await chat.replay(transcript)
    await chat.add(NoticeLine(resume_notice(session.session_id or "?", transcript)))


async def redraw(chat: ChatView, session: Session) -> None:
    """The conversation was cut: show what is left of it."""
    await chat.clear()
    if session.history:
        await show_resumed(chat, session)
