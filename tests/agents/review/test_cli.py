"""`valarmind review` as CI and pre-commit run it: a real subprocess in a real repository,
SARIF 2.1.0 checked for the fields code scanning reads, exit codes per --fail-on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.agents.review.conftest import CORE, write
from tests.agents.review.test_checks import AWS_KEY, DANGER, PASSWORD

WORKTREE = Path(__file__).resolve().parents[3]


def valarmind(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(WORKTREE)}
    return subprocess.run([sys.executable, "-m", "valarmind_tui", "review", *args], cwd=repo,
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def changed(project: Path) -> Path:
    """A rename that breaks three callers, a leaked key and eval/shell=True."""
    write(project, {"pkg/core.py": CORE.replace("def sympify(", "def to_expr("),
                    "pkg/tools.py": DANGER,
                    "pkg/settings.py": f'AWS_KEY = "{AWS_KEY}"\npassword = "{PASSWORD}"\n'})
    return project


def test_sarif_json_and_markdown_from_the_cli(changed: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "out" / "review.sarif"
    run = valarmind(changed, "--json", "--sarif", str(out_file))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    rules = {f.get("rule") for f in report["findings"]}
    assert {"impact:renamed", "S307", "S602", "secret:AWS Access Key"} <= rules
    text = out_file.read_text()
    for output in (run.stdout, text, valarmind(changed).stdout):
        assert AWS_KEY not in output and PASSWORD not in output
    log = json.loads(text)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    assert len(log["runs"]) == 1
    run0 = log["runs"][0]
    driver = run0["tool"]["driver"]
    assert driver["name"] == "valarmind-review"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) and all(
        r["shortDescription"]["text"] for r in driver["rules"])
    assert run0["results"]
    for result in run0["results"]:
        assert result["ruleId"] in rule_ids
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        for location in result["locations"]:
            physical = location["physicalLocation"]
            assert physical["artifactLocation"]["uri"]
            assert not Path(physical["artifactLocation"]["uri"]).is_absolute()
            assert isinstance(physical["region"]["startLine"], int)
            assert physical["region"]["startLine"] >= 1
    rename = next(r for r in run0["results"] if r["ruleId"] == "impact:renamed")
    assert rename["level"] == "error"
    assert rename["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/core.py"
    assert [loc["physicalLocation"]["artifactLocation"]["uri"]
            for loc in rename["relatedLocations"]] == ["pkg/user1.py", "pkg/user2.py",
                                                        "pkg/user3.py"]
    evaluated = next(r for r in run0["results"] if r["ruleId"] == "S307")
    assert evaluated["locations"][0]["physicalLocation"]["region"]["startLine"] == 6


@pytest.mark.parametrize(("threshold", "code"), [
    ("critical", 1), ("major", 1), ("minor", 1), ("info", 1), (None, 0)])
def test_fail_on_sets_the_exit_code(changed: Path, threshold: str | None, code: int) -> None:
    run = valarmind(changed, *(["--fail-on", threshold] if threshold else []))
    assert run.returncode == code, run.stderr
    assert "### critical" in run.stdout


def test_fail_on_passes_a_clean_change(project: Path) -> None:
    write(project, {"pkg/core.py": CORE + "\n\ndef extra(x=0):\n    return x\n",
                    "tests/test_core.py": "def test_extra():\n    assert True\n"})
    assert valarmind(project, "--fail-on", "info").returncode == 0
    # an untested change is only info: it fails under info, not under minor
    write(project, {"tests/test_core.py": "from pkg.core import compute\n\n\ndef test_compute():"
                                          "\n    assert compute(1, 2) == 3\n"})
    assert valarmind(project, "--fail-on", "minor").returncode == 0
    assert valarmind(project, "--fail-on", "info").returncode == 1


def test_a_bad_target_is_a_usage_error(project: Path) -> None:
    run = valarmind(project, "nope..main", "--fail-on", "info")
    assert run.returncode == 2 and "nope" in run.stderr


def test_pre_commit_hook_is_shipped() -> None:
    hooks = yaml.safe_load((WORKTREE / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "valarmind-review")
    assert hook["entry"].startswith("valarmind review --staged --fail-on")
    assert hook["language"] == "python" and hook["pass_filenames"] is False
