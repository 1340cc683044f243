"""The diff a review looks at: a /review target checked before it reaches git, and sensitive
files' content left out.

A target is `--staged` (or `--cached`), a ref (`main`), a range (`A..B`, `A...B`) or project
file paths. Any other word starting with `-` is refused (`--output=FILE` would make git write a
file); each side of a ref or range must pass `git rev-parse --verify` and reaches `git diff`
only after `--end-of-options`; paths go after `--` and must stay in the project. Untracked files
that may hold secrets are named, never diffed, and the whole diff goes through
`redact_sensitive_diff`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.core.errors import PathOutsideProject, UsageError
from valarmind_tui.safety.content import (
    holds_secrets,
    left_out_note,
    not_regular_reason,
    redact_sensitive_diff,
)
from valarmind_tui.safety.git_hardening import HardenedGit, RepositoryRefused, harden_async
from valarmind_tui.safety.paths import relative, resolve_in_project
from valarmind_tui.tools.common import child_env, kill_group, run_process

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.tools.git.refs import BadRevision, revision_sides, verify_revision

TOOL_TIMEOUT_S = 60.0
STAGED_FLAGS = ("--staged", "--cached")
DIFF_FLAGS = ("diff", "--no-ext-diff", "--no-textconv", "--no-color")
WORK_TREE, INDEX = "", ":"
"""`ReviewDiff.head` values that are not refs: the files on disk, and the staged content."""


@dataclass
class ReviewDiff:
    """What a review target resolved to."""

    label: str
    diff: str
    files: list[str]
    """Changed files that still exist on the new side."""
    left_out: list[str] = field(default_factory=list)
    """Sensitive files whose content was left out of `diff`."""
    deleted: list[str] = field(default_factory=list)
    base: str | None = None
    """The verified commit the change starts from (`git show BASE:path`), None outside git or
    for files reviewed as they are."""
    head: str = WORK_TREE
    """Where the new side lives: WORK_TREE, INDEX or a verified ref."""


async def gather_diff(
    root: Path, args: list[str], paths: list[str] | None = None
) -> ReviewDiff:
    """The diff, changed files and both sides of a /review target.

    `args` mixes flags, refs and paths as typed after /review; `paths` (the MCP face's
    separate argument) are only ever paths, and then every word of `args` must be a flag or a
    ref. Raises UsageError with the reason for anything else."""
    staged = any(a in STAGED_FLAGS for a in args)
    rest = [a for a in args if a not in STAGED_FLAGS]
    for word in rest + list(paths or []):
        if word.startswith("-"):
            raise UsageError(f"{word!r}: options are not accepted; give --staged, a ref, a "
                             "range (A..B) or project file paths")
    if not await _is_git(root):
        named = rest + list(paths or [])
        if not named:
            raise UsageError(f"{root} is not a git repository: name the files to review")
        return ReviewDiff("files " + " ".join(named), "", _existing(root, named))
    refs, given = await _split_targets(root, rest, strict=paths is not None)
    given = _in_project(root, given + list(paths or []))
    if staged:
        if refs:
            raise UsageError("--staged compares the index with HEAD; give no ref with it")
        diff, files, left_out, deleted = await _diff(root, ["--cached"], [], given)
        return ReviewDiff("the staged changes", diff, files, left_out, deleted, "HEAD", INDEX)
    if refs:
        label = refs[0] if ".." in refs[0] else f"changes since {refs[0]}"
        base, head = await _sides(root, refs[0])
        return ReviewDiff(label, *(await _diff(root, [], refs[:1], given)), base, head)
    diff, files, left_out, deleted = await _diff(root, [], ["HEAD"], given)
    untracked = await _git(root, ["ls-files", "--others", "--exclude-standard", "-z", "--",
                                  *given])
    for name in untracked.split("\0"):
        if not name or name in files:
            continue
        files.append(name)
        diff += await _untracked_diff(root, name, left_out)
    if given and not files and not deleted:
        return ReviewDiff("files " + " ".join(given), "", _existing(root, given))
    label = "files " + " ".join(given) if given else "the working tree"
    return ReviewDiff(label, diff, files, left_out, deleted, "HEAD", WORK_TREE)


async def _sides(root: Path, revision: str) -> tuple[str, str]:
    """(base, head) of a verified revision: `A..B` is (A, B), `A...B` (merge base, B), a ref
    R alone (R, the work tree)."""
    sides = revision_sides(revision)
    if len(sides) == 1:
        return sides[0], WORK_TREE
    if "..." in revision:
        merge = await _git(root, ["merge-base", "--end-of-options", *sides], check=False)
        return merge.strip() or sides[0], sides[1]
    return sides[0], sides[1]


async def _split_targets(root: Path, words: list[str], *, strict: bool) -> tuple[list[str],
                                                                                 list[str]]:
    """(verified refs or ranges, paths). A word with `..` must be a range of commits; a word
    naming an existing file is a path; else a ref when it verifies (always, when `strict`)."""
    refs: list[str] = []
    paths: list[str] = []
    for word in words:
        if ".." in word or strict or not (root / word).exists():
            try:
                refs.append(await verify_revision(word, lambda a: _git_ok(root, a)))
                continue
            except BadRevision as exc:
                if ".." in word or strict:
                    raise UsageError(str(exc)) from None
        paths.append(word)
    return refs, paths


async def _untracked_diff(root: Path, name: str, left_out: list[str]) -> str:
    """A new file's diff; only a note for one that may hold secrets or is not a regular file."""
    path = root / name
    if holds_secrets(root, name):
        left_out.append(name)
        return f"diff --git a/{name} b/{name}\nnew file\n{left_out_note(name)}\n"
    why = not_regular_reason(path, name) if not path.is_symlink() else None
    if why is not None:
        return f"diff --git a/{name} b/{name}\n[{why}]\n"
    out = await _git(root, [*DIFF_FLAGS, "--no-index", "--", "/dev/null", name], check=False)
    text, hidden = redact_sensitive_diff(out, root)
    left_out += hidden
    return text if text.endswith("\n") or not text else text + "\n"


