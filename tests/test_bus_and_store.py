"""The event bus broadcasts without blocking; the SQLite store keeps history and events."""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path
from typing import Any

from valarmind_tui.core.bus import EventBus
from valarmind_tui.core.events import (
    Notice,
    TaskItem,
    TaskListChanged,
    TextDelta,
    ToolCallStarted,
    event_from_dict,
    event_to_dict,
)
from valarmind_tui.store.sessions import SessionStore


async def test_every_subscriber_sees_every_event_in_order() -> None:
    bus = EventBus()
    fast, slow = bus.subscribe(), bus.subscribe()
    for i in range(1000):
        bus.publish(TextDelta(text=str(i)))  # never awaits: nobody is reading yet
    bus.close()
    got_fast = [e.text async for e in fast]  # type: ignore[attr-defined]
    await asyncio.sleep(0)
    got_slow = [e.text async for e in slow]  # type: ignore[attr-defined]
    assert got_fast == got_slow == [str(i) for i in range(1000)]


async def test_slow_subscriber_does_not_block_publisher() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    seen: list[str] = []

    async def slow_reader() -> None:
        async for event in sub:
            await asyncio.sleep(0.01)
            seen.append(event.message)  # type: ignore[attr-defined]

    reader = asyncio.create_task(slow_reader())
    loop = asyncio.get_running_loop()
    start = loop.time()
    for i in range(200):
        bus.publish(Notice(level="info", message=str(i)))
    assert loop.time() - start < 0.5  # 200 x 10 ms would be 2 s if publish waited
    bus.close()
    await asyncio.wait_for(reader, 10)
    assert len(seen) == 200


def test_events_round_trip_through_json() -> None:
    for event in (ToolCallStarted(call_id="c1", name="read_file", arguments={"path": "a"}),
                  TaskListChanged(tasks=(TaskItem(id="1", title="x", depends_on=("0",)),))):
        assert event_from_dict(event_to_dict(event)) == event


def test_store_resumes_history_and_logs_events(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    sid = store.create(tmp_path, "openai/x")
    store.append_message(sid, {"role": "user", "content": "hello there"})
    store.append_message(sid, {"role": "assistant", "content": "hi"})
    store.append_event(sid, Notice(level="info", message="n"))
    store.append_event(sid, TextDelta(agent_id="code-1", text="a specialist's: not logged"))
    store.append_event(sid, TextDelta(text="the main agent's: kept in case the process dies"))
    store.close()

    again = SessionStore(tmp_path / "s.db")
    assert [m["content"] for m in again.messages(sid)] == ["hello there", "hi"]
    assert [e["type"] for e in again.events(sid)] == ["notice", "text_delta"]
    assert again.list(tmp_path)[0].title == "hello there"
    again.append_message(sid, {"role": "user", "content": "more"})
    assert len(again.messages(sid)) == 3


def _open_at_once(path: str, start: Any, results: Any) -> None:
    start.wait()
    try:
        SessionStore(Path(path)).close()
        results.put("opened")
    except Exception as exc:  # noqa: BLE001 - the failure is the test's finding
        results.put(repr(exc))


def test_processes_opening_a_new_store_at_once_all_open_it(tmp_path: Path) -> None:
    """Two ValarMinds started together (two terminals, a script's parallel -p runs) on a new
    data folder: each opens the store; none fails with "database is locked"."""
    context = multiprocessing.get_context("fork")
    for round_ in range(20):
        path = str(tmp_path / f"sessions{round_}.db")
        start, results = context.Barrier(6), context.Queue()
        openers = [context.Process(target=_open_at_once, args=(path, start, results))
                   for _ in range(6)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(30)
        assert [results.get(timeout=5) for _ in openers] == ["opened"] * 6
