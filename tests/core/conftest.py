from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from valarmind_tui.config import Settings, load_settings


@pytest.fixture
def model_settings(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """Settings for a project root whose model is the fake server (OpenAI wire format)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")

    def make(root: Path, **flags: Any) -> Settings:
        return load_settings(
            root, model="openai/fake-model", api_base=fake_model.openai_base,
            api_key_env="FAKE_API_KEY", **flags,
        )

    return make
