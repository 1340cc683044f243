"""Switching a face to another stored session of the same project (/resume)."""

from __future__ import annotations

import asyncio

from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import open_session


async def switch_session(session: Session, session_id: str) -> Session:
    """Open stored session `session_id` of the same project with the same settings, then close
    `session`; the face attaches to the one returned."""
    opened = await asyncio.to_thread(open_session, session.settings, session.project_root,
                                     resume=session_id)
    await session.close()
    return opened
