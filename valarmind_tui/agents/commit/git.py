"""The git side of the commit chain: what is staged, `git commit` and `git push`.

Every git here runs through `safety.git_hardening.harden`: the repository's own config never
chooses a program (a signing program, filter, SSH or proxy command, credential helper, pack
program), trusted or not; a commit or push whose repository sets one stops with a GitError naming
the key and its file, and the person's own git config (their signing, their credential helper)
applies as usual. Trust decides one thing: a trusted project's git hooks (pre-commit, commit-msg,
pre-push) run; an untrusted one's do not (`core.hooksPath=/dev/null`) and the chain says so.
`--no-verify` is never passed. Every string from the repository or the person (a message, a
remote name, a branch) reaches git as one argv element after the option it belongs to or after
`--`, so none becomes an option. Git runs with the allowlisted environment plus the person's git
identity and SSH agent (push needs it), never API keys.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.safety.git_hardening import (
    Purpose,
    RepositoryRefused,
    check_push_target,
    harden_async,
)
from valarmind_tui.tools.common import ProcessResult, run_process

GIT_TIMEOUT_S = 300.0
"""A commit's hooks may run a test suite."""
PASSED_ENV = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
              "SSH_AUTH_SOCK")
"""What git gets of our environment beyond the allowlist: who commits, and the SSH agent."""
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

    async def run(self, args: Sequence[str], *,
                  purpose: Purpose = Purpose.READ) -> ProcessResult:
        """`git <args>`, hardened for `purpose` (hooks only for a trusted commit or push);
        GitError when the repository is refused."""
        try:
            git = await harden_async(self.root, purpose,
                                     run_hooks=self.trusted and purpose is not Purpose.READ)
        except RepositoryRefused as exc:
            raise GitError(str(exc)) from None
        env = {**git.env, **{k: os.environ[k] for k in PASSED_ENV if k in os.environ}}
        return await run_process([*git.argv, *args], cwd=self.root, timeout=GIT_TIMEOUT_S,
                                 env=env)

    async def read(self, args: Sequence[str]) -> str:
        """A read-only query, always hardened; GitError with git's message when it fails."""
        result = await self.run(args)
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
        return await self.run(["add", "--update", "--", "."], purpose=Purpose.COMMIT)

    async def commit(self, message: str) -> ProcessResult:
        """Commit what is staged with `message` (hooks run only when trusted)."""
        return await self.run(["commit", "--quiet", "-m", message.replace("\0", "")],
                              purpose=Purpose.COMMIT)

    async def head(self) -> str:
        return (await self.read(["rev-parse", "--short", "HEAD"])).strip()

    async def push(self) -> tuple[str, ProcessResult]:
        """Push the current branch to its upstream: (where it went, git's result)."""
        found = await self.run(["symbolic-ref", "--short", "-q", "HEAD"])
        branch = found.stdout.strip()
        if found.returncode != 0 or not branch:
            raise GitError("HEAD is detached: there is no branch to push")
        remote = await self._config(f"branch.{branch}.remote")
        merge = await self._config(f"branch.{branch}.merge")
        if not remote or not merge:
            raise GitError(f"the branch {branch} has no upstream: set one once with "
                           f"`git push -u REMOTE {branch}`")
        target = f"{remote} {merge.removeprefix('refs/heads/')}"
        for url in await self._push_urls(remote):
            try:
                check_push_target(self.root, url)
            except RepositoryRefused as exc:
                raise GitError(str(exc)) from None
        return target, await self.run(["push", "--", remote, f"HEAD:{merge}"],
                                      purpose=Purpose.PUSH)

    async def _push_urls(self, remote: str) -> list[str]:
        """Where a push to `remote` goes (pushurl and insteadOf applied); `remote` itself when
        it is a path or URL rather than a remote's name."""
        if remote.startswith("-"):
            raise GitError(f"{remote!r} is not a remote")
        found = await self.run(["remote", "get-url", "--push", "--all", remote])
        urls = found.stdout.splitlines() if found.returncode == 0 else []
        return urls or [remote]

    async def _config(self, key: str) -> str:
        result = await self.run(["config", "--get", key])
        return result.stdout.strip() if result.returncode == 0 else ""
