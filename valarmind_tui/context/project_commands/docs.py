"""The commands a project's contributor docs tell people to run: shell code blocks of
CONTRIBUTING, DEVELOPMENT or HACKING (then the README), Markdown fences and reST
`code-block` directives alike, and in the contributor guides the inline code of their prose
("run `make test` before"). A console block's output lines (no prompt) are not commands.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from valarmind_tui.context.manifests.facts import read_text
from valarmind_tui.context.project_commands.ci import split_script
from valarmind_tui.context.project_commands.roles import ProjectCommand, role_of

GUIDES = ("CONTRIBUTING.md", "CONTRIBUTING.rst", ".github/CONTRIBUTING.md",
          "docs/CONTRIBUTING.md", "DEVELOPMENT.md", "docs/development.md", "HACKING.md",
          "docs/contributing.md", "CONTRIBUTING")
READMES = ("README.md", "README.rst", "README", "Readme.md", "readme.md")
_SHELL = {"", "sh", "bash", "shell", "console", "zsh", "shell-session", "shellsession", "text",
          "sh-session", "bash-session", "powershell", "ps1", "cmd", "fish", "terminal"}
_FENCE = re.compile(r"(?ms)^[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1")
_RST_BLOCK = re.compile(r"(?m)^\.\. (?:code-block|code|sourcecode)::\s*(\w*)\s*\n"
                        r"((?:[ \t]*\n|[ \t]+[^\n]*\n)+)")
_INLINE = re.compile(r"(?<!`)``?([^`\n]{3,120})``?(?!`)")
_PROMPT = re.compile(r"^(?:\$|>|%|PS>|\(\.?venv\)\s*\$)\s+")


def doc_commands(root: Path) -> list[ProjectCommand]:
    """Each command with a role, the contributor guides first, then the README."""
    out: list[ProjectCommand] = []
    for name in (*GUIDES, *READMES):
        path = root / name
        if not path.is_file():
            continue
        text = read_text(path, 200_000)
        lines = list(_block_lines(text))
        if name in GUIDES:
            lines += [m.group(1).strip() for m in _INLINE.finditer(_outside_blocks(text))]
        for line in lines:
            kind = role_of(line)
            if kind is not None:
                out.append(ProjectCommand(kind, line, name, "docs"))
    return out


def _block_lines(text: str) -> Iterator[str]:
    for match in _FENCE.finditer(text):
        if match.group(2).lower() in _SHELL:
            yield from _commands(match.group(3), console=match.group(2).lower() != "")
    for match in _RST_BLOCK.finditer(text):
        if match.group(1).lower() in _SHELL:
            yield from _commands(match.group(2), console=True)


def _commands(block: str, *, console: bool) -> Iterator[str]:
    """The commands of a block: with prompts, only the prompted lines."""
    lines = block.splitlines()
    prompted = any(_PROMPT.match(line.strip()) for line in lines)
    for line in lines:
        line = line.strip()
        found = _PROMPT.match(line)
        if prompted and found is None:
            continue  # output of the command above
        if found is not None:
            line = line[found.end():]
        elif console and line.startswith("#"):
            continue
        yield from split_script(line)


def _outside_blocks(text: str) -> str:
    return _RST_BLOCK.sub("", _FENCE.sub("", text))
