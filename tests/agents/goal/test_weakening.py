"""The weakening detector on real Python and JS/TS diffs: what it must flag, and the
near-misses (a renamed test, a new assertion, a refactoring) it must not."""

from __future__ import annotations

import json

from valarmind_tui.agents.goal.weakening import CheckSpec, FileChange, find_weakening

PY_BEFORE = '''import pytest
from app import add


def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0


class TestMore:
    def test_negative(self):
        assert add(-1, -1) == -2
'''

UNITTEST_BEFORE = '''import unittest
from app import add


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
'''

JS_BEFORE = '''import { add } from "./add";

describe("add", () => {
  it("adds", () => {
    expect(add(1, 2)).toBe(3);
  });
  test("zero", () => {
    expect(add(0, 0)).toEqual(0);
  });
});
'''

PYTEST = [CheckSpec("pytest -q")]


def kinds(path: str, before: str | None, after: str | None,
          checks: list[CheckSpec] = PYTEST) -> list[str]:
    return [e.kind for e in find_weakening([FileChange(path, before, after)], checks)]


# -- Python: flagged ------------------------------------------------------------------------
def test_deleted_assertion_is_flagged_with_the_line_and_text() -> None:
    after = PY_BEFORE.replace("    assert add(1, 2) == 3\n", "")
    [evidence] = find_weakening([FileChange("tests/test_app.py", PY_BEFORE, after)], PYTEST)
    assert evidence.kind == "assertion_removed"
    assert evidence.path == "tests/test_app.py" and evidence.line == 5
    assert "assert add(1, 2) == 3" in evidence.detail


def test_assert_equal_turned_into_assert_true_true_is_loosened() -> None:
    after = UNITTEST_BEFORE.replace("self.assertEqual(add(1, 2), 3)", "self.assertTrue(True)")
    assert kinds("tests/test_unit.py", UNITTEST_BEFORE, after) == ["assertion_loosened"]


def test_comparison_turned_into_truthiness_is_loosened() -> None:
    after = PY_BEFORE.replace("assert add(1, 2) == 3", "assert add(1, 2)")
    assert kinds("tests/test_app.py", PY_BEFORE, after) == ["assertion_loosened"]


def test_new_skip_and_xfail_markers_are_flagged() -> None:
    skip = PY_BEFORE.replace("def test_add", "@pytest.mark.skip(reason='later')\ndef test_add")
    assert kinds("tests/test_app.py", PY_BEFORE, skip) == ["skip_added"]
    xfail = PY_BEFORE.replace("    def test_negative", "    @pytest.mark.xfail\n"
                                                       "    def test_negative")
    assert kinds("tests/test_app.py", PY_BEFORE, xfail) == ["skip_added"]
    unit = UNITTEST_BEFORE.replace("class AddTest", "@unittest.skip('x')\nclass AddTest")
    assert kinds("tests/test_unit.py", UNITTEST_BEFORE, unit) == ["skip_added"]
    module = PY_BEFORE.replace("from app import add\n",
                               "from app import add\npytestmark = pytest.mark.skip\n")
    assert kinds("tests/test_app.py", PY_BEFORE, module) == ["skip_added"]
    inline = PY_BEFORE.replace("    assert add(0, 0) == 0\n",
                               "    assert add(0, 0) == 0\n    pytest.skip('flaky')\n")
    assert kinds("tests/test_app.py", PY_BEFORE, inline) == ["skip_added"]


def test_emptied_test_bodies_are_flagged() -> None:
    passed = PY_BEFORE.replace("    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n",
                               "    pass\n")
    assert kinds("tests/test_app.py", PY_BEFORE, passed) == ["test_emptied"]
    dots = PY_BEFORE.replace("        assert add(-1, -1) == -2\n", '        """Later."""\n'
                                                                  "        ...\n")
    assert kinds("tests/test_app.py", PY_BEFORE, dots) == ["test_emptied"]


def test_a_deleted_test_and_a_deleted_test_file_are_flagged() -> None:
    gone = PY_BEFORE.split("\n\nclass TestMore")[0] + "\n"
    assert kinds("tests/test_app.py", PY_BEFORE, gone) == ["test_deleted"]
    assert kinds("tests/test_app.py", PY_BEFORE, None) == ["test_deleted", "test_deleted"]


def test_collect_ignore_in_a_conftest_is_flagged() -> None:
    assert kinds("tests/conftest.py", "import pytest\n",
                 "import pytest\ncollect_ignore = ['test_app.py']\n") == ["skip_added"]


# -- Python: near-misses --------------------------------------------------------------------
def test_renaming_a_test_is_not_weakening() -> None:
    after = PY_BEFORE.replace("def test_add():", "def test_add_small_numbers():")
    assert kinds("tests/test_app.py", PY_BEFORE, after) == []


