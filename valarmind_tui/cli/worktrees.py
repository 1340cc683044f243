"""`valarmind --worktree [NAME]`, `valarmind worktrees ...` and `valarmind -p TASK --best-of N`:
the command line's side of valarmind_tui/worktrees (docs/worktrees.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from valarmind_tui.core.errors import UsageError
from valarmind_tui.core.visible_text import visible

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox
    from valarmind_tui.settings.config import Settings
    from valarmind_tui.worktrees.best_of import BestOfResult

EXIT_NOT_MERGED = 12


def enter_worktree(root: Path, args: argparse.Namespace) -> Path:
    """Open worktree `args.worktree` (made now from the person's tree when new; a name is
    chosen when none is given) and make it the run's project. The worktree's own configuration
    is trusted only when the person's project is and the two still hold the same."""
    from valarmind_tui.settings.trust.content import fingerprint
    from valarmind_tui.settings.trust.decision import decide
    from valarmind_tui.worktrees.worktree import main_root, open_or_create

    origin = main_root(root)
    name = args.worktree or time.strftime("wt-%m%d-%H%M%S")
    worktree = open_or_create(origin, name)
    trusted = decide(origin, flag=getattr(args, "trust_project", False)).trusted
    same = fingerprint(origin).digests == fingerprint(worktree.path).digests
    args.trust_project = trusted and same
    args.cwd = worktree.path
    return worktree.path


def _sandbox(settings: Settings) -> Sandbox:
    from valarmind_tui.safety.sandbox.wrap import Sandbox

    return Sandbox.detect(settings.sandbox, settings.sandbox_network,
                          home_allow=settings.sandbox_home)


def _checks(root: Path, args: argparse.Namespace, settings: Settings) -> tuple[str, ...]:
    from valarmind_tui.worktrees.checks import default_checks

    given = tuple(getattr(args, "checks", None) or ())
    allowed = settings.project_trusted or settings.allow_project_commands
    return given or default_checks(root, allowed=allowed)


def worktrees_command(root: Path, args: argparse.Namespace, settings: Settings) -> int:
    """`valarmind worktrees [list | preview NAME | merge NAME | remove NAME]`."""
    from valarmind_tui.worktrees import merge as merging
    from valarmind_tui.worktrees import worktree as worktrees

    origin = worktrees.main_root(root)
    action = args.action
    if action == "list":
        found = worktrees.list_all(origin)
        if not found:
            print("No worktrees. Start one with: valarmind --worktree NAME")
        for w in found:
            left = worktrees.unmerged(origin, w)
            state = f"{len(left)} file(s) not merged" if left else "nothing unmerged"
            print(visible(f"{w.name}\t{w.branch}\t{state}\t{w.path}"))
        return 0
    if not args.name:
        raise UsageError(f"valarmind worktrees {action} needs a worktree's name")
    if action == "preview":
        print(visible("\n".join(merging.preview(origin, args.name).lines())))
        return 0
    if action == "remove":
        gone = worktrees.remove(origin, args.name, force=args.force)
        print(visible(f"removed worktree {gone.name} and its branch {gone.branch}"))
        return 0
    report = merging.merge(origin, args.name, _checks(origin, args, settings), _sandbox(settings))
    print(visible("\n".join(report.lines())))
    return 0 if report.merged else EXIT_NOT_MERGED


def best_of_command(root: Path, args: argparse.Namespace, settings: Settings) -> int:
    """`valarmind -p TASK --best-of N [--models a,b] [--check CMD] [--pick POLICY]`."""
    from valarmind_tui.worktrees.attempts import AttemptPlan, child_flags
    from valarmind_tui.worktrees.best_of import attempt_prefix, best_of
    from valarmind_tui.worktrees.worktree import main_root

    if args.prompt is None:
        raise UsageError("--best-of needs a task: valarmind -p TASK --best-of N")
    if not 1 <= args.best_of <= 8:
        raise UsageError("--best-of takes 1 to 8 attempts")
    origin = main_root(root)
    models = tuple(m.strip() for m in (args.models or "").split(",") if m.strip())
    flags = child_flags(mode=args.permission_mode, api_base=args.api_base,
                        trusted=settings.project_trusted,
                        allow_project_commands=bool(args.allow_project_commands))
    if args.model and not models:
        models = (args.model,)
    plan = AttemptPlan(args.prompt, args.best_of, models, _checks(origin, args, settings), flags,
                       attempt_prefix())
    result = asyncio.run(best_of(origin, plan, _sandbox(settings), args.pick))
    if args.output_format == "json":
        print(json.dumps(_summary(result)))
    else:
        print(visible("\n".join(result.lines)))
    return 0 if result.merged else EXIT_NOT_MERGED


def _summary(result: BestOfResult) -> dict[str, object]:
    """`--output-format json`: the comparison and what was merged, for scripts."""
    return {
        "attempts": [{"worktree": a.name, "branch": a.worktree.branch, "path": str(a.worktree.path),
                      "model": a.model, "passed": a.passed, "exit_code": a.exit_code,
                      "seconds": round(a.seconds, 2), "cost_usd": a.cost_usd,
                      "tokens": a.tokens, "changed": list(a.changed),
                      "checks": [{"command": v.command, "passed": v.passed,
                                  "exit_code": v.exit_code} for v in a.verdicts]}
                     for a in result.attempts],
        "disagree": result.disagree,
        "picked": result.picked.name if result.picked else None,
        "merged": result.merged,
        "merge": result.merge.lines() if result.merge else [],
    }
