"""The attempts side by side (diff stat, checks' verdicts, cost, time), the files where they
disagree, and the headless policies that pick one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from valarmind_tui.worktrees.attempts import Attempt
from valarmind_tui.worktrees.git import RepoGit

Policy = Literal["first-passing", "cheapest-passing"]
POLICIES: tuple[Policy, ...] = ("first-passing", "cheapest-passing")


def disagreements(git: RepoGit, attempts: Sequence[Attempt]) -> list[str]:
    """Files some attempt changed and the attempts left different (an attempt that did not touch
    a file leaves it as its base had it)."""
    done = [a for a in attempts if a.tree]
    touched = sorted({path for a in done for path in a.changed})
    if len(done) < 2 or not touched:
        return []
    versions: dict[str, set[str]] = {path: set() for path in touched}
    for attempt in done:
        blobs = _blobs(git, attempt.tree, touched)
        for path in touched:
            versions[path].add(blobs.get(path, "-"))
    return [path for path in touched if len(versions[path]) > 1]


def _blobs(git: RepoGit, tree: str, paths: list[str]) -> dict[str, str]:
    out = git.run("ls-tree", "-r", "-z", "--full-tree", tree, "--", *paths)
    found = {}
    for entry in out.decode(errors="surrogateescape").split("\0"):
        if entry:
            meta, _, path = entry.partition("\t")
            found[path] = meta.split()[2]
    return found


def pick(attempts: Sequence[Attempt], policy: Policy) -> Attempt | None:
    """The passing attempt the policy names; None when none passed."""
    passing = [a for a in attempts if a.passed]
    if not passing:
        return None
    if policy == "cheapest-passing":
        return min(passing, key=lambda a: (a.cost_usd is None, a.cost_usd or 0.0,
                                           a.tokens is None, a.tokens or 0, a.ended_at))
    return min(passing, key=lambda a: a.ended_at)


def describe(attempts: Sequence[Attempt], disagree: Sequence[str]) -> list[str]:
    """The comparison, a few lines per attempt."""
    lines: list[str] = []
    for a in attempts:
        verdict = "PASSED" if a.passed else "failed"
        cost = f"${a.cost_usd:.4f}" if a.cost_usd is not None else "cost unknown"
        tokens = f", {a.tokens:,} tokens" if a.tokens is not None else ""
        ran = ("ran out of time" if a.exit_code is None
               else "done" if a.exit_code == 0 else f"exit {a.exit_code}")
        lines.append(f"{a.name} [{a.model or 'configured model'}]: {verdict}; {ran}, "
                     f"{a.seconds:.1f} s, {cost}{tokens}")
        if a.changed and a.exit_code == 0 and not a.verdicts:
            lines.append("  no checks ran")
        for v in a.verdicts:
            last = (v.tail.strip().splitlines() or [""])[-1]
            lines.append(f"  check `{v.command}`: "
                         + ("passed" if v.passed else f"failed{': ' + last if last else ''}"))
        if not a.changed:
            lines.append("  changed no file")
        else:
            lines += ["  " + row for row in a.diffstat.splitlines()]
        if a.exit_code != 0 and a.said.strip():
            lines.append("  said: " + a.said.strip().splitlines()[-1])
    if disagree:
        lines.append("attempts disagree on: " + ", ".join(disagree))
    elif len(attempts) > 1:
        lines.append("attempts that changed files agree on every file")
    return lines
