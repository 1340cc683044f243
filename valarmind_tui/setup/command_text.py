"""What a custom command's text becomes when it runs: arguments put in, then the pieces that
need the session (command output, file contents) marked for the caller to fill.

Markdown commands (Claude Code, OpenCode, Codex, ours): `$ARGUMENTS`, `$1`..`$9`, Codex's
`$NAME` from `NAME=value` arguments, `` !`cmd` ``, `@path`. Gemini CLI's TOML: `{{args}}`
(shell-quoted inside `!{...}`), `!{cmd}`, `@{path}`. Text with no argument placeholder gets the
arguments appended, as both tools do. Nothing here runs
or reads anything: `Piece`s of kind `shell` and `file` go through the gate, the sandbox and the
project's path checks in the commands package."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Literal

_POSITIONAL = re.compile(r"\$([1-9])")
_NAMED = re.compile(r"\$([A-Z][A-Z0-9_]*)")
_MD_SHELL = re.compile(r"!`([^`\n]+)`")
_MD_FILE = re.compile(r"(?<![\w@`/])@((?:\.{0,2}/)*[\w.-]*[\w-](?:/[\w.-]*[\w-])*)")
_GEMINI_FILE = re.compile(r"@\{([^}\n]+)\}")


@dataclass(frozen=True)
class Piece:
    kind: Literal["text", "shell", "file"]
    value: str
    optional: bool = False
    """A file piece that stays as typed when no such file exists (Markdown's `@name` may be an
    e-mail or a decorator; Gemini's `@{path}` is always meant as a file)."""


def expand(template: str, args: str, syntax: str) -> list[Piece]:
    """The command's text with `args` put in, as pieces to fill in order."""
    if syntax == "gemini":
        return _gemini(template, args)
    return _markdown(template, args)


def _markdown(template: str, args: str) -> list[Piece]:
    words = _split(args)
    has_placeholder = any(p.search(template) for p in (_POSITIONAL, _NAMED))
    text = template.replace("$ARGUMENTS", args)
    text = _POSITIONAL.sub(lambda m: words[int(m[1]) - 1] if int(m[1]) <= len(words) else "",
                           text)
    named = dict(w.split("=", 1) for w in words if re.match(r"^[A-Z][A-Z0-9_]*=", w))
    text = _NAMED.sub(lambda m: named.get(m[1], m[0]), text)  # Codex's KEY=value arguments
    if args and not has_placeholder:
        text += f"\n\nARGUMENTS: {args}"
    pieces: list[Piece] = []
    for kind, value in _cut(text, _MD_SHELL):
        if kind == "shell":
            pieces.append(Piece("shell", value))
            continue
        for sub_kind, sub_value in _cut(value, _MD_FILE):
            pieces.append(Piece("file", sub_value, optional=True) if sub_kind == "shell"
                          else Piece("text", sub_value))
    return pieces


def _gemini(template: str, args: str) -> list[Piece]:
    pieces: list[Piece] = []
    used = "{{args}}" in template
    for kind, value in _gemini_shell_cut(template):
        if kind == "shell":
            pieces.append(Piece("shell", value.replace("{{args}}", shlex.quote(args))))
            continue
        for sub_kind, sub_value in _cut(value.replace("{{args}}", args), _GEMINI_FILE):
            pieces.append(Piece("file" if sub_kind == "shell" else "text", sub_value.strip()
                                if sub_kind == "shell" else sub_value))
    if args and not used:
        pieces.append(Piece("text", f"\n\n{args}"))
    return pieces


def _cut(text: str, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """Text split at each match: ("text", ...) between, ("shell", group 1) for a match."""
    out: list[tuple[str, str]] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(("text", text[last:match.start()]))
        out.append(("shell", match[1]))
        last = match.end()
    out.append(("text", text[last:]))
    return [(k, v) for k, v in out if v]


def _gemini_shell_cut(text: str) -> list[tuple[str, str]]:
    """`!{...}` with balanced braces inside (`!{echo {a,b}}`)."""
    out: list[tuple[str, str]] = []
    last = 0
    start = text.find("!{")
    while start != -1:
        depth, end = 0, -1
        for i in range(start + 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i
                break
        if end == -1:
            break
        out.append(("text", text[last:start]))
        out.append(("shell", text[start + 2:end]))
        last = end + 1
        start = text.find("!{", last)
    out.append(("text", text[last:]))
    return [(k, v) for k, v in out if v]


def _split(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: words as typed
        return args.split()
