"""The commit chain's message: a Conventional Commits message written by the model from the
staged diff, or, without a model, one drafted from the changed files (and labelled so)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from valarmind_tui.agents.commit.git import StagedFile

if TYPE_CHECKING:
    from valarmind_tui.providers.base import Provider

MAX_DIFF_CHARS = 40_000
TYPES = ("feat", "fix", "docs", "style", "refactor", "perf", "test", "build", "ci", "chore",
         "revert")
CONVENTIONAL = re.compile(rf"^({'|'.join(TYPES)})(\([^()\n]+\))?!?: \S")
SUBJECT_CHARS = 72
SYSTEM_PROMPT = f"""You write git commit messages in the Conventional Commits format.
The first line is `type(scope): subject`: type is one of {', '.join(TYPES)}; the scope is
optional; the subject is imperative, lower case, without a final period, at most
{SUBJECT_CHARS} characters. Add a blank line and a short body only when the subject cannot say
why. Answer with the message only: no code fence, no quotes, no commentary."""
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
BUILD_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "package-lock.json",
               "pnpm-lock.yaml", "yarn.lock", "Cargo.toml", "Cargo.lock", "go.mod", "go.sum",
               "Makefile", "Dockerfile", "requirements.txt", "uv.lock", "poetry.lock")
VERBS = {"A": "add", "D": "remove"}
STATUS_WORDS = {"A": "added", "D": "deleted", "M": "modified", "T": "type changed"}


async def model_message(provider: Provider, model: str | None, diff: str) -> str | None:
    """The model's message for `diff`, or None when its answer is not a conventional commit."""
    from valarmind_tui.providers.base import ModelRequest, TurnComplete

    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n[diff truncated]"
    request = ModelRequest(messages=[
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"The staged change:\n```diff\n{diff}\n```"},
    ], model=model, max_tokens=500)
    text = ""
    async for chunk in provider.stream(request):
        if isinstance(chunk, TurnComplete):
            text = chunk.turn.text
    return clean_message(text)


def clean_message(text: str) -> str | None:
    """The message without a fence or quotes around it; None unless its first line is a
    conventional commit subject."""
    text = text.strip()
    fenced = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    lines = [line.rstrip() for line in text.splitlines()]
    if not lines or not CONVENTIONAL.match(lines[0]):
        return None
    return "\n".join(lines).strip()


def files_message(files: list[StagedFile]) -> str:
    """A deterministic conventional commit for `files`, for when no model writes one."""
    paths = [f.path for f in files]
    statuses = {f.status for f in files}
    verb = VERBS.get(next(iter(statuses)), "update") if len(statuses) == 1 else "update"
    names = [PurePosixPath(p).name for p in paths]
    what = ", ".join(names) if len(names) <= 3 else f"{len(names)} files"
    scope = _scope(paths)
    subject = f"{_kind(files)}{f'({scope})' if scope else ''}: {verb} {what}"
    if len(subject) > SUBJECT_CHARS:
        subject = f"{_kind(files)}{f'({scope})' if scope else ''}: {verb} {len(names)} files"
    body = "\n".join(f"- {STATUS_WORDS.get(f.status, f.status)}: {f.path}" for f in files)
    return f"{subject}\n\n{body}"


def _kind(files: list[StagedFile]) -> str:
    from valarmind_tui.agents.review.checks import is_test_file  # the review's rules: heavy

    paths = [f.path for f in files]
    if all(is_test_file(p) for p in paths):
        return "test"
    if all(p.endswith(DOC_SUFFIXES) or p.startswith("docs/") for p in paths):
        return "docs"
    if all(p.startswith(".github/") or p in (".gitlab-ci.yml", ".gitlab-ci.yaml") for p in paths):
        return "ci"
    if all(PurePosixPath(p).name in BUILD_FILES for p in paths):
        return "build"
    if all(f.status == "A" for f in files):
        return "feat"
    return "chore"


def _scope(paths: list[str]) -> str:
    """The top-level folder every path is in (none when they differ or sit at the root)."""
    tops = {p.split("/", 1)[0] for p in paths if "/" in p}
    if len(tops) == 1 and all("/" in p for p in paths):
        return next(iter(tops)).lstrip(".")
    return ""
