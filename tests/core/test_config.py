"""Config: precedence of sources and errors that name file, line and key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from valarmind_tui.config import load_settings, remember_allow_rule
from valarmind_tui.errors import ConfigError
from valarmind_tui.user_dirs import user_config_dir


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_precedence_user_project_env_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(user_config_dir() / "config.toml", 'model = "user/m"\napi_base = "http://u"\n'
          'max_turns = 7\n[aliases]\nfast = "user/fast"\n')
    write(tmp_path / ".valarmind/config.toml", 'model = "project/m"\n[aliases]\nsmart = "p/s"\n')
    settings = load_settings(tmp_path)
    assert settings.model == "project/m"
    assert settings.api_base == "http://u"
    assert settings.max_turns == 7
    assert settings.aliases == {"fast": "user/fast", "smart": "p/s"}

    monkeypatch.setenv("VALARMIND_MODEL", "env/m")
    assert load_settings(tmp_path).model == "env/m"
    assert load_settings(tmp_path, model="flag/m").model == "flag/m"


def test_alias_and_agent_model_resolution(tmp_path: Path) -> None:
    write(tmp_path / ".valarmind/config.toml",
          'model = "fast"\n[aliases]\nfast = "openai/gpt-4.1-mini"\nsmart = "anthropic/opus"\n'
          '[agent_models]\nreview = "smart"\n')
    settings = load_settings(tmp_path)
    assert settings.resolve_model() == "openai/gpt-4.1-mini"
    assert settings.model_for_agent("review") == "anthropic/opus"
    assert settings.model_for_agent("search") == "openai/gpt-4.1-mini"


def test_bad_value_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(tmp_path / ".valarmind/config.toml",
                 'model = "x"\n\n[mcp.servers.git]\ncommand = "uvx"\nargs = "not-a-list"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    err = info.value
    assert err.file == str(path)
    assert err.line == 5
    assert err.key == "mcp.servers.git.args"
    assert f"{path}:5" in str(err)


def test_unknown_key_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / ".valarmind/config.toml", 'model = "x"\nmodle_typo = 3\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert (info.value.file, info.value.line, info.value.key) == (str(path), 2, "modle_typo")


def test_broken_toml_names_the_line(tmp_path: Path) -> None:
    path = write(user_config_dir() / "config.toml", 'model = "x"\napi_base = \n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert info.value.file == str(path)
    assert info.value.line == 2


def test_remember_allow_rule_keeps_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path / ".valarmind/config.toml",
                 '# my settings\nmodel = "x"\n\n[permissions]\nallow = ["read_file"]\n\n'
                 '[aliases]\nfast = "f"\n')
    remember_allow_rule(tmp_path, "bash(git status)")
    remember_allow_rule(tmp_path, "bash(git status)")
    text = path.read_text()
    assert text.startswith("# my settings\n")
    data = tomllib.loads(text)
    assert data["permissions"]["allow"] == ["read_file", "bash(git status)"]
    assert data["aliases"] == {"fast": "f"}
    fresh = tmp_path / "other"
    remember_allow_rule(fresh, "edit_file")
    assert load_settings(fresh).permissions.allow == ["edit_file"]
