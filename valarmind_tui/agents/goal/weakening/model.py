"""What the weakening detector reads (a round's changed files) and what it reports (evidence)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FileChange:
    """One file a round changed: its text before and after (None: absent, or not text)."""

    path: str
    """Relative to the project root, with `/`."""
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Evidence:
    """One change that weakens the judge: where it is and what changed."""

    path: str
    line: int
    """1-based, in the file after the round (before it, for a deleted file)."""
    kind: str
    """assertion_removed, assertion_loosened, test_deleted, test_emptied, skip_added,
    only_added, check_file_edited, check_command_changed, failure_ignored, runner_config
    (the test runner's configuration or a pytest hook)."""
    detail: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.detail}"

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True)
class Assertion:
    """One assertion of a test: `assert`, `self.assertX(...)`, `expect(...)...`, `assert.x()`."""

    text: str
    """Its source, whitespace collapsed."""
    line: int
    compares: bool
    """It checks a value against another (==, assertEqual, toBe(x)...), not just truthiness."""
    trivial: bool
    """It cannot fail: only constants (`assert True`, `assertTrue(True)`, `expect(1).toBe(1)`)."""


@dataclass
class TestCase:
    """One test function (Python) or `it`/`test` call (JS/TS)."""

    name: str
    """Qualified: `Class.test_x`, `describe title > it title`."""
    line: int
    body: str
    """The body's source, whitespace collapsed, the test's own name left out (renames)."""
    assertions: list[Assertion] = field(default_factory=list)
    markers: set[str] = field(default_factory=set)
    """skip, xfail, only, todo: from decorators, the call's name or its enclosing groups."""
    empty: bool = False
    """Its body does nothing: `pass`, `...`, a docstring, `{}`."""


@dataclass
class FileTests:
    """The tests of one file, and the markers that apply to the whole file."""

    tests: dict[str, TestCase] = field(default_factory=dict)
    file_markers: dict[str, int] = field(default_factory=dict)
    """skip/xfail/only for the whole module → the line that says so."""
    hooks: dict[str, tuple[int, str]] = field(default_factory=dict)
    """pytest hooks defined in the file (`pytest_sessionfinish`...) → (line, body): they decide
    what runs and what the run's status is."""
    exits: list[tuple[int, str]] = field(default_factory=list)
    """Calls that end the process (`sys.exit`, `os._exit`, `raise SystemExit`): (line, text)."""
    assertion_texts: set[str] = field(default_factory=set)
    """Every assertion in the file, tests and helpers alike (an assertion moved into a
    helper is not removed)."""
