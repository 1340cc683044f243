"""Raw data the MCP server's tools gather before (or instead of) any model: seed 003's IDE mode.

Minimal local implementations (grep/glob search, git diff with static findings, the init draft,
QA command detection, read-only file tools for agent_delegate). They read only inside the
project root; nothing here writes or runs anything but `git` and, when asked, a QA command.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache",
             ".pytest_cache", "dist", "build", ".tox", ".cache", ".import_linter_cache"}
MAX_FILE_BYTES = 512_000


def inside(root: Path, path: str) -> Path:
    """`path` resolved (symlinks too) inside `root`; ValueError when it escapes."""
    resolved = (root / path).resolve()
    if resolved != root and root not in resolved.parents:
        raise ValueError(f"{path}: outside the project")
    return resolved


def walk_files(root: Path, pattern: str | None = None, limit: int = 5000) -> list[str]:
    """Project-relative file paths, skipping VCS/build/vendor directories."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if pattern and not (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern)):
                continue
            found.append(rel)
            if len(found) >= limit:
                return found
    return found


def grep(root: Path, query: str, glob: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Lines matching `query` (a regex; a literal when it does not compile)."""
    try:
        rx = re.compile(query, re.IGNORECASE)
    except re.error:
        rx = re.compile(re.escape(query), re.IGNORECASE)
    hits: list[dict[str, Any]] = []
    for rel in walk_files(root, glob):
        path = root / rel
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if rx.search(line):
                hits.append({"path": rel, "line": number, "text": line.strip()[:200]})
                if len(hits) >= limit:
                    return hits
    return hits


def search(root: Path, query: str, glob: str | None = None, limit: int = 50) -> dict[str, Any]:
    """Files whose path matches, and content matches."""
    lowered = query.lower()
    names = [p for p in walk_files(root, glob) if lowered in p.lower()][:limit]
    return {"query": query, "files": names, "matches": grep(root, query, glob, limit)}


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30,
                         env={**os.environ, "GIT_PAGER": "cat"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"git {' '.join(args)} failed")
    return out.stdout


_CHECKS: list[tuple[str, re.Pattern[str], str]] = [
    ("secret", re.compile(r"(?i)(api[_-]?key|secret|password|token)\s*[:=]\s*['\"][^'\"]{6,}"),
     "possible hard-coded secret"),
    ("debug", re.compile(r"\b(breakpoint\(\)|pdb\.set_trace|console\.log|debugger;)"),
     "debugging statement left in"),
    ("todo", re.compile(r"\b(TODO|FIXME|XXX|HACK)\b"), "unfinished work marker"),
    ("eval", re.compile(r"\b(eval|exec)\("), "dynamic code execution"),
    ("shell", re.compile(r"shell\s*=\s*True|os\.system\("), "shell command built from strings"),
]


def static_findings(diff: str) -> list[dict[str, Any]]:
    """Pattern checks over the added lines of a unified diff."""
    findings: list[dict[str, Any]] = []
    path, line_no = "", 0
    for raw in diff.splitlines():
        if raw.startswith("+++ "):
            path = raw[6:] if raw.startswith("+++ b/") else raw[4:]
            continue
        hunk = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)", raw)
        if hunk:
            line_no = int(hunk.group(1)) - 1
            continue
        if raw.startswith("+"):
            line_no += 1
            for kind, rx, message in _CHECKS:
                if rx.search(raw):
                    findings.append({"path": path, "line": line_no, "kind": kind,
                                     "message": message, "text": raw[1:].strip()[:160]})
            if len(raw) > 121:
                findings.append({"path": path, "line": line_no, "kind": "style",
                                 "message": "line longer than 120 characters", "text": ""})
        elif not raw.startswith("-"):
            line_no += 1
    return findings


def review(root: Path, target: str | None = None, paths: list[str] | None = None) -> dict[str, Any]:
    """The diff to review (working tree incl. staged, or a ref range) and static findings."""
    rest = ["--", *paths] if paths else []
    try:
        diff = _git(root, "diff", "--no-color", target or "HEAD", *rest)
        stat = _git(root, "diff", "--stat", target or "HEAD", *rest)
    except RuntimeError:  # no commit yet: the unstaged diff
        diff = _git(root, "diff", "--no-color", *rest)
        stat = _git(root, "diff", "--stat", *rest)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard").split()
    return {"target": target or "working tree", "diff": diff[:100_000], "stat": stat.strip(),
            "untracked": untracked[:100], "findings": static_findings(diff)}


_MARKERS = {
    "pyproject.toml": ("Python", "pytest"), "setup.py": ("Python", "pytest"),
    "package.json": ("JavaScript/TypeScript", "npm test"), "Cargo.toml": ("Rust", "cargo test"),
    "go.mod": ("Go", "go test ./..."), "Makefile": (None, "make test"),
}


def qa_commands(root: Path) -> list[str]:
    """Test/lint commands the project appears to use."""
    commands: list[str] = []
    for marker, (_, command) in _MARKERS.items():
        if (root / marker).exists() and command not in commands:
            commands.append(command)
    if not commands and any(p.endswith(".py") and "test" in p for p in walk_files(root, "*.py")):
        commands.append("pytest")
    return commands


def init_draft(root: Path) -> dict[str, Any]:
    """A deterministic VALARMIND.md draft: languages, layout, commands, README summary."""
    files = walk_files(root)
    counts: dict[str, int] = {}
    for rel in files:
        ext = Path(rel).suffix or Path(rel).name
        counts[ext] = counts.get(ext, 0) + 1
    languages = sorted({lang for m, (lang, _) in _MARKERS.items() if lang and (root / m).exists()})
    top = sorted({rel.split(os.sep, 1)[0] for rel in files})[:30]
    readme = next((root / n for n in ("README.md", "README.rst", "README") if (root / n).exists()),
                  None)
    intro = readme.read_text(encoding="utf-8", errors="replace")[:600].strip() if readme else ""
    commands = qa_commands(root)
    lines = ["# VALARMIND.md", "", "## Project", "", intro or "(no README found)", "",
             "## Layout", ""] + [f"- `{t}`" for t in top] + ["", "## Commands", ""]
    lines += [f"- `{c}`" for c in commands] or ["- (none detected)"]
    if languages:
        lines += ["", "## Languages", "", ", ".join(languages)]
    return {"draft": "\n".join(lines) + "\n", "languages": languages, "commands": commands,
            "file_count": len(files),
            "extensions": dict(sorted(counts.items(), key=lambda kv: -kv[1])[:10])}


def run_command(root: Path, command: str, timeout_s: float = 300) -> dict[str, Any]:
    """Run one detected QA command (only when the server's permission mode allows it)."""
    argv = command.split()
    if shutil.which(argv[0]) is None:
        return {"command": command, "exit_code": None, "output": f"{argv[0]}: not found"}
    out = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=timeout_s)
    return {"command": command, "exit_code": out.returncode,
            "output": (out.stdout + out.stderr)[-8000:]}


# Read-only tools the agent_delegate loop offers to the model (sampling or own model).
LOCAL_TOOLS: dict[str, dict[str, Any]] = {
    "read_file": {"description": "Read a text file of the project.",
                  "schema": {"type": "object", "properties": {"path": {"type": "string"}},
                             "required": ["path"]}},
    "list_files": {"description": "List project files, optionally matching a glob.",
                   "schema": {"type": "object", "properties": {"glob": {"type": "string"}}}},
    "grep": {"description": "Search file contents with a regular expression.",
             "schema": {"type": "object", "properties": {"pattern": {"type": "string"},
                                                         "glob": {"type": "string"}},
                        "required": ["pattern"]}},
    "git_diff": {"description": "The working tree's diff against HEAD.",
                 "schema": {"type": "object", "properties": {}}},
}


def run_local_tool(root: Path, name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """(output, is_error) of one LOCAL_TOOLS call."""
    try:
        if name == "read_file":
            return inside(root, str(args["path"])).read_text(encoding="utf-8")[:50_000], False
        if name == "list_files":
            return "\n".join(walk_files(root, args.get("glob"), limit=500)), False
        if name == "grep":
            return json.dumps(grep(root, str(args["pattern"]), args.get("glob"))), False
        if name == "git_diff":
            return _git(root, "diff", "--no-color", "HEAD")[:50_000], False
        return f"unknown tool {name}", True
    except (KeyError, ValueError, OSError, RuntimeError, UnicodeDecodeError) as exc:
        return f"{name} failed: {exc}", True
