"""Tests may use only what the repository holds: a user's clone has no shared/ beside it."""

import contextlib
import os

from tests import conftest


def test_a_read_beside_the_repository_is_caught() -> None:
    sibling = conftest.REPO.parent / "a-folder-beside-the-clone" / "fixtures"
    with contextlib.suppress(OSError):
        open(sibling / "no-such-file.json")  # noqa: SIM115 - the attempt is what is recorded
    with contextlib.suppress(OSError):
        os.listdir(conftest.REPO.parent)
    caught = list(conftest._BESIDE_REPO)
    conftest._BESIDE_REPO.clear()  # this test's reads are the attack, not a failure
    assert str(sibling / "no-such-file.json") in caught
    assert str(conftest.REPO.parent) in caught


def test_reads_inside_the_repository_are_allowed() -> None:
    (conftest.REPO / "README.md").read_text()
    os.listdir(conftest.REPO / "tests")
    assert conftest._BESIDE_REPO == []


def test_the_provider_fixtures_live_in_the_repository() -> None:
    from tests.providers.test_wire_replay import CASES, FIXTURES

    assert FIXTURES.is_relative_to(conftest.REPO)
    assert len(CASES) >= 50
