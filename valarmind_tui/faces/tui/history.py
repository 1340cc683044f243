"""Prompt history kept across sessions: one JSON string per line in the user data dir."""

from __future__ import annotations

import json
from pathlib import Path

from valarmind_tui.core.user_dirs import user_data_dir

MAX_ENTRIES = 1000


def default_history_file() -> Path:
    return user_data_dir() / "prompt_history.jsonl"


class PromptHistory:
    """Entries oldest first; `previous`/`following` walk them like a shell does."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = self._read()
        self._index = len(self.entries)
        self._draft = ""

    def _read(self) -> list[str]:
        if self.path is None:
            return []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines[-MAX_ENTRIES:]:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, str):
                entries.append(value)
        return entries

    def add(self, text: str) -> None:
        """Append (skipping an immediate repeat) and persist."""
        self._index = len(self.entries) + 1
        if not text.strip() or (self.entries and self.entries[-1] == text):
            self._index = len(self.entries)
            return
        self.entries.append(text)
        self._index = len(self.entries)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(text) + "\n")
        except OSError:
            pass  # history is a convenience; a read-only home must not break the prompt

    def previous(self, current: str) -> str | None:
        """The entry before the cursor, or None at the oldest."""
        if self._index == len(self.entries):
            self._draft = current
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def following(self) -> str | None:
        """The entry after the cursor; the unsent draft after the newest; None past it."""
        if self._index >= len(self.entries):
            return None
        self._index += 1
        if self._index == len(self.entries):
            return self._draft
        return self.entries[self._index]
