"""Running git for the read-only git tools, without letting a repository run its own code.

A repository's config can name programs git would run: hooks, an fsmonitor, an external diff or a
textconv, and content filters (`[filter "x"] clean = cmd` plus `* filter=x` in .gitattributes
runs `cmd` on the next `git status`). `run_git` turns them all off: fixed `-c` flags and
`--no-ext-diff --no-textconv` for the diff-like commands, and the repository's own filters
(listed first with `git config --local`, includes followed) overridden with empty commands via
`GIT_CONFIG_COUNT` (whose keys need no quoting, whatever the filter's name). The user's own
global filters (git-lfs) still apply. Inside the sandbox (ctx.sandbox) git also cannot write
outside the project or reach the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.common import ProcessResult, cap_middle, child_env, run_process

GIT_TIMEOUT_S = 60.0
MAX_OUTPUT_CHARS = 60_000
SAFE_FLAGS = (
    "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
    "-c", "core.quotepath=off", "-c", "color.ui=never", "-c", "log.showSignature=false",
    "-c", "protocol.allow=never", "-c", "submodule.recurse=false",
)
"""Flags before every subcommand: no hooks, fsmonitor, external diff, signature checks (gpg)
or transport."""
NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
DIFF_LIKE = frozenset({"diff", "log", "show"})
"""Subcommands that accept NO_PROGRAMS."""
FILTER_KEYS = ("clean", "smudge", "process")
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_ATTR_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0"}


async def run_git(args: Sequence[str], ctx: ToolContext) -> ToolResult:
    """`git <args>` in the project root; git's own error message when it fails."""
    root = ctx.project_root.resolve()
    env = await safe_git_env(root, ctx)
    args = list(args)
    if args and args[0] in DIFF_LIKE:
        args[1:1] = NO_PROGRAMS
    result = await _git(args, root, env, ctx)
    if result.timed_out:
        return ToolResult.error(f"git {args[0]} took longer than {GIT_TIMEOUT_S:.0f} s.")
    if result.cancelled:
        return ToolResult.error(f"git {args[0]} was cancelled.")
    if result.returncode != 0:
        message = result.stderr.strip() or result.stdout.strip()
        if "not a git repository" in message:
            return ToolResult.error("The project is not a git repository.")
        return ToolResult.error(f"git {args[0]} failed: {message}")
    return ToolResult(cap_middle(result.stdout.rstrip(), MAX_OUTPUT_CHARS))


async def safe_git_env(root: Path, ctx: ToolContext | None = None) -> dict[str, str]:
    """The environment git runs with in `root`: the allowlisted one, no system config or
    attributes, and the repository's own filters neutralised. Use it with SAFE_FLAGS (and
    NO_PROGRAMS for diff, log and show) wherever git runs on a project."""
    env = child_env(root)
    env.update(GIT_ENV)
    env.update(_config_env(await _repository_filters(root, env, ctx or ToolContext(root))))
    return env


async def _git(args: Sequence[str], root: Path, env: dict[str, str],
               ctx: ToolContext) -> ProcessResult:
    argv = ["git", *SAFE_FLAGS, *args]
    if ctx.sandbox is None:
        return await run_process(argv, cwd=root, timeout=GIT_TIMEOUT_S,
                                 cancel_event=ctx.cancel_event, env=env)
    with ctx.sandbox.guard(root):
        return await run_process(ctx.sandbox.wrap(argv, root, env=env), cwd=root,
                                 timeout=GIT_TIMEOUT_S, cancel_event=ctx.cancel_event, env=env)


async def _repository_filters(root: Path, env: dict[str, str], ctx: ToolContext) -> list[str]:
    """Names of the content filters the repository's own config defines."""
    listed = await _git(["config", "--local", "--includes", "-z", "--name-only",
                         "--get-regexp", r"^filter\."], root, env, ctx)
    if listed.returncode != 0:
        return []
    names = []
    for key in listed.stdout.split("\0"):
        section, _, rest = key.partition(".")
        name, _, _ = rest.rpartition(".")
        if section.lower() == "filter" and name:
            names.append(name)
    return list(dict.fromkeys(names))


def _config_env(filters: Sequence[str]) -> dict[str, str]:
    """`GIT_CONFIG_*` variables that give each filter empty commands (git then copies content
    as it is) and make none of them required."""
    pairs = [(f"filter.{name}.{key}", "") for name in filters for key in FILTER_KEYS]
    pairs += [(f"filter.{name}.required", "false") for name in filters]
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env
