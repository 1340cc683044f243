"""What a change breaks elsewhere: renames, removals and new signatures with callers."""

from __future__ import annotations

from pathlib import Path

from tests.agents.review.conftest import CORE, commit, git, write
from valarmind_tui.agents.review.impact import breaking_params
from valarmind_tui.agents.review.runner import run_review


def impact(report):  # noqa: ANN001, ANN201 - a ReviewReport in, findings out
    return {f.rule: f for f in report.findings if f.source == "static:impact"}


async def test_rename_with_callers_breaks_them(project: Path) -> None:
    write(project, {"pkg/core.py": CORE.replace("def sympify(", "def to_expr(")})
    report = await run_review(project, [])
    found = impact(report)
    assert set(found) == {"impact:renamed"}
    rename = found["impact:renamed"]
    assert (rename.file, rename.line, rename.severity) == ("pkg/core.py", 1, "critical")
    assert "`sympify` renamed to `to_expr`" in rename.message
    assert "breaks 3 caller file(s)" in rename.message
    assert rename.related == ["pkg/user1.py:1", "pkg/user2.py:1", "pkg/user3.py:1"]
    assert rename.suggested_fix == "Update the callers, or keep the old name: `sympify = to_expr`."
    assert rename.confidence == 0.9 and rename.category == "impact"


async def test_rename_with_its_callers_updated_breaks_nothing(project: Path) -> None:
    write(project, {"pkg/core.py": CORE.replace("def sympify(", "def to_expr(")})
    for i in range(1, 4):
        path = project / f"pkg/user{i}.py"
        path.write_text(path.read_text().replace("sympify", "to_expr"))
    report = await run_review(project, [])
    assert impact(report) == {}
    assert any("No definition that other files use" in n for n in report.notes)


async def test_removed_function_with_callers(project: Path) -> None:
    write(project, {"pkg/core.py": CORE.replace("def helper(x):\n    return x\n\n\n", "")})
    found = impact(await run_review(project, []))
    assert set(found) == {"impact:removed"}
    removed = found["impact:removed"]
    assert removed.file == "pkg/core.py" and removed.severity == "critical"
    assert "function `helper` removed, but 3 other files still reference it" in removed.message


async def test_changed_signature_with_callers(project: Path) -> None:
    write(project, {"pkg/core.py": CORE.replace("def compute(a, b):", "def compute(a, b, c):")})
    found = impact(await run_review(project, []))
    assert set(found) == {"impact:signature"}
    changed = found["impact:signature"]
    assert (changed.file, changed.line, changed.severity) == ("pkg/core.py", 10, "major")
    assert "`compute` now requires `c`" in changed.message
    assert "`def compute(a, b):` → `def compute(a, b, c):`" in changed.message
    assert "4 other files reference it" in changed.message  # three modules and the test


async def test_compatible_signature_and_private_changes_are_quiet(project: Path) -> None:
    text = CORE.replace("def compute(a, b):", "def compute(a, b, c=0):")
    write(project, {"pkg/core.py": text + "\n\ndef brand_new():\n    return 1\n"})
    assert impact(await run_review(project, [])) == {}


async def test_deleted_module_breaks_its_importers(project: Path) -> None:
    (project / "pkg/core.py").unlink()
    report = await run_review(project, [])
    found = impact(report)
    assert {"impact:removed"} == set(found)
    assert report.files == [] or "pkg/core.py" not in report.files


async def test_committed_ranges_and_staged_changes(project: Path) -> None:
    git(project, "checkout", "-qb", "feature")
    write(project, {"pkg/core.py": CORE.replace("def sympify(", "def to_expr(")})
    commit(project, "rename")
    git(project, "checkout", "-q", "main")
    write(project, {"README.md": "# demo\n"})
    commit(project, "docs on main")
    git(project, "checkout", "-q", "feature")
    for target in ("main..feature", "main...feature", "HEAD~1"):
        report = await run_review(project, [target])
        assert "impact:renamed" in impact(report), target
    pr = await run_review(project, ["main...feature"])
    assert pr.files == ["pkg/core.py"]  # from the merge base: main's README is not in the PR
    write(project, {"pkg/core.py": CORE.replace("def compute(a, b):", "def compute(x):")})
    git(project, "add", "pkg/core.py")
    staged = impact(await run_review(project, ["--staged"]))
    assert "no longer takes `a`, `b` and now requires `x`" in staged["impact:signature"].message


