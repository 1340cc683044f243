"""What file content may leave for a model: secrets left out of diffs, only regular files read.

- `redact_sensitive_diff(diff, root)` splits a git diff per file and drops the body of every
  file that may hold secrets (`is_sensitive` on the old or the new name, a rename or copy
  included, or on where a symlink in the work tree points) and of binary patches. Every tool
  that shows a diff (git_diff, git_status, /review, the MCP `review` tool) goes through it.
- `holds_secrets(root, path)` is the per-file question, for search and multi-file reads.
- `open_regular(path, shown)` refuses FIFOs, devices, sockets and directories before reading
  (a FIFO would block the read forever, `/dev/zero` never ends), and opens with O_NONBLOCK.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from valarmind_tui.core import safe_files
from valarmind_tui.core.errors import ToolError
from valarmind_tui.safety.paths import is_sensitive, relative

LEFT_OUT = "content left out: the file may hold secrets"
BINARY_LEFT_OUT = "binary content left out"
_DIFF_START = re.compile(r"^diff (?:--git|--cc|--combined) ")
_CUT_MARK = re.compile(r"^… \[\d+ characters omitted\] …$")
"""What `cap_middle` puts where it cut a long output: whose lines follow is unknown."""
CUT_NOTE = "[the output was cut here; the rest of this file's changes left out]"
_NAME_LINES = (
    ("--- ", True), ("+++ ", True), ("rename from ", False), ("rename to ", False),
    ("copy from ", False), ("copy to ", False),
)
_BODY_START = ("@@", "GIT binary patch", "Binary files ")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}


class NotRegularFile(ToolError):
    """A path that is a FIFO, device, socket or directory: reading it could hang or never end."""


def left_out_note(path: str) -> str:
    """The line that stands where a sensitive file's content would have been."""
    return f"[{path}: {LEFT_OUT}]"


def holds_secrets(root: Path | str, path: Path | str) -> bool:
    """Is the project file `path` sensitive by its own name or, for a symlink, by its target's
    (a `notes.txt -> .env` link holds `.env`'s content)? Paths leaving the project count too."""
    base = Path(root).resolve()
    candidate = Path(path) if Path(path).is_absolute() else base / path
    if is_sensitive(relative(base, candidate)):
        return True
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError):
        return True
    if resolved == candidate:
        return False
    if not resolved.is_relative_to(base):
        return True
    return is_sensitive(relative(base, resolved))


def unquote_git_path(name: str) -> str:
    """A path as git prints it: C-quoted (`"a/caf\\303\\251"`) when it has unusual bytes."""
    if not (len(name) >= 2 and name.startswith('"') and name.endswith('"')):
        return name
    raw, out, i = name[1:-1], bytearray(), 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", raw[i + 1:i + 4]):
                out.append(int(raw[i + 1:i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += c.encode()
        i += 1
    return out.decode("utf-8", errors="replace")


def _strip_prefix(name: str) -> str | None:
    name = unquote_git_path(name.rstrip("\t"))
    if name == "/dev/null":
        return None
    for prefix in ("a/", "b/", "c/", "i/", "w/", "o/"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _header_names(header: str) -> list[str]:
    """Candidate paths of a `diff --git a/X b/Y` line (ambiguous with spaces: all splits)."""
    rest = _DIFF_START.sub("", header, count=1)
    if rest.startswith('"'):
        parts = re.findall(r'"(?:\\.|[^"\\])*"|\S+', rest)
        return [n for n in (_strip_prefix(p) for p in parts) if n]
    if not rest.startswith("a/"):
        return [rest]  # diff --cc NAME
    names = []
    for match in re.finditer(r" b/", rest):
        names += [rest[2:match.start()], rest[match.end():]]
    return names or [rest[2:]]


def _file_names(lines: list[str]) -> tuple[list[str], str]:
    """Every path a diff section names before its body, and a name to show for it."""
    names = _header_names(lines[0])
    for line in lines[1:]:
        if line.startswith(_BODY_START):
            break
        for prefix, prefixed in _NAME_LINES:
            if line.startswith(prefix):
                value = line[len(prefix):]
                name = _strip_prefix(value) if prefixed else unquote_git_path(value)
                if name:
                    names.append(name)
    shown = next((n for n in reversed(names) if n), lines[0])
    return names, shown


def _redact_section(lines: list[str], root: Path | None) -> tuple[list[str], str | None]:
    names, shown = _file_names(lines)
    secret = any(is_sensitive(n) or (root is not None and holds_secrets(root, n))
                 for n in names)
    binary = any(ln.startswith(("GIT binary patch", "Binary files ")) for ln in lines)
    if not secret and not binary:
        return lines, None
    head = []
    for line in lines:
        if line.startswith(_BODY_START) or line.startswith(("--- ", "+++ ")):
            break
        head.append(line)
    note = left_out_note(shown) if secret else f"[{shown}: {BINARY_LEFT_OUT}]"
    return head + [note], (shown if secret else None)


def redact_sensitive_diff(diff: str, root: Path | str | None = None) -> tuple[str, list[str]]:
    """`diff` with the content of sensitive files (and binary patches) left out, and the
    sensitive paths that were. With `root`, a work-tree symlink is judged by its target too.

    Text before the first `diff --git` header (git diff prints none) is kept as it is; after a
    `cap_middle` cut mark, lines are dropped up to the next header (their file is unknown)."""
    base = Path(root).resolve() if root is not None else None
    out: list[str] = []
    left_out: list[str] = []
    section: list[str] = []
    preamble = True

    def flush() -> None:
        if section:
            kept, hidden = _redact_section(section, base)
            out.extend(kept)
            if hidden and hidden not in left_out:
                left_out.append(hidden)

    for line in diff.split("\n"):
        if _DIFF_START.match(line):
            flush()
            section = [line]
            preamble = False
        elif _CUT_MARK.match(line):
            flush()  # lines up to the next header belong to a file whose name was cut
            section = []
            out += [line, CUT_NOTE]
            preamble = False
        elif not section and not preamble:
            continue
        elif preamble:
            out.append(line)
        else:
            section.append(line)
    flush()
    return "\n".join(out), left_out


@contextlib.contextmanager
def _as_tool_error() -> Iterator[None]:
    """safe_files' refusal (an OSError) as NotRegularFile, the ToolError tools report."""
    try:
        yield
    except safe_files.NotRegular as exc:
        raise NotRegularFile(str(exc)) from None


def check_regular(path: Path, shown: str | None = None) -> os.stat_result:
    """The file's stat (symlinks followed); NotRegularFile unless it is a regular file."""
    with _as_tool_error():
        return safe_files.check_regular(path, shown)


def not_regular_reason(path: Path, shown: str | None = None) -> str | None:
    """Why `path` may not be read (a FIFO, a device...), or None for a regular file."""
    try:
        safe_files.check_regular(path, shown)
    except safe_files.NotRegular as exc:
        return str(exc)
    return None


def open_regular(path: Path, shown: str | None = None) -> BinaryIO:
    """safe_files.open_regular for tools: refusals are NotRegularFile, a ToolError."""
    with _as_tool_error():
        return safe_files.open_regular(path, shown)


def read_regular_bytes(path: Path, shown: str | None = None, limit: int | None = None) -> bytes:
    """safe_files.read_regular_bytes for tools: refusals are NotRegularFile, a ToolError."""
    with _as_tool_error():
        return safe_files.read_regular_bytes(path, shown, limit)