def test_adding_an_assertion_or_a_test_is_not_weakening() -> None:
    after = PY_BEFORE.replace("    assert add(0, 0) == 0\n",
                              "    assert add(0, 0) == 0\n    assert add(2, 2) == 4\n")
    after += "\n\ndef test_big():\n    assert add(10**9, 1) == 10**9 + 1\n"
    assert kinds("tests/test_app.py", PY_BEFORE, after) == []


def test_moving_assertions_into_a_helper_is_not_weakening() -> None:
    after = PY_BEFORE.replace(
        "def test_add():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n",
        "def check_small():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n\n\n"
        "def test_add():\n    check_small()\n")
    assert kinds("tests/test_app.py", PY_BEFORE, after) == []


def test_reformatting_and_changing_the_expected_value_are_not_weakening() -> None:
    reformatted = PY_BEFORE.replace("assert add(1, 2) == 3", "assert add(1,  2) == 3")
    assert kinds("tests/test_app.py", PY_BEFORE, reformatted) == []
    fixed = PY_BEFORE.replace("assert add(1, 2) == 3", "assert add(1, 2) == 3.0")
    assert kinds("tests/test_app.py", PY_BEFORE, fixed) == []


def test_source_files_are_not_read_as_tests() -> None:
    assert kinds("app.py", "def add(a, b):\n    assert a\n    return a - b\n",
                 "def add(a, b):\n    return a + b\n") == []


# -- JS/TS ----------------------------------------------------------------------------------
def test_js_removed_expect_is_flagged() -> None:
    after = JS_BEFORE.replace("    expect(add(1, 2)).toBe(3);\n", "")
    [evidence] = find_weakening([FileChange("src/add.test.ts", JS_BEFORE, after)], PYTEST)
    assert evidence.kind in ("assertion_removed", "test_emptied")
    assert "adds" in evidence.detail


def test_js_skip_only_and_x_prefixes_are_flagged() -> None:
    path = "src/add.test.js"
    assert kinds(path, JS_BEFORE, JS_BEFORE.replace('it("adds"', 'it.skip("adds"')) == [
        "skip_added"]
    assert kinds(path, JS_BEFORE, JS_BEFORE.replace('test("zero"', 'test.skip("zero"')) == [
        "skip_added"]
    assert kinds(path, JS_BEFORE, JS_BEFORE.replace('it("adds"', 'xit("adds"')) == [
        "skip_added"]
    assert "skip_added" in kinds(path, JS_BEFORE, JS_BEFORE.replace('describe("add"',
                                                                     'describe.skip("add"'))
    assert "only_added" in kinds(path, JS_BEFORE, JS_BEFORE.replace('it("adds"',
                                                                     'it.only("adds"'))


def test_js_trivial_expect_is_loosened() -> None:
    after = JS_BEFORE.replace("expect(add(1, 2)).toBe(3)", "expect(true).toBe(true)")
    assert kinds("src/add.spec.tsx", JS_BEFORE, after) == ["assertion_loosened"]
    truthy = JS_BEFORE.replace("expect(add(1, 2)).toBe(3)", "expect(add(1, 2)).toBeTruthy()")
    assert kinds("src/add.spec.ts", JS_BEFORE, truthy) == ["assertion_loosened"]


def test_js_emptied_body_is_flagged() -> None:
    after = JS_BEFORE.replace("    expect(add(0, 0)).toEqual(0);\n", "")
    assert kinds("__tests__/add.js", JS_BEFORE, after) == ["test_emptied"]


def test_js_near_misses_are_not_flagged() -> None:
    path = "src/add.test.ts"
    renamed = JS_BEFORE.replace('it("adds"', 'it("adds two numbers"')
    assert kinds(path, JS_BEFORE, renamed) == []
    more = JS_BEFORE.replace("    expect(add(1, 2)).toBe(3);\n",
                             "    expect(add(1, 2)).toBe(3);\n    expect(add(2, 2)).toBe(4);\n")
    assert kinds(path, JS_BEFORE, more) == []
    awaited = JS_BEFORE.replace('it("adds", () => {', 'it("adds", async () => {')
    assert kinds(path, JS_BEFORE, awaited) == []


# -- the checks' own files ------------------------------------------------------------------
def package(scripts: dict[str, str], deps: dict[str, str] | None = None) -> str:
    return json.dumps({"name": "x", "scripts": scripts, "dependencies": deps or {}}, indent=2)


def test_or_true_added_to_the_checked_npm_script_is_flagged() -> None:
    before = package({"test": "jest"})
    after = package({"test": "jest || true"})
    found = kinds("package.json", before, after, [CheckSpec("npm test", "package.json")])
    assert found == ["check_command_changed", "failure_ignored"]


def test_a_new_dependency_in_package_json_is_not_flagged() -> None:
    before = package({"test": "jest"})
    after = package({"test": "jest"}, {"left-pad": "1.0.0"})
    assert kinds("package.json", before, after, [CheckSpec("npm test", "package.json")]) == []


