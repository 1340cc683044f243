"""`Event` is a closed union: a face's `match` that forgets an event is a mypy error naming it,
and the faces' real matches are complete (mypy runs on small files, the way CI runs it)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import get_args

from mypy import api

from valarmind_tui.commands.result import Action
from valarmind_tui.core.events import EVENT_TYPES, Event, EventBase, event_from_dict, event_to_dict

CONFIG = "[mypy]\npython_version = 3.11\nfollow_imports = silent\nignore_missing_imports = True\n"


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    """mypy's report and exit status for one module importing the events and actions."""
    (tmp_path / "mypy.ini").write_text(CONFIG)
    face = tmp_path / "face.py"
    face.write_text("from typing import assert_never\n"
                    "from valarmind_tui.core.events import *  # noqa: F403\n"
                    "from valarmind_tui.core.events import Event\n"
                    "from valarmind_tui.commands.result import *  # noqa: F403\n"
                    "from valarmind_tui.commands.result import Action\n\n" + body)
    out, err, status = api.run([str(face), "--config-file", str(tmp_path / "mypy.ini"),
                                "--cache-dir", str(tmp_path / "cache"), "--no-error-summary"])
    return out + err, status


def _handler(classes: list[str], over: str = "event: Event") -> str:
    name = over.split(":")[0]
    cases = "".join(f"        case {c}():\n            pass\n" for c in classes)
    return (f"def handle_{name}({over}) -> None:\n    match {name}:\n{cases}"
            f"        case _:\n            assert_never({name})\n")


def test_a_match_that_forgets_an_event_is_a_mypy_error_naming_it(tmp_path: Path) -> None:
    every = sorted(cls.__name__ for cls in get_args(Event))
    forgotten = "ReviewerRan"
    report, status = _mypy(tmp_path, _handler([c for c in every if c != forgotten]))
    assert status == 1
    assert 'incompatible type "ReviewerRan"' in report and "face.py:" in report
    assert [line for line in report.splitlines() if "error" in line] == [
        line for line in report.splitlines() if forgotten in line]


def test_a_match_over_every_event_and_every_action_passes_mypy(tmp_path: Path) -> None:
    events = sorted(cls.__name__ for cls in get_args(Event))
    actions = sorted(cls.__name__ for cls in get_args(Action))
    body = _handler(events) + "\n\n" + _handler(actions, "action: Action")
    report, status = _mypy(tmp_path, body)
    assert (report.strip(), status) == ("", 0)


def test_a_match_that_forgets_a_command_action_is_a_mypy_error(tmp_path: Path) -> None:
    actions = [cls.__name__ for cls in get_args(Action) if cls.__name__ != "PickResume"]
    report, status = _mypy(tmp_path, _handler(actions, "action: Action"))
    assert status == 1 and 'incompatible type "PickResume"' in report


def test_the_union_is_every_event_and_each_round_trips_by_its_type_name() -> None:
    classes = set(get_args(Event))
    assert classes == set(EVENT_TYPES.values()) and len(classes) == 26
    for cls in classes:
        assert issubclass(cls, EventBase) and dataclasses.fields(cls)
    assert EventBase not in classes  # the shared fields are not an event of their own
    sample = event_from_dict({"type": "notice", "level": "info", "message": "hi", "at": 1.0})
    assert event_from_dict(event_to_dict(sample)) == sample
