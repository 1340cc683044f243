"""CLAUDE_ENV_FILE: what SessionStart hooks export for the commands that run after them.

A SessionStart handler gets `CLAUDE_ENV_FILE`, a file of its own session, and writes lines such
as `export NODE_ENV=development` (a version manager's PATH, a proxy for tests) into it; the
bash tool's commands get those variables from then on. The file is read, never run: only
`export NAME=value` or `NAME=value` lines count, the value unquoted as the shell would for one
plain word or one quoted string; anything else (substitutions, several words, functions) is
left out. Names that change how bash itself starts or what every program loads (`BASH_ENV`,
`LD_PRELOAD`, `SHELLOPTS`...) are refused: a deny rule is checked against the command the
person sees, and these would run something else before it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path

from valarmind_tui.core.safe_files import read_regular_bytes

MAX_BYTES = 64_000
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
REFUSED = re.compile(r"^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|CDPATH"
                     r"|GLOBIGNORE|BASH_FUNC_.*|LD_.*|DYLD_.*)$")


def read_env_file(path: Path, base: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The variables the file exports, and one note per line left out. `$NAME` and `${NAME}`
    outside single quotes take their value from earlier lines, then `base` (the commands'
    environment), as `export PATH="$HOME/.nvm/bin:$PATH"` expects."""
    try:
        text = read_regular_bytes(path, limit=MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return {}, []
    env: dict[str, str] = {}
    notes: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        value = _value(match.group(2), {**base, **env}) if match else None
        if match is None or value is None:
            notes.append(f"line {number}: not `export NAME=value`; left out")
        elif REFUSED.match(match.group(1)):
            notes.append(f"line {number}: {match.group(1)} changes how every command starts; "
                         "left out")
        else:
            env[match.group(1)] = value
    return env, notes


def _value(text: str, known: Mapping[str, str]) -> str | None:
    """One word or one quoted string, as the shell reads it; None for a substitution or two
    words."""
    text = text.strip()
    if not text.startswith("'"):
        if "`" in text or "$(" in text:
            return None
        text = _VARIABLE.sub(lambda m: shlex.quote(known.get(m.group(1) or m.group(2), ""))
                             if not text.startswith('"') else
                             known.get(m.group(1) or m.group(2), "").replace('"', '\\"'), text)
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        return None
    if len(words) > 1:
        return None
    return words[0] if words else ""
