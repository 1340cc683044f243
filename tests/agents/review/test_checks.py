"""Security rules, secrets, risk areas and untested changes on real repositories, and the
outputs (Markdown, JSON, SARIF) that must never carry a secret."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agents.review.conftest import commit, write
from valarmind_tui.agents.review.checks import added_lines, scrub
from valarmind_tui.agents.review.report import fails, sarif
from valarmind_tui.agents.review.runner import run_review

AWS_KEY = "AKIAZ3MXQ7RT5PLW2KVN"
GITHUB_TOKEN = "ghp_" + "Zq8wLmN3vB6xT1yR4uE7iO0pA2sD5fG9hJkK"
PASSWORD = "Tr0ub4dor&3-horse"
LEAK = (f'AWS_ACCESS_KEY_ID = "{AWS_KEY}"\n'
        f'password = "{PASSWORD}"\n'
        f'GITHUB = "{GITHUB_TOKEN}"\n')
DANGER = ("import subprocess\n\n\n"
          "def run(arg, x):\n"
          "    subprocess.run(x, shell=True)\n"
          "    return eval(arg)\n")


def by_rule(report) -> dict[str, list]:  # noqa: ANN001
    out: dict[str, list] = {}
    for f in report.findings:
        out.setdefault(f.rule or "", []).append(f)
    return out


async def test_leaked_keys_are_found_and_never_shown(project: Path) -> None:
    write(project, {"pkg/settings.py": LEAK})
    report = await run_review(project, [])
    secrets = sorted((f.line, f.rule) for f in report.findings if f.category == "secret")
    assert secrets == [(1, "secret:AWS Access Key"), (2, "secret:Secret Keyword"),
                       (3, "secret:GitHub Token")]
    assert all(f.severity == "critical" and f.source == "static:secrets"
               for f in report.findings if f.category == "secret")
    outputs = [report.to_markdown(), json.dumps(report.to_dict()), json.dumps(sarif(report))]
    for text in outputs:
        for value in (AWS_KEY, GITHUB_TOKEN, PASSWORD, AWS_KEY[4:12], PASSWORD[:8]):
            assert value not in text
    assert "AWS Access Key (value redacted, 20 characters)" in outputs[0]
    for value in (AWS_KEY, GITHUB_TOKEN, PASSWORD):  # nor in the diff a model would read
        assert value not in report.diff
    assert '+AWS_ACCESS_KEY_ID = "[secret redacted]"' in report.diff


async def test_secrets_only_in_added_lines(project: Path) -> None:
    write(project, {"pkg/settings.py": LEAK})
    commit(project, "an old leak")
    write(project, {"pkg/settings.py": LEAK + "DEBUG = True\n"})
    report = await run_review(project, [])
    assert [f for f in report.findings if f.category == "secret"] == []


async def test_eval_and_shell_true_are_critical(project: Path) -> None:
    write(project, {"pkg/tools.py": DANGER})
    rules = by_rule(await run_review(project, []))
    shell, evaluated = rules["S602"][0], rules["S307"][0]
    assert (shell.file, shell.line, shell.severity) == ("pkg/tools.py", 5, "critical")
    assert (evaluated.file, evaluated.line, evaluated.severity) == ("pkg/tools.py", 6, "critical")
    assert evaluated.suggested_fix and "ast.literal_eval" in evaluated.suggested_fix
    assert shell.source == "static:security" and shell.category == "security"


async def test_security_rules_ignore_the_projects_lint_config(project: Path) -> None:
    write(project, {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E"]\nignore = ["S"]\n'})
    commit(project, "lint config without security rules")
    write(project, {"pkg/tools.py": DANGER})
    assert "S307" in by_rule(await run_review(project, []))


async def test_old_dangerous_lines_are_not_reported_again(project: Path) -> None:
    write(project, {"pkg/tools.py": DANGER})
    commit(project, "old danger")
    write(project, {"pkg/tools.py": DANGER + "\n\nVERSION = 2\n"})
    rules = by_rule(await run_review(project, []))
    assert "S307" not in rules and "S602" not in rules


async def test_migration_ci_and_manifests_are_risk_areas(project: Path) -> None:
    write(project, {
        "app/migrations/0002_add_email.py": "def upgrade():\n    pass\n",
        ".github/workflows/ci.yml": "on: push\n",
        "requirements.txt": "requests==2.0\n",
        "pkg/login.py": "import hashlib\n\n\ndef check(p):\n    return hashlib.sha256(p)\n",
    })
    risks = {(f.file, f.rule) for f in (await run_review(project, [])).findings
             if f.category == "risk"}
    assert {("app/migrations/0002_add_email.py", "risk:migration"),
            (".github/workflows/ci.yml", "risk:ci"), ("requirements.txt", "risk:dependencies"),
            ("pkg/login.py", "risk:auth"), ("pkg/login.py", "risk:crypto")} <= risks


async def test_changed_code_without_a_test_change(project: Path) -> None:
    write(project, {"pkg/core.py": (project / "pkg/core.py").read_text() + "\nX = 1\n"})
    untested = [f for f in (await run_review(project, [])).findings if f.category == "tests"]
    assert [(f.file, f.severity, f.rule) for f in untested] == [
        ("pkg/core.py", "info", "tests:untouched")]
    write(project, {"tests/test_core.py": "def test_x():\n    assert True\n"})
    again = await run_review(project, [])
    assert [f for f in again.findings if f.category == "tests"] == []


async def test_markdown_groups_by_severity(project: Path) -> None:
    write(project, {"pkg/tools.py": DANGER})
    text = (await run_review(project, [])).to_markdown()
    assert text.index("### critical") < text.index("### info")
    assert "- **pkg/tools.py:6** `S307`" in text
    assert "  - fix: Use `ast.literal_eval`" in text


def test_added_lines_and_scrub() -> None:
    diff = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,3 @@\n a = 1\n"
            "-b = 2\n+b = 3\n+c = 4\n")
    assert added_lines(diff) == {"x.py": {2: "b = 3", 3: "c = 4"}}
    assert scrub("key=abcdef!", ["abcdef"]) == "key=[secret redacted]!"


def test_fail_on_thresholds() -> None:
    from valarmind_tui.agents.results import ReviewFinding

    minor = [ReviewFinding(severity="minor", file="a.py", message="m")]
    assert fails(minor, "minor") and fails(minor, "info")
    assert not fails(minor, "major") and not fails(minor, "critical") and not fails([], "info")


async def test_the_projects_linter_speaks_only_of_the_changed_lines(project: Path) -> None:
    """ruff's PLW1510 was reported on a line the change did not touch."""
    write(project, {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                    "pkg/tool.py": "import os\n\n\ndef one():\n    return 1\n"})
    commit(project, "an unused import, before this change")
    write(project, {"pkg/tool.py": "import os\nimport sys\n\n\ndef one():\n    return 1\n"})
    report = await run_review(project, [])
    ruff = [f for f in report.findings if f.source == "static:ruff"]
    assert [(f.file, f.line, f.rule) for f in ruff] == [("pkg/tool.py", 2, "F401")]
