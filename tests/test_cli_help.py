"""`valarmind --help` describes each subcommand for a user (issue #17)."""

from __future__ import annotations

from valarmind_tui.cli.main import build_parser


def test_help_says_what_run_does() -> None:
    shown = " ".join(build_parser().format_help().split())
    assert "seed 000" not in shown
    assert "run one agent profile on files and write its answer to a file (for scripts)" in shown