async def _diff(
    root: Path, flags: list[str], refs: list[str], paths: list[str]
) -> tuple[str, list[str], list[str], list[str]]:
    """(redacted diff, changed files, files left out, deleted files)."""
    tail = ["--end-of-options", *refs, "--", *paths]
    names = await _git(root, ["diff", "--name-only", "-z", "--diff-filter=d", *flags, *tail])
    gone = await _git(root, ["diff", "--name-only", "-z", "--diff-filter=D", *flags, *tail])
    diff = await _git(root, [*DIFF_FLAGS, *flags, *tail])
    text, left_out = redact_sensitive_diff(diff, root)
    return (text, [n for n in names.split("\0") if n], left_out,
            [n for n in gone.split("\0") if n])


async def show_files(root: Path, rev: str, paths: list[str]) -> dict[str, bytes | None]:
    """Each path's content at `rev` (a verified ref, or INDEX for the staged content); None
    for a path that did not exist there. One `git cat-file --batch` (no filters, no textconv)
    for all of them."""
    wanted = [p for p in paths if "\n" not in p]
    if not wanted:
        return dict.fromkeys(paths)
    prefix = ":" if rev == INDEX else f"{rev}:"
    git = await _hardened(root)
    proc = await asyncio.create_subprocess_exec(
        *git.argv, "cat-file", "--batch", cwd=root, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, stdin=asyncio.subprocess.PIPE, env=git.env,
        start_new_session=True)
    query = "".join(f"{prefix}{p}\n" for p in wanted).encode()
    try:
        out, _ = await asyncio.wait_for(proc.communicate(query), TOOL_TIMEOUT_S)
    except (TimeoutError, asyncio.CancelledError):
        kill_group(proc.pid)
        await proc.wait()
        raise
    found: dict[str, bytes | None] = dict.fromkeys(paths)
    pos = 0
    for path in wanted:
        end = out.find(b"\n", pos)
        if end < 0:
            break
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            found[path] = out[pos:pos + size]
            pos += size + 1
        elif len(header) == 3:
            pos += int(header[2]) + 1  # not a blob (a submodule's commit): nothing to compare
    return found


def _in_project(root: Path, paths: list[str]) -> list[str]:
    try:
        return [relative(root, resolve_in_project(root, p)) for p in paths]
    except PathOutsideProject as exc:
        raise UsageError(str(exc)) from None


def _existing(root: Path, paths: list[str]) -> list[str]:
    paths = _in_project(root, paths)
    missing = [p for p in paths if not (root / p).is_file()]
    if missing:
        raise UsageError(f"not a file in the project: {', '.join(missing)}")
    return paths


async def _is_git(root: Path) -> bool:
    out = await _git(root, ["rev-parse", "--is-inside-work-tree"], check=False)
    return out.strip() == "true"


async def _hardened(root: Path) -> HardenedGit:
    """git as safety.git_hardening runs it; UsageError when the repository is refused."""
    try:
        return await harden_async(root)
    except RepositoryRefused as exc:
        raise UsageError(str(exc)) from None


async def _git_ok(root: Path, args: list[str]) -> bool:
    git = await _hardened(root)
    code, _, _ = await run_command([*git.argv, *args], root, env=git.env)
    return code == 0


async def _git(root: Path, args: list[str], *, check: bool = True) -> str:
    git = await _hardened(root)
    code, out, err = await run_command([*git.argv, *args], root, env=git.env)
    if check and code != 0:
        raise UsageError(f"git {args[0]} failed: {err.strip() or out.strip()}")
    return out


async def run_command(
    cmd: list[str], cwd: Path, *, sandbox: Sandbox | None = None,
    env: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of a helper (git, a linter), killed after TOOL_TIMEOUT_S;
    with the allowlisted environment (no API keys), in `sandbox` when given."""
    env = env if env is not None else child_env(cwd)
    if sandbox is None:
        result = await run_process(cmd, cwd=cwd, timeout=TOOL_TIMEOUT_S, env=env)
    else:
        with sandbox.guard(cwd):
            result = await run_process(sandbox.wrap(cmd, cwd, env=env), cwd=cwd,
                                       timeout=TOOL_TIMEOUT_S, env=env)
    if result.timed_out:
        return 124, "", f"{cmd[0]} took longer than {TOOL_TIMEOUT_S:.0f} s"
    return result.returncode or 0, result.stdout, result.stderr


async def run_json(cmd: list[str], cwd: Path, *, sandbox: Sandbox | None = None) -> Any:
    """A linter's JSON report (stdout; empty output is `[]`); None when it is not JSON."""
    _, out, _ = await run_command(cmd, cwd, sandbox=sandbox)
    try:
        return json.loads(out or "[]")
    except ValueError:
        return None
