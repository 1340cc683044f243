"""SecretMasker: every secret in a text replaced by a marker naming its kind and source.

    masker = project_masker(root, key_names=("MY_LLM_KEY",))
    masker.mask("token ghp_...")          # 'token [secret masked: GitHub token]'
    masker.mask_data({"content": ...})    # the same through dicts, lists and tuples

Known values (known.py) go first, so a value that is also a recognised token is named by where
it came from (`[secret masked: .env GITHUB_TOKEN]`); then the patterns (patterns.py). The known
values are one compiled regex (escaped, longest first), rebuilt only when a `.env*` file or the
environment changed: each call compares a signature (the env files' stat, the key-like
variables) that costs microseconds.

One masker per project for the whole process (`project_masker`): the agent loop, the provider,
the store, the hooks and the exports all ask for the same one, so its count of masked values is
the session's (/context shows it).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from valarmind_tui.safety.secrets import known
from valarmind_tui.safety.secrets.patterns import PATTERNS, SecretPattern

MARKER_PREFIX = "[secret masked: "


def marker(label: str) -> str:
    """What stands where a secret was: its kind or source, never any part of its value."""
    return f"{MARKER_PREFIX}{label}]"


_IMAGE_DATA_URL = re.compile(r"data:image/[a-z+.-]+;base64,[A-Za-z0-9+/=]*")
_WORD = re.compile(r"[A-Za-z0-9_\-]")
MARKER = re.compile(r"\[secret masked: [^\]\n]{1,120}\]")
"""Any marker, as it appears in masked text (for the edit tools' check)."""
_SUBFOLDER_RESCAN_S = 2.0
_RECHECK_S = 1.0
"""How stale the known values may be for text that is not a tool's result."""
_CACHED_FROM = 256
_CACHE_SIZE = 4096


class SecretMasker:
    """Masks the secrets of one project (its `.env*` files) and of the process's environment."""

    def __init__(self, root: Path | None, key_names: Iterable[str] = (),
                 environ: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.key_names: set[str] = set(key_names)
        self._environ = environ if environ is not None else os.environ
        self._lock = threading.Lock()
        self._signature: tuple[Any, ...] | None = None
        self._files: list[tuple[Path, str]] = []
        self._files_at = 0.0
        self._checked_at = 0.0
        self._labels: dict[str, str] = {}
        self._known: re.Pattern[str] | None = None
        self._seen: set[int] = set()
        self._cache: dict[str, str] = {}
        self.occurrences = 0
        """How many secrets were replaced (the same value counted each time)."""

    # -- what the faces show ------------------------------------------------------------------
    @property
    def values_masked(self) -> int:
        """How many distinct secret values were masked so far."""
        return len(self._seen)

    def add_key_names(self, names: Iterable[str | None]) -> None:
        """Variables the user configured as holding keys (`api_key_env`), whatever their name."""
        added = {n for n in names if n} - self.key_names
        if added:
            with self._lock:
                self.key_names |= added
                self._signature = None

    # -- masking ------------------------------------------------------------------------------
    def mask(self, text: str, *, fresh: bool = False) -> str:
        """`text` with every known value and recognised secret replaced by a marker. `fresh`
        looks at the `.env*` files and the environment now (a tool's result: the command may
        just have written a `.env`); otherwise at most every second (streamed text, events)."""
        if len(text) < known.MIN_LENGTH:
            return text
        pattern = self._known_pattern(fresh)
        if pattern is not None:
            text = pattern.sub(self._known_marker, text)
        for row in PATTERNS:
            if row.line_start:
                text = row.regex.sub(partial(self._pattern_marker, row), "\n" + text)[1:]
            else:
                text = row.regex.sub(partial(self._pattern_marker, row), text)
        return text

    def mask_cached(self, text: str) -> str:
        """`mask`, remembering long texts: a request resends the whole conversation every turn,
        and a Python string keeps its hash, so a message already masked costs a lookup."""
        if len(text) < _CACHED_FROM:
            return self.mask(text)
        self._known_pattern(fresh=False)  # a changed .env or environment empties the cache
        done = self._cache.get(text)
        if done is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            done = self._cache[text] = self.mask(text)
        return done

    def mask_data(self, data: Any, *, cached: bool = False, fresh: bool = False) -> Any:
        """`data` (JSON-like: dicts, lists, tuples, strings) with every string masked; keys
        are kept, other values returned as they are."""
        if isinstance(data, str):
            if data.startswith("data:image/") and _IMAGE_DATA_URL.fullmatch(data):
                return data  # an image's bytes: a pattern could only garble them
            return self.mask_cached(data) if cached else self.mask(data, fresh=fresh)
        if isinstance(data, dict):
            return {key: self.mask_data(value, cached=cached, fresh=fresh)
                    for key, value in data.items()}
        if isinstance(data, list | tuple):
            items = [self.mask_data(item, cached=cached, fresh=fresh) for item in data]
            if isinstance(data, list):
                return items
            return type(data)(*items) if hasattr(data, "_fields") else tuple(items)
        return data

    def _known_marker(self, match: re.Match[str]) -> str:
        value = match.group(0)
        self._count(value)
        return marker(self._labels.get(value, "known secret"))

    def _pattern_marker(self, row: SecretPattern, match: re.Match[str]) -> str:
        start = match.start()
        if row.word_start and start and _WORD.match(match.string, start - 1):
            return match.group(0)
        if "secret" not in row.regex.groupindex:
            self._count(match.group(0))
            return marker(row.kind)
        start, end = match.span("secret")
        self._count(match.group("secret"))
        whole = match.group(0)
        offset = match.start()
        return whole[:start - offset] + marker(row.kind) + whole[end - offset:]

    def _count(self, value: str) -> None:
        self.occurrences += 1
        self._seen.add(hash(value))

    # -- the known values, rebuilt when their sources change -----------------------------------
    def _known_pattern(self, fresh: bool = True) -> re.Pattern[str] | None:
        now = time.monotonic()
        if not fresh and self._signature is not None and now - self._checked_at < _RECHECK_S:
            return self._known
        with self._lock:
            self._checked_at = now
            signature = self._current_signature()
            if signature != self._signature:
                self._labels = self._collect()
                ordered = sorted(self._labels, key=len, reverse=True)
                self._known = (re.compile("|".join(map(re.escape, ordered)))
                               if ordered else None)
                self._signature = signature
                self._cache.clear()
            return self._known

    def _current_signature(self) -> tuple[Any, ...]:
        env = tuple(sorted(
            (name, value) for name, value in self._environ.items()
            if name in self.key_names or known.KEY_LIKE_NAME.search(name)))
        if self.root is None:
            return (env,)
        now = time.monotonic()
        if self._signature is None or now - self._files_at > _SUBFOLDER_RESCAN_S:
            self._files = known.env_files(self.root)
            self._files_at = now
        return (env, _stat(self.root), tuple(_stat(path) for path, _ in self._files),
                tuple(shown for _, shown in self._files))

    def _collect(self) -> dict[str, str]:
        labels: dict[str, str] = {}
        if self.root is not None:
            self._files = known.env_files(self.root)  # the root changed: a new .env maybe
            for path, shown in self._files:
                for value, label in known.env_file_values(path, shown).items():
                    labels.setdefault(value, label)
        for value, label in known.environment_values(self._environ, self.key_names).items():
            labels.setdefault(value, label)
        return labels


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


_MASKERS: dict[Path | None, SecretMasker] = {}
_MASKERS_LOCK = threading.Lock()


def project_masker(root: Path | str | None, key_names: Iterable[str | None] = ()
                   ) -> SecretMasker:
    """The process's masker for the project at `root` (None: the environment only), created
    on first use; `key_names` are added to it."""
    key = Path(root).resolve() if root is not None else None
    with _MASKERS_LOCK:
        masker = _MASKERS.get(key)
        if masker is None:
            masker = _MASKERS[key] = SecretMasker(key)
    masker.add_key_names(key_names)
    return masker
