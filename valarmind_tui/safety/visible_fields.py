"""An event (or any frozen dataclass: a transcript item) with every text in it made visible
(`visible_text.visible`), for a face that shows them as they come (the TUI's inbound path). The
store and the model keep the exact text."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from valarmind_tui.core.visible_text import visible

__all__ = ["visible_fields"]

_E = TypeVar("_E")


def _shown(value: Any) -> Any:
    """`value` with its strings made visible; the same object when nothing changed."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        pairs = [(_shown(k), _shown(v)) for k, v in value.items()]
        if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, list | tuple):
        items = [_shown(item) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return visible_fields(value)
    return value


def visible_fields(event: _E) -> _E:
    """`event` (a dataclass) with every string field, nested ones included, made
    visible; `event` itself when it holds nothing to replace (the common case)."""
    changes = {}
    for field in dataclasses.fields(event):  # type: ignore[arg-type]  # why: dataclass events
        value = getattr(event, field.name)
        shown = _shown(value)
        if shown is not value:
            changes[field.name] = shown
    # why the ignore below: Event is a union of dataclasses, which replace() cannot name
    return dataclasses.replace(event, **changes) if changes else event  # type: ignore[type-var]  # why: above
