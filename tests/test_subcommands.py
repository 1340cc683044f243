"""`valarmind init|map|review` headless, with no model configured (offline mode)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def valarmind(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valarmind_tui", *args], cwd=cwd,
                          capture_output=True, text=True, env=dict(os.environ), timeout=120)


def test_init_shows_diff_and_writes_only_with_yes(git_repo: Path) -> None:
    (git_repo / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["httpx>=0.27"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    out = valarmind("init", cwd=git_repo)
    assert out.returncode == 2, "no terminal to ask in: --yes is needed"
    assert "+## Stack" in out.stdout or "+## Objective" in out.stdout
    last = out.stdout.strip().splitlines()[-1]
    assert "not written" in last and "--yes" in last, "the outcome is the last line"
    assert not (git_repo / "VALARMIND.md").exists()

    out = valarmind("init", "--yes", cwd=git_repo)
    assert out.returncode == 0, out.stderr
    text = (git_repo / "VALARMIND.md").read_text()
    assert "draft" in text.lower()  # no model: marked as a deterministic draft
    assert "httpx" in text

    out = valarmind("init", "--yes", cwd=git_repo)
    assert "already up to date" in out.stdout


def test_map_json_lists_definitions(git_repo: Path) -> None:
    (git_repo / "lib.py").write_text("from app import greet\n\n\ndef welcome():\n"
                                     "    return greet('you')\n")
    out = valarmind("map", "--json", "--tokens", "512", cwd=git_repo)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    names = {(r["file"], r["name"]) for r in data["ranked"]}
    assert ("app.py", "greet") in names and ("lib.py", "welcome") in names


def test_review_json_reports_static_findings_offline(git_repo: Path) -> None:
    (git_repo / "app.py").write_text("import os\n\n\ndef greet(name):\n    return 'Hello ' + nam\n")
    out = valarmind("review", "--json", cwd=git_repo)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["model_ran"] is False
    where = {(f["file"], f.get("line")) for f in report["findings"]}  # file-level: no line
    assert ("app.py", 5) in where  # undefined name `nam`
    assert any("model" in note for note in report["notes"])


def test_init_in_a_terminal_asks_shows_the_diff_on_request_and_writes_on_yes(
        git_repo: Path) -> None:
    """Its help promised `--yes  write without asking`, and it never asked."""
    from tests.ui.test_tmux_e2e import Tmux

    tmux = Tmux(git_repo, dict(os.environ))
    tmux.start([sys.executable, "-m", "valarmind_tui", "init"])
    try:
        tmux.wait(lambda: "Write it? [y/N, d: show the diff]" in tmux.screen(), 60, "the question")
        assert "write VALARMIND.md: +" in tmux.screen()
        tmux.type("d")
        tmux.key("Enter")
        tmux.wait(lambda: "+<!-- /valarmind:generated -->" in tmux.screen(), 10, "the diff")
        tmux.type("y")
        tmux.key("Enter")
        tmux.wait(lambda: (git_repo / "VALARMIND.md").exists(), 20, "VALARMIND.md written")
    finally:
        tmux.stop()


def test_a_task_as_the_first_argument_runs_headless_without_a_terminal(git_repo: Path) -> None:
    """`valarmind "fix the bug"` failed with "invalid choice"; a typo of a subcommand still
    names the subcommands."""
    out = valarmind("fix", "the", "bug", cwd=git_repo)
    assert "invalid choice" not in out.stderr
    assert "valarmind init" in out.stderr and "--model NAME" in out.stderr  # headless advice
    assert "/model" not in out.stderr
    typo = valarmind("reveiw", cwd=git_repo)
    assert typo.returncode == 2 and "review" in typo.stderr


def test_sessions_name_an_offline_session_by_its_first_prompt(git_repo: Path) -> None:
    """Prompts typed with no model configured left "(no prompt)" in `valarmind sessions`."""
    plain = subprocess.run([sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
                           input="what does greet do?\n/quit\n", capture_output=True,
                           text=True, env=dict(os.environ), timeout=120)
    assert plain.returncode == 0, plain.stderr
    listed = valarmind("sessions", cwd=git_repo)
    assert "what does greet do?" in listed.stdout and "(no prompt)" not in listed.stdout


def test_a_trusted_folder_with_a_broken_config_still_starts_and_says_the_way_out(
        git_repo: Path) -> None:
    """It exited 2 on every start, and the message did not mention `valarmind trust --revoke`."""
    (git_repo / ".valarmind").mkdir()
    (git_repo / ".valarmind" / "config.toml").write_text('max_turns = "many"\n')
    assert valarmind("trust", cwd=git_repo).returncode == 0
    plain = subprocess.run([sys.executable, "-m", "valarmind_tui", "--plain"], cwd=git_repo,
                           input="/cost\n/quit\n", capture_output=True, text=True,
                           env=dict(os.environ), timeout=120)
    assert plain.returncode == 0, plain.stderr
    said = plain.stdout + plain.stderr
    assert ".valarmind/config.toml:1" in said and "valarmind trust --revoke" in said
    assert "Tokens: 0 in" in plain.stdout  # the session works without that config
