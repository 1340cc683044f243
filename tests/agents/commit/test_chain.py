"""/commit on real git repositories: check → confirm → message → commit (→ push)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agents.commit.conftest import (
    MAKE_LINT_FAILS,
    approved,
    declined,
    executable,
    git,
    head_subject,
)
from tests.fakes.model_server import ScriptedTurn
from valarmind_tui.agents.commit.chain import CommitOutcome
from valarmind_tui.agents.commit.git import StagedFile
from valarmind_tui.agents.commit.message import files_message

PRE_COMMIT_FAILS = "#!/bin/sh\necho 'pre-commit: trailing whitespace in util.py' >&2\nexit 1\n"


def marker_hook(repo: Path) -> Path:
    """A pre-commit hook that leaves a file behind when it runs."""
    marker = repo.parent / "hook-ran"
    executable(repo / ".git" / "hooks" / "pre-commit", f"#!/bin/sh\ntouch '{marker}'\n")
    return marker


async def test_the_chain_passes_and_commits_with_the_models_message(live, fake_model) -> None:
    fake_model.script(approved(), ScriptedTurn(text="feat(util): add farewell"))
    run = live()
    before = git(run.repo, "rev-parse", "HEAD").strip()
    result = await run.session.run_command("/commit")
    outcome: CommitOutcome = result.data
    assert result.ok, result.text
    assert outcome.status == "done"
    assert head_subject(run.repo) == "feat(util): add farewell"
    assert git(run.repo, "rev-parse", "HEAD~1").strip() == before
    assert git(run.repo, "show", "--name-only", "--format=", "HEAD").split() == ["util.py"]
    assert run.steps() == [("check", "passed"), ("confirm", "passed"), ("message", "passed"),
                           ("commit", "passed")]
    check = outcome.steps[0]
    assert [c["command"] for c in check.data["commands"]] == ["make lint", "make test"]
    assert outcome.steps[1].detail.startswith("CONFIRMED")
    assert outcome.drafted_by == "model"
    assert outcome.commit == git(run.repo, "rev-parse", "--short", "HEAD").strip()
    # the review agent saw the staged diff, and so did the message writer
    review_prompt = str(fake_model.requests[0]["messages"])
    assert "+def farewell(name):" in review_prompt and "Review the staged changes" in review_prompt
    assert "+def farewell(name):" in str(fake_model.requests[1]["messages"])
    assert f"## Commit (committed {outcome.commit})" in result.text
    await run.session.close()


async def test_a_failing_lint_stops_at_check_with_its_output(live, fake_model, repo) -> None:
    (repo / "Makefile").write_text(MAKE_LINT_FAILS)
    git(repo, "add", "Makefile")
    run = live()
    before = git(repo, "rev-parse", "HEAD").strip()
    result = await run.session.run_command("/commit")
    assert not result.ok
    assert result.data.status == "rejected"
    assert run.steps() == [("check", "failed")]
    step = result.data.steps[0]
    assert step.exit_code == 2  # make's own code for a failed recipe
    assert step.detail == "`make lint` exited 2"
    assert "F821 undefined name greet2" in step.output
    assert "F821 undefined name greet2" in result.text
    assert git(repo, "rev-parse", "HEAD").strip() == before
    assert fake_model.requests == []  # neither review nor message was asked for
    await run.session.close()


async def test_a_declined_review_stops_at_confirm_with_its_findings(live, fake_model, repo):
    fake_model.script(declined())
    run = live()
    before = git(repo, "rev-parse", "HEAD").strip()
    result = await run.session.run_command("/commit")
    assert not result.ok and result.data.status == "rejected"
    assert run.steps() == [("check", "passed"), ("confirm", "failed")]
    confirm = result.data.steps[1]
    assert confirm.exit_code == 1
    assert confirm.data["verdict"] == "DECLINED"
    assert confirm.detail.startswith("DECLINED: 1 blocking finding(s)")
    assert "[major] util.py:2 farewell drops the comma" in result.text
    assert git(repo, "rev-parse", "HEAD").strip() == before
    assert len(fake_model.requests) == 1  # no message was written for a declined change
    await run.session.close()


async def test_a_staged_secret_is_declined_though_the_model_approves(live, fake_model, repo):
    from tests.agents.review.test_checks import AWS_KEY

    (repo / "settings.py").write_text(f'AWS_KEY = "{AWS_KEY}"\n')
    git(repo, "add", "settings.py")
    fake_model.script(approved())
    run = live()
    result = await run.session.run_command("/commit")
    assert result.data.status == "rejected"
    assert run.steps()[-1] == ("confirm", "failed")
    assert "[critical] settings.py:1 Possible secret in the change: AWS Access Key" in result.text
    assert AWS_KEY not in result.text
    assert AWS_KEY not in str(fake_model.requests)  # scrubbed before the model saw the diff
    await run.session.close()


async def test_a_failing_commit_hook_stops_a_trusted_project_at_commit(live, fake_model, repo):
    executable(repo / ".git" / "hooks" / "pre-commit", PRE_COMMIT_FAILS)
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    run = live(trusted=True)
    before = git(repo, "rev-parse", "HEAD").strip()
    result = await run.session.run_command("/commit")
    assert not result.ok and result.data.status == "failed"
    assert run.steps()[-1] == ("commit", "failed")
    commit = result.data.steps[-1]
    assert commit.exit_code == 1
    assert "pre-commit: trailing whitespace in util.py" in commit.output
    assert "pre-commit: trailing whitespace in util.py" in result.text
    assert git(repo, "rev-parse", "HEAD").strip() == before
    assert "util.py" in git(repo, "diff", "--cached", "--name-only")  # still staged
    await run.session.close()


async def test_a_trusted_projects_hook_runs(live, fake_model, repo) -> None:
    marker = marker_hook(repo)
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    run = live(trusted=True)
    result = await run.session.run_command("/commit")
    assert result.ok, result.text
    assert marker.exists()
    assert result.data.steps[-1].data == {"hooks_run": True}
    await run.session.close()


async def test_an_untrusted_projects_hooks_are_skipped_and_said(live, fake_model, repo) -> None:
    marker = marker_hook(repo)
    executable(repo / ".git" / "hooks" / "commit-msg", PRE_COMMIT_FAILS)
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    run = live(trusted=False)
    result = await run.session.run_command("/commit")
    assert result.ok, result.text
    assert not marker.exists()
    assert head_subject(repo) == "feat: add farewell"
    commit = result.data.steps[-1]
    assert commit.data == {"hooks_run": False}
    assert "not trusted, so its git hooks were not run" in commit.detail
    assert "git hooks were not run" in result.text
    await run.session.close()


async def test_push_sends_the_commit_to_the_upstream(live, fake_model, repo, tmp_path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    run = live()
    result = await run.session.run_command("/commit --push")
    assert result.ok, result.text
    assert run.steps()[-1] == ("push", "passed")
    assert result.data.steps[-1].detail == "pushed to origin main"
    pushed = git(remote, "log", "-1", "--format=%s", "main").strip()
    assert pushed == "feat: add farewell"
    await run.session.close()


async def test_push_without_an_upstream_is_reported(live, fake_model, repo) -> None:
    fake_model.script(approved(), ScriptedTurn(text="feat: add farewell"))
    run = live()
    result = await run.session.run_command("/commit --push")
    assert not result.ok and result.data.status == "failed"
    assert head_subject(repo) == "feat: add farewell"  # the commit stands
    assert run.steps()[-2:] == [("commit", "passed"), ("push", "failed")]
    assert "has no upstream" in result.data.steps[-1].detail
    await run.session.close()


async def test_nothing_staged_is_refused_before_any_step(live, fake_model, repo) -> None:
    git(repo, "reset", "-q")
    (repo / "app.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    run = live()
    result = await run.session.run_command("/commit")
    assert not result.ok
    assert result.text.startswith("nothing staged: stage changes with `git add`, or pass --all")
    assert run.steps() == []
    # --all stages the change to the tracked app.py, not the untracked util.py
    fake_model.script(approved(), ScriptedTurn(text="fix: greet says hi"))
    result = await run.session.run_command("/commit --all")
    assert result.ok, result.text
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]
    assert "util.py" in git(repo, "status", "--porcelain")
    await run.session.close()


async def test_without_a_model_the_review_does_not_run_and_the_chain_stops(live, repo) -> None:
    run = live(model=False)
    before = git(repo, "rev-parse", "HEAD").strip()
    result = await run.session.run_command("/commit")
    assert not result.ok and result.data.status == "unverified"
    assert run.steps() == [("check", "passed"), ("confirm", "not_run")]
    assert "pass --no-review" in result.text
    assert git(repo, "rev-parse", "HEAD").strip() == before
    await run.session.close()


async def test_no_review_commits_with_a_message_drafted_from_the_files(live, repo) -> None:
    run = live(model=False)
    result = await run.session.run_command("/commit --no-review")
    assert result.ok, result.text
    assert run.steps() == [("check", "passed"), ("confirm", "skipped"), ("message", "passed"),
                           ("commit", "passed")]
    assert head_subject(repo) == "feat: add util.py\n\n- added: util.py"
    assert result.data.drafted_by == "files"
    assert "drafted from the changed files without a model" in result.text
    await run.session.close()


async def test_a_message_given_with_m_reaches_git_as_text(live, repo) -> None:
    run = live(model=False)
    result = await run.session.run_command("/commit --no-review -m '--amend --no-verify'")
    assert result.ok, result.text
    assert head_subject(repo) == "--amend --no-verify"
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "3"  # a new commit, no amend
    await run.session.close()


def test_the_drafted_message_follows_what_changed() -> None:
    assert files_message([StagedFile("M", "docs/guide.md")]).startswith("docs(docs): update")
    assert files_message([StagedFile("A", "tests/test_a.py"), StagedFile("M", "tests/b.py")]
                         ).startswith("test(tests): update test_a.py, b.py")
    many = [StagedFile("M", f"src/m{i}.py") for i in range(5)]
    assert files_message(many).splitlines()[0] == "chore(src): update 5 files"
    assert files_message([StagedFile("D", "old.py")]).splitlines()[0] == "chore: remove old.py"


async def test_a_model_message_that_is_not_conventional_is_replaced(live, fake_model, repo):
    fake_model.script(approved(), ScriptedTurn(text="Sure! Here is your commit message."))
    run = live()
    result = await run.session.run_command("/commit")
    assert result.ok, result.text
    assert head_subject(repo).startswith("feat: add util.py")
    assert "the model's answer was not a conventional commit" in result.data.steps[2].detail
    await run.session.close()


async def test_the_check_commands_run_in_the_sandbox(live, fake_model, repo: Path) -> None:
    """A check cannot plant the git hook a trusted commit would then run: .git/hooks is
    read-only in the sandbox, so the check fails and nothing is committed."""
    box = live().session.sandbox
    if not box.active:
        pytest.skip(f"bubblewrap cannot run on this machine: {box.reason}")
    (repo / "Makefile").write_text("lint:\n\techo 'touch /tmp/pwned' > .git/hooks/pre-commit\n")
    git(repo, "add", "Makefile")
    run = live(trusted=True)
    result = await run.session.run_command("/commit")
    assert run.steps() == [("check", "failed")]
    assert "Read-only file system" in result.data.steps[0].output
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    await run.session.close()


async def test_an_untrusted_repositorys_signing_program_is_not_run(live, repo) -> None:
    ran = repo.parent / "signer-ran"
    signer = executable(repo.parent / "signer", f"#!/bin/sh\ntouch '{ran}'\nexit 1\n")
    git(repo, "config", "commit.gpgsign", "true")
    git(repo, "config", "gpg.program", str(signer))
    run = live(model=False)
    result = await run.session.run_command("/commit --no-review -m 'feat: add farewell'")
    assert result.data.status == "failed"
    assert run.steps()[-1] == ("commit", "failed")
    assert "sets gpg.program (in .git/config): a program git would run" in result.text
    assert not ran.exists()
    assert head_subject(repo) == "make"
    await run.session.close()
