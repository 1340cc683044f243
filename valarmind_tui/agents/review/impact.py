"""What a change breaks elsewhere, from the repo map's definitions and references.

Both sides of every changed source file are parsed with the repo map's tags query (the old one
from `git show BASE:path`, the new one from the work tree, the index or HEAD's side of a range).
A definition that is gone (removed, or renamed: a new definition of the same kind whose header
reads the same with the new name), or a function whose parameters changed so that old calls
break (a parameter gone, a new one without a default), is reported when other files still
reference its name. References come from the repo map's per-file cache of the work tree, so on
a warm cache only the changed files are parsed again.

Names are matched by text, not resolved: a name that other files define too may be theirs, so
such findings carry a lower severity and confidence, and methods with common names defined
elsewhere are not reported at all.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.agents.results import ReviewFinding, Severity
from valarmind_tui.agents.review.diff import WORK_TREE, ReviewDiff, show_files
from valarmind_tui.repomap.languages import language_for
from valarmind_tui.repomap.references import callers
from valarmind_tui.safety.content import holds_secrets, unquote_git_path

SHOWN_LOCATIONS = 5
_PARAMS_KINDS = ("function", "method")
_VARIADIC = re.compile(r"^\s*\*")
_PARAM_NAME = re.compile(r"^\s*[*&]{0,2}\s*(?:mut\s+)?([A-Za-z_$][\w$]*)")


@dataclass(frozen=True)
class Def:
    """A definition as the repo map stores it."""

    name: str
    line: int
    kind: str
    signature: tuple[str, ...]
    parent: int

    @property
    def header(self) -> str:
        return " ".join(" ".join(self.signature).split())


@dataclass
class Break:
    """One definition the change takes away from its callers."""

    rule: str
    """removed, renamed or signature"""
    file: str
    line: int
    old: Def
    new: Def | None
    nested: bool
    why: str = ""


async def change_impact(root: Path, change: ReviewDiff) -> list[ReviewFinding]:
    """Findings for definitions the change removes, renames or re-signs while other files
    still reference them; [] when there is no old side to compare with."""
    if change.base is None:
        return []
    shrunk = files_losing_lines(change.diff)  # a file that only gains lines breaks nobody
    paths = [p for p in [*change.files, *change.deleted]
             if language_for(p) is not None and not holds_secrets(root, p)
             and (p in change.deleted or p in shrunk or not change.diff)]
    olds = await show_files(root, change.base, paths)
    kept = [p for p in paths if olds.get(p) is not None]  # a new file breaks nobody
    news = await new_contents(root, change.head, [p for p in kept if p not in change.deleted])
    pairs = [(p, olds[p] or b"", b"" if p in change.deleted else news[p] or b"") for p in kept
             if p in change.deleted or news.get(p) is not None]
    if not pairs:
        return []
    return await asyncio.to_thread(_impact, root, pairs)


async def new_contents(root: Path, head: str, paths: list[str]) -> dict[str, bytes | None]:
    """The files on the new side of the change."""
    if head != WORK_TREE:
        return await show_files(root, head, paths)
    out: dict[str, bytes | None] = {}
    for path in paths:
        try:
            out[path] = (root / path).read_bytes()
        except OSError:
            out[path] = None
    return out


def files_losing_lines(diff: str) -> set[str]:
    """Files of a unified diff with at least one removed line."""
    out: set[str] = set()
    old = ""
    for line in diff.splitlines():
        if line.startswith("diff "):
            old = ""
        elif line.startswith("--- ") and not old:
            old = unquote_git_path(line[4:].strip()).removeprefix("a/")
        elif line.startswith("+++ "):
            new = unquote_git_path(line[4:].strip()).removeprefix("b/")
            current = new if new != "/dev/null" else old
        elif line.startswith("-") and old and old != "/dev/null":
            out.add(current)
    return out


def _impact(root: Path, pairs: list[tuple[str, bytes, bytes]]) -> list[ReviewFinding]:
    from valarmind_tui.repomap.builder import RepoMap

    breaks = [b for path, old, new in pairs for b in compare(path, old, new)]
    if not breaks:
        return []
    repo_map = RepoMap(root)
    try:
        index = repo_map.file_tags()
    finally:
        repo_map.close()
    findings = []
    for item in breaks:
        finding = _finding(root, item, index)
        if finding is not None:
            findings.append(finding)
    return findings


def compare(path: str, old_src: bytes, new_src: bytes) -> list[Break]:
    """Definitions of `path` that the change removed, renamed or re-signed in a breaking way."""
    lang = language_for(path)
    if lang is None:
        return []
    old_defs, new_defs = _defs(old_src, lang), _defs(new_src, lang) if new_src else []
    old_names = {d.name for d in old_defs}
    new_by_name: dict[str, Def] = {}
    for d in new_defs:
        new_by_name.setdefault(d.name, d)
    added = [d for d in new_defs if d.name not in old_names and _considered(d, new_defs)]
    out: list[Break] = []
    for d in old_defs:
        if not _considered(d, old_defs) or d.name.startswith("__"):
            continue
        nested = d.parent != -1
        now = new_by_name.get(d.name)
        if now is None:
            twin = _renamed_to(d, added, old_defs, new_defs)
            if twin is not None:
                added.remove(twin)
                out.append(Break("renamed", path, twin.line, d, twin, nested))
            else:
                out.append(Break("removed", path, d.line, d, None, nested))
        elif d.kind in _PARAMS_KINDS and now.kind in _PARAMS_KINDS and now.header != d.header:
            why = breaking_params(d.header, now.header)
            if why:
                out.append(Break("signature", path, now.line, d, now, nested, why))
    return out


def _defs(src: bytes, lang: str) -> list[Def]:
    from valarmind_tui.repomap.tags import extract, skip_reason

    if skip_reason(src, "") is not None:
        return []
    try:
        tags = extract(src, lang, references="tokens")  # only definitions are compared
    except Exception:  # a grammar that fails on one file: no impact known, not a crash
        return []
    return [Def(d.name, d.line, d.kind, d.signature, d.parent) for d in tags.definitions]


def _considered(d: Def, defs: list[Def]) -> bool:
    """Top-level definitions and the members of top-level classes: what other files can use."""
    if d.parent == -1:
        return True
    parent = defs[d.parent]
    return parent.parent == -1 and parent.kind in ("class", "interface", "module")


def _renamed_to(d: Def, added: list[Def], old_defs: list[Def], new_defs: list[Def]) -> Def | None:
    """The added definition that is `d` under a new name: same kind and nesting, and the same
    header with the name replaced; else the only added one of its kind and nesting."""
    same = [a for a in added if a.kind == d.kind and (a.parent == -1) == (d.parent == -1)]
    for a in same:
        if re.sub(rf"\b{re.escape(a.name)}\b", d.name, a.header) == d.header:
            return a
    return same[0] if len(same) == 1 else None


def breaking_params(old_header: str, new_header: str) -> str:
    """Why calls written for `old_header` may fail against `new_header` ('' when they
    should not): a parameter removed or renamed, or a new one without a default."""
    old, new = _params(old_header), _params(new_header)
    if old is None or new is None:
        return ""
    if any(variadic for _, _, variadic in new):
        return ""  # *args / **kwargs still take what old calls pass
    new_names = {n for n, _, _ in new}
    old_names = {n for n, _, _ in old}
    gone = [n for n, _, variadic in old if n not in new_names and not variadic]
    needed = [n for n, required, _ in new if required and n not in old_names]
    parts = []
    if gone:
        parts.append("no longer takes " + ", ".join(f"`{n}`" for n in gone))
    if needed:
        parts.append("now requires " + ", ".join(f"`{n}`" for n in needed))
    return " and ".join(parts)


def _params(header: str) -> list[tuple[str, bool, bool]] | None:
    """(name, required, variadic) of each parameter in the first parenthesised list."""
    start = header.find("(")
    if start < 0:
        return None
    depth, end = 0, -1
    for i in range(start, len(header)):
        depth += header[i] in "([{<"
        depth -= header[i] in ")]}>"
        if depth == 0:
            end = i
            break
    if end < 0:
        return None
    pieces, depth, cur = [], 0, ""
    for ch in header[start + 1:end]:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == "," and depth == 0:
            pieces.append(cur)
            cur = ""
        else:
            cur += ch
    pieces.append(cur)
    out = []
    for piece in pieces:
        text = piece.strip()
        match = _PARAM_NAME.match(text)
        if not text or text in ("*", "/") or match is None or match.group(1) in ("self", "cls"):
            continue
        out.append((match.group(1), "=" not in text and not text.endswith("?"),
                    bool(_VARIADIC.match(text)) or text.startswith("...")))
    return out


def _finding(root: Path, item: Break, index: dict[str, tuple[list, dict[str, int]]]
             ) -> ReviewFinding | None:
    name = item.old.name
    # a module-level name is taken by another module-level definition, not by a method
    others = {f for f, (defs, _) in index.items() if f != item.file
              and any(d[0] == name and (item.nested or d[4] == -1) for d in defs)}
    used = callers(root, index, name, item.file, lambda rel: not holds_secrets(root, rel),
                   located=SHOWN_LOCATIONS)
    referrers = [f for f, _ in used]
    if not referrers or (item.nested and others):
        return None
    locations = [f"{f}:{line}" if line else f for f, line in used[:SHOWN_LOCATIONS]]
    shown = ", ".join(locations)
    more = len(referrers) - len(locations)
    where = shown + (f" and {more} more" if more > 0 else "")
    many = len(referrers) != 1
    count = f"{len(referrers)} other file{'s' if many else ''}"
    still = "still reference" if many else "still references"
    what = "method" if item.nested else item.old.kind
    if item.rule == "renamed":
        new = item.new.name if item.new else "?"
        message = (f"`{name}` renamed to `{new}`, but {count} {still} `{name}` "
                   f"(breaks {len(referrers)} caller file(s)): {where}")
        fix = f"Update the callers, or keep the old name: `{name} = {new}`."
    elif item.rule == "removed":
        message = (f"{what} `{name}` removed, but {count} {still} it "
                   f"(breaks {len(referrers)} caller file(s)): {where}")
        fix = f"Keep `{name}` (deprecated) until the callers are updated, or update them."
    else:
        message = (f"`{name}` {item.why}: `{item.old.header}` → "
                   f"`{item.new.header if item.new else ''}`; {count} "
                   f"{'reference' if many else 'references'} it: {where}")
        fix = "Give the new parameters defaults, or update the callers."
    if others:
        message += f" (`{name}` is also defined in {len(others)} other file(s); some of these "
        message += "references may be to those)"
    severe = item.rule != "signature"
    severity: Severity = ("minor" if others
                          else "critical" if severe and not item.nested else "major")
    confidence = 0.4 if others else 0.6 if item.nested else 0.9 if severe else 0.8
    return ReviewFinding(
        severity=severity, file=item.file, line=item.line, message=message, category="impact",
        suggested_fix=fix, source="static:impact", rule=f"impact:{item.rule}",
        confidence=confidence, related=locations,
    )