def test_make_target_recipe_changes_are_flagged_others_not() -> None:
    before = "lint:\n\truff check .\n\ntest:\n\tpytest -q\n"
    after = before.replace("\tpytest -q", "\t-pytest -q")
    assert kinds("Makefile", before, after, [CheckSpec("make test", "Makefile")]) == [
        "check_command_changed", "failure_ignored"]
    other = before.replace("ruff check .", "ruff check src")
    assert kinds("Makefile", before, other, [CheckSpec("make test", "Makefile")]) == []


def test_the_script_a_check_runs_is_the_checks_own_file() -> None:
    before = "#!/bin/sh\nset -e\npytest -q\n"
    after = "#!/bin/sh\nset -e\npytest -q || true\n"
    found = kinds("scripts/check.sh", before, after, [CheckSpec("sh scripts/check.sh")])
    assert found == ["check_file_edited", "failure_ignored"]
    assert kinds("scripts/other.sh", before, after, [CheckSpec("sh scripts/check.sh")]) == []


def test_a_file_the_check_only_reads_is_the_work_not_the_checks_own() -> None:
    before, after = "x = 1\n", "x = 2\n"
    assert kinds("app.py", before, after, [CheckSpec("ruff check app.py")]) == []
    assert kinds("app.py", before, after, [CheckSpec("grep -q 2 app.py")]) == []
    assert kinds("tools/lint.py", before, after, [CheckSpec("python tools/lint.py")]) == [
        "check_file_edited"]
    assert kinds("tools/lint.py", before, after, [CheckSpec("python -m tools.lint")]) == []
    assert kinds("check", before, after, [CheckSpec("./check --all")]) == ["check_file_edited"]


def test_the_detected_source_losing_its_command_is_flagged() -> None:
    before = "jobs:\n  test:\n    steps:\n      - run: pytest -q\n"
    after = "jobs:\n  test:\n    steps:\n      - run: pytest -q tests/test_easy.py\n"
    found = kinds(".github/workflows/ci.yml", before, after,
                  [CheckSpec("pytest -q", ".github/workflows/ci.yml")])
    assert found == []  # the command text is still there: `pytest -q` is a prefix
    gone = kinds(".github/workflows/ci.yml", before, before.replace("pytest -q", "true"),
                 [CheckSpec("pytest -q", ".github/workflows/ci.yml")])
    assert gone == ["check_command_changed"]


def test_pytest_configuration_changes_are_flagged_but_not_other_pyproject_edits() -> None:
    before = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    deselect = before.replace('addopts = "-q"', 'addopts = "-q --deselect tests/test_a.py"')
    assert kinds("pyproject.toml", before, deselect) == ["runner_config"]
    deps = before.replace('name = "x"', 'name = "x"\ndependencies = ["attrs"]')
    assert kinds("pyproject.toml", before, deps) == []


def test_a_pytest_hook_that_decides_the_outcome_is_flagged() -> None:
    hook = ("import pytest\n\n\ndef pytest_sessionfinish(session, exitstatus):\n"
            "    session.exitstatus = 0\n")
    assert kinds("conftest.py", None, hook) == ["runner_config"]
    assert kinds("tests/conftest.py", "import pytest\n", hook) == ["runner_config"]
    fixture = "import pytest\n\n\n@pytest.fixture\ndef calc():\n    return 1\n"
    assert kinds("tests/conftest.py", "import pytest\n", fixture) == []


def test_a_test_file_that_exits_the_process_is_flagged() -> None:
    exits = PY_BEFORE.replace("from app import add\n", "from app import add\nimport os\n"
                                                       "os._exit(0)\n")
    assert kinds("tests/test_app.py", PY_BEFORE, exits) == ["failure_ignored"]
    js = JS_BEFORE.replace('import { add } from "./add";\n',
                           'import { add } from "./add";\nprocess.exit(0);\n')
    assert kinds("src/add.test.ts", JS_BEFORE, js) == ["failure_ignored"]


def test_tox_and_nox_definitions_are_the_checks_own_files() -> None:
    before = "[testenv]\ncommands = pytest -q\n"
    after = "[testenv]\ncommands = pytest -q || true\n"
    assert kinds("tox.ini", before, after, [CheckSpec("tox -e py")]) == [
        "check_file_edited", "failure_ignored"]
    nox_before = "import nox\n\n@nox.session\ndef tests(s):\n    s.run('pytest')\n"
    nox_after = nox_before.replace("s.run('pytest')", "s.run('pytest', success_codes=[0, 1])")
    assert kinds("noxfile.py", nox_before, nox_after, [CheckSpec("nox -s tests")]) == [
        "check_file_edited"]
    assert kinds("noxfile.py", nox_before, nox_after, [CheckSpec("pytest -q")]) == []
