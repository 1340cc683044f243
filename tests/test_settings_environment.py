"""VALARMIND_* variables read without pydantic-settings' import unless one names a setting
(settings/environment.py): the same values, the same order (flags over the environment over
the files, tables merged key by key)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_user_config
from valarmind_tui.settings.config import load_settings


def test_flags_over_environment_over_files_tables_merged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_user_config('model = "file/m"\napi_base = "http://file"\n'
                      '[aliases]\nfast = "file/fast"\n'
                      "[budget]\nsession_cost_usd = 5.0\nprompt_turns = 7\n")
    monkeypatch.setenv("VALARMIND_MODEL", "env/m")
    monkeypatch.setenv("valarmind_api_base", "http://env")  # any case, as before
    monkeypatch.setenv("VALARMIND_ALIASES", '{"smart": "env/smart"}')  # JSON for a table
    monkeypatch.setenv("VALARMIND_BUDGET__SESSION_COST_USD", "2.5")  # one key of a table
    settings = load_settings(tmp_path, model="flag/m")
    assert settings.model == "flag/m"
    assert settings.api_base == "http://env"
    assert settings.aliases == {"fast": "file/fast", "smart": "env/smart"}
    assert (settings.budget.session_cost_usd, settings.budget.prompt_turns) == (2.5, 7)
    assert settings.lsp.enabled is False  # the test suite's VALARMIND_LSP__ENABLED=0


def test_a_bad_value_in_the_environment_is_still_a_config_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from valarmind_tui.core.errors import ConfigError

    monkeypatch.setenv("VALARMIND_MAX_TURNS", "many")
    with pytest.raises(ConfigError, match="VALARMIND_MAX_TURNS"):
        load_settings(tmp_path)


def _loads_pydantic_settings(tmp_path: Path, env: dict[str, str]) -> bool:
    code = ("import sys; from pathlib import Path; "
            "from valarmind_tui.settings.config import load_settings; "
            f"s = load_settings(Path({str(tmp_path)!r})); "
            "print(s.model, 'pydantic_settings' in sys.modules)")
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("VALARMIND_")}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    model, loaded = out.stdout.split()
    assert model == env.get("VALARMIND_MODEL", "None")
    return loaded == "True"


def test_pydantic_settings_is_imported_only_when_a_variable_names_a_setting(
        tmp_path: Path) -> None:
    assert not _loads_pydantic_settings(tmp_path, {"VALARMIND_MODEL_FD": "3"})  # no setting
    assert _loads_pydantic_settings(tmp_path, {"VALARMIND_MODEL": "env/m"})
