"""read_many_files: several files (or glob patterns) in one call, each under a header."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from valarmind_tui.safety.content import (
    NotRegularFile,
    holds_secrets,
    not_regular_reason,
    read_regular_bytes,
)
from valarmind_tui.safety.ignore import GitignoreWalker
from valarmind_tui.safety.paths import glob_match
from valarmind_tui.tools.base import Risk, ToolContext, ToolParams, ToolResult
from valarmind_tui.tools.common import BuiltinTool, looks_binary, rel, resolve

MAX_FILES = 50
MAX_FILE_CHARS = 50_000
MAX_TOTAL_CHARS = 200_000
GLOB_CHARS = frozenset("*?[")


class ReadManyParams(ToolParams):
    paths: list[str] = Field(
        min_length=1,
        description="Files to read, relative to the project root; glob patterns such as "
        "`src/**/*.py` are expanded (ignoring .gitignored files).",
    )


class ReadManyFiles(BuiltinTool[ReadManyParams]):
    name = "read_many_files"
    Params = ReadManyParams
    risk = Risk.READ
    path_params = ("paths",)
    description = "Read several text files at once."

    async def execute(self, params: ReadManyParams, ctx: ToolContext) -> ToolResult:
        notes: list[str] = []
        files = self._expand(params.paths, ctx, notes)
        if len(files) > MAX_FILES:
            notes.append(f"{len(files) - MAX_FILES} more files not read (limit {MAX_FILES}).")
            files = files[:MAX_FILES]
        parts: list[str] = []
        total = 0
        for path in files:
            shown = rel(ctx, path)
            if total >= MAX_TOTAL_CHARS:
                notes.append(f"{shown}: not read, the output limit was reached.")
                continue
            body = self._render(path, shown)
            total += len(body)
            parts.append(f"==> {shown} <==\n{body}")
        if not parts and not notes:
            return ToolResult.error("No files matched.")
        text = "\n\n".join(parts + (["Notes:\n- " + "\n- ".join(notes)] if notes else []))
        return ToolResult(text, data={"files": [rel(ctx, p) for p in files]})

    def _expand(self, entries: list[str], ctx: ToolContext, notes: list[str]) -> list[Path]:
        root = ctx.project_root.resolve()
        walker = GitignoreWalker(root)
        found: list[Path] = []
        for entry in entries:
            if not GLOB_CHARS.intersection(entry):
                path = resolve(ctx, entry)
                if not path.exists():
                    notes.append(f"{entry}: not found.")
                elif path.is_dir():
                    notes.append(f"{entry}: is a directory.")
                elif (why := not_regular_reason(path, entry)) is not None:
                    notes.append(why)
                elif path not in found:
                    found.append(path)
                continue
            resolve(ctx, entry)  # refuses patterns that point outside the project
            pattern = rel(ctx, root / entry) if Path(entry).is_absolute() else entry
            matches = [p for p in walker.walk_files(root) if glob_match(pattern, rel(ctx, p))]
            if not matches:
                notes.append(f"{entry}: no files matched.")
            for path in matches:
                if holds_secrets(root, path):
                    notes.append(
                        f"{rel(ctx, path)}: skipped, it may hold secrets; name it explicitly "
                        "to ask the person."
                    )
                elif path not in found:
                    found.append(path)
        return found

    @staticmethod
    def _render(path: Path, shown: str) -> str:
        try:
            data = read_regular_bytes(path, shown)
        except NotRegularFile as exc:
            return f"({exc})"
        if looks_binary(data):
            return f"(binary file, {len(data)} bytes, not shown)"
        text = data.decode("utf-8", errors="replace")
        cut = len(text) > MAX_FILE_CHARS
        text = text[:MAX_FILE_CHARS]
        lines = [f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), start=1)]
        if cut:
            lines.append(f"… file cut at {MAX_FILE_CHARS} characters; use read_file with offset.")
        return "\n".join(lines) if lines else "(empty file)"
