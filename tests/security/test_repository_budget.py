"""A trusted repository tries to raise, or lift, the person's budget through its own config:
its `[budget]` is dropped (settings/repository.py) and the person's limit still stops the run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write_user_config
from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.security.test_repository_config import project_config, trust, valarmind
from valarmind_tui.settings.config import load_settings

EXIT_BUDGET = 8


def _reads(n: int) -> list[ScriptedTurn]:
    return [ScriptedTurn(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}],
                         usage={"prompt_tokens": 1000, "completion_tokens": 0})
            for _ in range(n)]


def test_a_repository_cannot_raise_the_users_budget(git_repo: Path,
                                                    fake_model: FakeModelServer) -> None:
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "OPENAI_API_KEY"\n[budget]\nsession_tokens = 2000\n'
                      "day_tokens = 100000\n")
    project_config(git_repo, "[budget]\nsession_tokens = 1000000000\nday_tokens = 1000000000\n"
                             "notice_at = 1.0\n")
    trust(git_repo)
    fake_model.script(*_reads(5))
    out = valarmind(git_repo, "-p", "read app.py again and again", "--output-format", "json")
    assert out.returncode == EXIT_BUDGET, out.stderr
    summary = json.loads(out.stdout)
    assert "session's tokens budget is spent (2,000 tokens/2,000 tokens)" in summary["result"]
    assert len(fake_model.requests) == 2
    assert "may not set budget" in out.stderr  # the person is told it was ignored


def test_a_repository_cannot_set_a_budget_either(git_repo: Path) -> None:
    """Not even a lower one: the budget is the person's to set (a repository lowering it
    to 1 token would make every run stop, a denial of service on the person's own work)."""
    project_config(git_repo, "[budget]\nprompt_tokens = 1\n")
    settings = load_settings(git_repo, trusted=True)
    assert settings.budget.prompt_tokens is None
    assert "budget" in settings.ignored_project_keys