async def test_a_name_defined_elsewhere_too_is_reported_with_less_confidence(
    project: Path,
) -> None:
    write(project, {"other/core2.py": "def helper(y):\n    return y\n"})
    commit(project, "a second helper")
    write(project, {"pkg/core.py": CORE.replace("def helper(x):\n    return x\n\n\n", "")})
    removed = impact(await run_review(project, []))["impact:removed"]
    assert (removed.severity, removed.confidence) == ("minor", 0.4)
    assert "also defined in 1 other file(s)" in removed.message


async def test_method_with_a_common_name_defined_elsewhere_is_not_reported(
    project: Path,
) -> None:
    write(project, {"pkg/box.py": "class Box:\n    def area(self):\n        return 1\n",
                    "pkg/user4.py": "def f(s):\n    return s.area()\n"})
    commit(project, "box")
    write(project, {"pkg/core.py": CORE.replace("def area(self):", "def surface(self):")})
    assert impact(await run_review(project, [])) == {}


def test_breaking_params() -> None:
    assert breaking_params("def f(a, b):", "def f(a, b, c=1):") == ""
    assert breaking_params("def f(a, b):", "def f(a, *args, **kw):") == ""
    assert breaking_params("def f(self, a):", "def f(self, b):") == (
        "no longer takes `a` and now requires `b`")
    assert breaking_params("function f(a, b) {", "function f(a) {") == "no longer takes `b`"
    assert breaking_params("func F(a int) error {", "func F(a int, b string) error {") == (
        "now requires `b`")


async def test_same_name_from_elsewhere_is_not_a_caller(project: Path) -> None:
    write(project, {
        "pkg/text.py": "def escape(s):\n    return s\n",
        "pkg/web.py": "from html import escape\n\n\ndef page(s):\n    return escape(s)\n",
        "pkg/local.py": "def render(s):\n    def escape(v):\n        return v\n\n"
                        "    return escape(s)\n",
        "pkg/view.py": "from pkg.text import escape\n\n\ndef show(s):\n    return escape(s)\n",
    })
    commit(project, "escapes")
    write(project, {"pkg/text.py": "def escape_text(s):\n    return s\n"})
    renamed = impact(await run_review(project, []))["impact:renamed"]
    assert renamed.related == ["pkg/view.py:1"]  # html's escape and a local one are not ours
    assert "1 other file still references `escape`" in renamed.message


async def test_no_cache_dir_is_a_note_not_a_crash(project: Path, tmp_path: Path,
                                                  monkeypatch) -> None:  # noqa: ANN001
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    write(project, {"pkg/core.py": CORE.replace("def sympify(", "def to_expr(")})
    report = await run_review(project, [])
    assert impact(report) == {}
    assert any(n.startswith("What the change breaks elsewhere was not checked") for n in
               report.notes)


async def test_a_src_layout_rename_finds_absolute_and_sibling_imports(tmp_path: Path) -> None:
    """Only the relative import was found: `from mypkg.app import greet` in src/ looked like an
    import from outside the project."""
    repo = tmp_path / "srcproj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {
        "pyproject.toml": '[project]\nname = "mypkg"\n',
        "src/mypkg/__init__.py": "",
        "src/mypkg/app.py": "def greet(name):\n    return 'Hello ' + name\n",
        "src/mypkg/main.py": "from mypkg.app import greet\n\n\ndef run():\n    return greet('x')\n",
        "src/mypkg/cli.py": "from .app import greet\n\n\ndef cli():\n    return greet('y')\n",
        "src/script.py": "from mypkg.app import greet\n\nprint(greet('z'))\n",
    })
    commit(repo, "init")
    write(repo, {"src/mypkg/app.py": "def welcome(name):\n    return 'Hello ' + name\n"})
    found = impact(await run_review(repo, []))
    rename = found["impact:renamed"]
    assert "breaks 3 caller file(s)" in rename.message
    assert rename.related == ["src/mypkg/cli.py:1", "src/mypkg/main.py:1", "src/script.py:1"]
