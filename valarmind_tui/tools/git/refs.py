"""Model- or peer-supplied revisions checked before they reach git.

A revision (`HEAD~1`, `main`, `a..b`, `a...b`) is split into its sides; each side must look like
a ref (no leading `-`, no whitespace or control characters) and `git rev-parse --verify
--end-of-options SIDE^{commit}` must succeed. Callers then pass it after `--end-of-options`, so
git can never read it as an option (`--output=/some/file` would write a file).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from valarmind_tui.core.errors import ToolError

_RANGE = re.compile(r"^(.*?)(\.\.\.?)(.*)$")
_BAD_CHARS = re.compile(r"[\s\x00-\x1f\x7f]")
MAX_REF_CHARS = 256


class BadRevision(ToolError):
    """A revision that is not a ref or range of commits in this repository."""


def revision_sides(revision: str) -> list[str]:
    """The refs of `revision` (one, or the two sides of a range; an empty side is HEAD).
    Raises BadRevision when one is not shaped like a ref at all."""
    if not revision or len(revision) > MAX_REF_CHARS:
        raise BadRevision(f"{revision[:80]!r} is not a ref.")
    match = _RANGE.match(revision)
    sides = [match.group(1), match.group(3)] if match else [revision]
    if match and not any(sides):
        raise BadRevision(f"{revision!r} is not a ref range.")
    for side in sides:
        if side.startswith("-"):
            raise BadRevision(f"{revision!r} is not a ref: {side!r} looks like an option; only "
                              "refs and ranges (A..B, A...B) are accepted.")
        if _BAD_CHARS.search(side) or ".." in side:
            raise BadRevision(f"{revision!r} is not a ref or a range of two refs.")
    return [side or "HEAD" for side in sides]


def verify_args(side: str) -> list[str]:
    """The git arguments that succeed only when `side` names a commit."""
    return ["rev-parse", "--verify", "--quiet", "--end-of-options", side + "^{commit}"]


async def verify_revision(revision: str, git_ok: Callable[[list[str]], Awaitable[bool]]) -> str:
    """`revision` when each of its sides names a commit (checked by `git_ok(args)`, which runs
    git and says whether it succeeded); raises BadRevision otherwise."""
    for side in revision_sides(revision):
        if not await git_ok(verify_args(side)):
            raise BadRevision(f"{side!r} is not a commit in this repository"
                              + (f" (in {revision!r})" if side != revision else "") + ".")
    return revision
