"""Markdown with a YAML front matter block, read leniently: the formats people bring (SKILL.md,
Claude and OpenCode commands and agents) all use it, each with keys of its own.

A file without front matter is all body; bad YAML is a `FrontMatterError` naming the file and
line, so the caller reports it and skips the file (never the whole setup)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from valarmind_tui.core.safe_files import read_regular_text

MAX_FILE_BYTES = 256_000
"""A command, agent or skill file bigger than this is not a prompt anyone wrote by hand."""


class FrontMatterError(ValueError):
    """A file that cannot be read as front matter plus body; the message names file and line."""


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any]
    body: str


def read_document(path: Path) -> Document:
    """The file's front matter (a mapping; empty when there is none) and its body."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise FrontMatterError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes, skipped")
        text = read_regular_text(path)
    except UnicodeDecodeError:
        raise FrontMatterError(f"{path}: not UTF-8 text, skipped") from None
    except OSError as exc:
        raise FrontMatterError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_document(text, path)


def safe_loader(yaml: ModuleType) -> Any:
    """`yaml.safe_load`'s loader in libyaml's C parser when PyYAML has it: the same safe
    constructor, ~10x faster (every session parses the built-in agents' front matter)."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_document(text: str, path: Path) -> Document:
    import yaml

    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return Document({}, text.strip())
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            front = "\n".join(lines[1 : number - 1])
            body = "\n".join(lines[number:]).strip()
            break
    else:
        raise FrontMatterError(f"{path}:1: the front matter block is not closed with '---'")
    try:
        data = yaml.load(front, Loader=safe_loader(yaml)) or {}
    except yaml.YAMLError as exc:
        data = _plain_lines(front)  # `argument-hint: [issue] [priority]`, as Claude's docs write
        if data is None:
            mark = getattr(exc, "problem_mark", None)
            at = 2 + mark.line if mark is not None else 2
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise FrontMatterError(f"{path}:{at}: invalid front matter: {problem}") from None
    if not isinstance(data, dict):
        raise FrontMatterError(f"{path}:2: front matter must be 'key: value' lines")
    return Document({str(k): v for k, v in data.items()}, body)


def _plain_lines(front: str) -> dict[str, Any] | None:
    """`key: value` lines read as text, the way Claude Code reads front matter YAML refuses
    (indented lines continue the value above); None when a line is neither."""
    data: dict[str, Any] = {}
    key = ""
    for line in front.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and key:
            data[key] = f"{data[key]} {line.strip()}".strip()
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or " " in name.strip():
            return None
        key = name.strip()
        data[key] = value.strip()
    return data or None


def hint_of(value: Any) -> str:
    """An argument hint: YAML reads `[message]` as a list, Claude shows it as written."""
    if isinstance(value, list):
        return " ".join(f"[{v}]" for v in value)
    return text_of(value)


def text_of(value: Any) -> str:
    """A front matter value as one line of text (YAML may give a list, a number, None)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return " ".join(str(value).split())


def names_of(value: Any) -> tuple[str, ...]:
    """A tool list as Claude (`Read, Grep` or a YAML list) or OpenCode (`{write: false}`:
    the tools switched on) write it."""
    if value is None:
        return ()
    if isinstance(value, dict):
        return tuple(str(k) for k, on in value.items() if on)
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return ()
