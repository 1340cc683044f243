"""The git side of the commit chain: what is staged, `git commit` and `git push`.

A trusted project's git runs as the person's own would: its hooks (pre-commit, commit-msg,
pre-push) and its config apply. An untrusted project's git gets `tools/git.py`'s hardening
(`SAFE_FLAGS`: `core.hooksPath=/dev/null`, no fsmonitor, external diff or transport; its own
content filters neutralised), so a hook or filter a repository ships never runs; the chain says
that hooks were skipped. `--no-verify` is never passed. Every string from the repository or the
person (a message, a remote name, a branch) reaches git as one argv element after the option it
belongs to or after `--`, so none becomes an option. Git runs with the allowlisted environment
plus the person's git identity and SSH agent (push needs it), never API keys.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.tools.common import ProcessResult, child_env, run_process
from valarmind_tui.tools.git import SAFE_FLAGS, safe_git_env

GIT_TIMEOUT_S = 300.0
"""A commit's hooks may run a test suite."""
PASSED_ENV = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
              "SSH_AUTH_SOCK")
"""What git gets of our environment beyond the allowlist: who commits, and the SSH agent."""
LOCAL_PROGRAMS = (r"^(gpg(\.[^.]+)?\.program|core\.sshcommand|core\.askpass"
                  r"|credential(\..+)?\.helper)$")
"""Keys of a repository's own `.git/config` that name a program git commit or push would run."""
HOOKS_SKIPPED = ("the project is not trusted, so its git hooks were not run "
                 "(trust it with /trust yes or `valarmind trust` to run them)")


class GitError(Exception):
    """git could not answer (not a repository, no upstream...): the message says what to do."""


@dataclass(frozen=True)
class StagedFile:
    status: str
    """git's letter: A added, M modified, D deleted, T type changed."""
    path: str


class Git:
    """git in one project, trusted or not (see the module docstring)."""

    def __init__(self, root: Path, *, trusted: bool) -> None:
        self.root = root.resolve()
        self.trusted = trusted

    async def run(self, args: Sequence[str], *, transport: bool = False,
                  hardened: bool | None = None) -> ProcessResult:
        """`git <args>`; `hardened` (default: untrusted) adds SAFE_FLAGS and neutral filters;
        `transport` lets a hardened git reach a remote (push), `ext::` still refused."""
        hardened = not self.trusted if hardened is None else hardened
        if hardened:
            flags = list(SAFE_FLAGS)
            if transport:
                flags[flags.index("protocol.allow=never")] = "protocol.ext.allow=never"
            env = await safe_git_env(self.root)
        else:
            flags, env = [], child_env(self.root)
        env.update({k: os.environ[k] for k in PASSED_ENV if k in os.environ})
        return await run_process(["git", *flags, *args], cwd=self.root, timeout=GIT_TIMEOUT_S,
                                 env=env)

    async def read(self, args: Sequence[str]) -> str:
        """A read-only query, always hardened; GitError with git's message when it fails."""
        result = await self.run(args, hardened=True)
        if result.returncode != 0:
            said = (result.stderr or result.stdout).strip()
            if "not a git repository" in said:
                raise GitError(f"{self.root} is not a git repository")
            raise GitError(f"git {args[0]} failed: {said or result.returncode}")
        return result.stdout

    async def staged(self) -> list[StagedFile]:
        """The staged changes (renames as a deletion and an addition)."""
        out = await self.read(["diff", "--cached", "--name-status", "--no-renames", "-z"])
        words = out.split("\0")
        return [StagedFile(words[i][:1], words[i + 1]) for i in range(0, len(words) - 1, 2)
                if words[i]]

    async def stage_tracked(self) -> ProcessResult:
        """`--all`: stage every change to tracked files (as `git commit --all` would)."""
        return await self.run(["add", "--update", "--", "."])

    async def commit(self, message: str) -> ProcessResult:
        """Commit what is staged with `message` (hooks run only when trusted)."""
        await self.refuse_local_programs()
        return await self.run(["commit", "--quiet", "-m", message.replace("\0", "")])

    async def refuse_local_programs(self) -> None:
        """An untrusted repository's own config may not choose a program git runs (a signing
        program, an SSH command, a credential helper): GitError naming the keys."""
        if self.trusted:
            return
        found = await self.run(["config", "--local", "--includes", "--name-only",
                                "--get-regexp", LOCAL_PROGRAMS], hardened=True)
        keys = sorted(set(found.stdout.split())) if found.returncode == 0 else []
        if keys:
            raise GitError(f"the repository's own .git/config sets {', '.join(keys)}, a program "
                           "git would run; trust the project to commit and push with it")

    async def head(self) -> str:
        return (await self.read(["rev-parse", "--short", "HEAD"])).strip()

    async def push(self) -> tuple[str, ProcessResult]:
        """Push the current branch to its upstream: (where it went, git's result)."""
        found = await self.run(["symbolic-ref", "--short", "-q", "HEAD"], hardened=True)
        branch = found.stdout.strip()
        if found.returncode != 0 or not branch:
            raise GitError("HEAD is detached: there is no branch to push")
        remote = await self._config(f"branch.{branch}.remote")
        merge = await self._config(f"branch.{branch}.merge")
        if not remote or not merge:
            raise GitError(f"the branch {branch} has no upstream: set one once with "
                           f"`git push -u REMOTE {branch}`")
        target = f"{remote} {merge.removeprefix('refs/heads/')}"
        await self.refuse_local_programs()
        return target, await self.run(["push", "--", remote, f"HEAD:{merge}"], transport=True)

    async def _config(self, key: str) -> str:
        result = await self.run(["config", "--get", key], hardened=True)
        return result.stdout.strip() if result.returncode == 0 else ""
