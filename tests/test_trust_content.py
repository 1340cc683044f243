"""Trust of content: what is recorded when a folder is trusted, and what a later change does.

The attacks (a change after trust runs nothing) are in tests/security/test_trust_content.py;
these are the person's side: the plain REPL's question, ValarMind's own edits, the record.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.test_repository_config import trust, valarmind
from tests.security.test_trust_content import plugin, told
from valarmind_tui.core.visible_text import visible
from valarmind_tui.faces.repl.plain import ask_trust
from valarmind_tui.session.wiring import _remember
from valarmind_tui.settings.trust import content as trust_content
from valarmind_tui.settings.trust.content import fingerprint
from valarmind_tui.settings.trust.decision import CHANGED, decide, remember, remembered
from valarmind_tui.settings.trust.display import mask_secrets
from valarmind_tui.settings.trust.record import record_path


def _config(repo: Path, text: str) -> None:
    (repo / ".valarmind").mkdir(exist_ok=True)
    (repo / ".valarmind" / "config.toml").write_text(text)


def test_the_plain_repl_shows_the_change_and_yes_trusts_it(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(git_repo, "max_turns = 40\n")
    remember(git_repo, True)
    _config(git_repo, "max_turns = 40\n[[hooks.SessionStart]]\n")
    asked: list[str] = []
    assert ask_trust(git_repo, read=lambda q: asked.append(q) or "y") is True
    out = capsys.readouterr().out
    assert "changed: .valarmind/config.toml" in out and "+[[hooks.SessionStart]]" in out
    assert asked == ["Trust it as it is now? [y/N] "]
    assert decide(git_repo).trusted and ask_trust(git_repo, read=lambda q: "n") is None


def test_the_plain_repl_skips_a_change_on_no_and_asks_again(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(git_repo, "max_turns = 40\n")
    remember(git_repo, True)
    _config(git_repo, "max_turns = 41\n")
    assert ask_trust(git_repo, read=lambda q: "n") is False
    assert "asked again" in capsys.readouterr().out
    assert remembered(git_repo) is True and decide(git_repo).how == CHANGED


def test_an_allow_rule_kept_for_the_project_is_no_change(git_repo: Path) -> None:
    _config(git_repo, "max_turns = 40\n")
    remember(git_repo, True)
    _remember(git_repo, "bash(make test)")
    assert "make test" in (git_repo / ".valarmind" / "config.toml").read_text()
    assert decide(git_repo).trusted


def test_an_allow_rule_does_not_bless_an_earlier_change(git_repo: Path) -> None:
    _config(git_repo, "max_turns = 40\n")
    remember(git_repo, True)
    (git_repo / "plugins").mkdir()
    (git_repo / "plugins" / "x.py").write_text("import os\n")
    _remember(git_repo, "bash(make test)")
    decision = decide(git_repo)
    assert decision.how == CHANGED and decision.changes is not None
    assert decision.changes.added == ("plugins/x.py",)


def test_revoking_drops_the_record(git_repo: Path) -> None:
    _config(git_repo, "max_turns = 40\n")
    remember(git_repo, True)
    assert record_path(git_repo).exists()
    assert stat.S_IMODE(record_path(git_repo).stat().st_mode) == 0o600
    remember(git_repo, False)
    assert not record_path(git_repo).exists()


def test_personal_notes_and_hook_samples_are_not_configuration(git_repo: Path) -> None:
    _config(git_repo, "max_turns = 40\n")
    (git_repo / ".valarmind" / "local.md").write_text("my notes\n")
    (git_repo / ".claude").mkdir()
    (git_repo / ".claude" / "statusline.sh").write_text("echo hi\n")  # Claude's alone
    names = set(fingerprint(git_repo).digests)
    assert names == {".valarmind/config.toml"}  # .git/hooks/*.sample never run


def test_claudes_settings_files_are_configuration(git_repo: Path) -> None:
    """Their hooks run and their allow rules load in a trusted folder (setup.claude_settings);
    a repository can commit a settings.local.json as well as a settings.json."""
    (git_repo / ".claude" / "hooks").mkdir(parents=True)
    for name in ("settings.json", "settings.local.json", "hooks/format.sh"):
        (git_repo / ".claude" / name).write_text("{}\n")
    assert set(fingerprint(git_repo).digests) == {
        ".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/format.sh"}


def test_the_trust_command_names_what_it_trusts(git_repo: Path) -> None:
    _config(git_repo, "max_turns = 40\n")
    run = [sys.executable, "-m", "valarmind_tui", "trust", "--cwd", str(git_repo)]
    subprocess.run(run, check=True, capture_output=True, env=dict(os.environ))
    _config(git_repo, "max_turns = 41\n")
    out = subprocess.run(run, check=True, capture_output=True, text=True,
                         env=dict(os.environ)).stdout
    assert "changed: .valarmind/config.toml" in out and "+max_turns = 41" in out
    assert "trusted as it is now" in out and decide(git_repo).trusted


def test_a_folder_too_large_to_fingerprint_never_loads_as_trusted(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trust_content, "MAX_BYTES", 100)
    (git_repo / "plugins").mkdir()
    (git_repo / "plugins" / "a.py").write_text("A = 1\n")
    (git_repo / "plugins" / "b.py").write_text("#" * 200 + "\n")  # what lies past the cap
    remember(git_repo, True)
    decision = decide(git_repo)
    assert decision.how == CHANGED and decision.changes is not None
    assert "too large to fingerprint" in decision.changes.diff


def test_masking_keeps_the_shape() -> None:
    text = ('{"env": {"GITHUB_TOKEN": "ghp_x", "PATH": "/bin"}}\n'
            'url = "https://me:hunter2@example.com/x"\napi_key = abc123\n')
    masked = mask_secrets(text)
    assert "ghp_x" not in masked and "hunter2" not in masked and "abc123" not in masked
    assert '"PATH": "/bin"' in masked and "example.com/x" in masked


def test_visible_escapes_what_a_terminal_would_obey() -> None:
    assert visible("a\x1b[2K\rb\u202ec\x07\td\n") == "a␛[2K␍b<U+202E>c␇\td\n"


def test_what_the_person_trusted_does_load(git_repo: Path, tmp_path: Path) -> None:
    """The other side of the attacks (tests/security/test_trust_content.py): a plugin the
    person trusted runs (so the markers' absence there is the content check's doing), with
    no line about a change."""
    marker = tmp_path / "plugin-ran"
    (git_repo / "plugins").mkdir()
    (git_repo / "plugins" / "x.py").write_text(plugin(marker))
    trust(git_repo)
    out = valarmind(git_repo, "-p", "/help")
    assert marker.exists(), out.stderr
    assert "changed since you trusted it" not in out.stderr


def test_trusting_again_loads_the_change(git_repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "plugin-ran"
    (git_repo / "plugins").mkdir()
    (git_repo / "plugins" / "fine.py").write_text("VALUE = 1\n")
    trust(git_repo)
    (git_repo / "plugins" / "x.py").write_text(plugin(marker))
    assert not marker.exists() and told(valarmind(git_repo, "-p", "/help"), "plugins/x.py")
    trust(git_repo)
    out = valarmind(git_repo, "-p", "/help")
    assert marker.exists(), out.stderr
    assert "changed since you trusted it" not in out.stderr


def test_the_repl_remembers_nothing_when_the_question_is_left_empty(git_repo: Path) -> None:
    """Enter recorded "untrusted" forever; now it skips the configuration this time only."""
    (git_repo / ".mcp.json").write_text('{"mcpServers": {}}')
    assert ask_trust(git_repo, read=lambda q: "") is False
    assert remembered(git_repo) is None
    assert ask_trust(git_repo, read=lambda q: "n") is False
    assert remembered(git_repo) is False
