"""The reviewers' tokens count in every face's totals: `-p --output-format json` as in /cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from tests.reviewers.conftest import reviewers_table, system_prompts, verdict
from tests.test_headless import model_flags, valarmind

pytestmark = pytest.mark.usefixtures("warm_runs")


def test_print_json_totals_include_the_reviewers_share(git_repo: Path, fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\nsandbox = "off"\n'
                      + reviewers_table("tool_approve"))
    (git_repo / ".env").write_text("TOKEN=hunter2hunter2\n")
    fake_model.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": ".env"}}],
         "usage": {"prompt_tokens": 1000, "completion_tokens": 50}},
        verdict("deny", "secrets are not part of the request",
                prompt_tokens=300, completion_tokens=20),
        {"text": "I may not read .env.", "usage": {"prompt_tokens": 1200,
                                                    "completion_tokens": 40}},
    )
    out = valarmind("-p", "what is in .env?", "--output-format", "json",
                    *model_flags(fake_model), cwd=git_repo, env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert system_prompts(fake_model)[1].startswith("You review a tool call")
    assert summary["reviewers"] == {"tool-approve": {
        "calls": 1, "prompt_tokens": 300, "completion_tokens": 20, "cost_usd": None}}
    assert summary["usage"]["prompt_tokens"] == 1000 + 300 + 1200
    assert summary["usage"]["completion_tokens"] == 50 + 20 + 40
    # the agent read the reviewer's denial, never the secret
    sent = json.dumps(fake_model.requests[2]["messages"])
    assert "Denied by the tool-approve reviewer: secrets are not part" in sent
    assert "hunter2" not in sent


def test_print_json_without_reviewers_has_an_empty_split(git_repo: Path,
                                                          fake_model: Any) -> None:
    write_user_config('api_key_env = "FAKE_API_KEY"\n')
    fake_model.script({"text": "Hello.", "usage": {"prompt_tokens": 10, "completion_tokens": 2}})
    out = valarmind("-p", "hi", "--output-format", "json", *model_flags(fake_model),
                    cwd=git_repo, env={"FAKE_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["reviewers"] == {}
    # fake-model has no price: unknown (null), never 0
    assert summary["usage"] == {"prompt_tokens": 10, "completion_tokens": 2, "cost_usd": None}
