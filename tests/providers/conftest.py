from __future__ import annotations

from collections.abc import Iterator

import pytest

from valarmind_tui.providers.process import client as model_process


@pytest.fixture(scope="module")
def model_child() -> Iterator[None]:
    """The model process, as the TUI starts it: one per test module (it imports litellm once)."""
    model_process.start()
    yield
    model_process.stop()
