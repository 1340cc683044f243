"""Theme files become Textual themes; broken ones are reported; the choice is remembered."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.faces.tui import theme_files, themes

SHIPPED = {"valarmind-dark", "valarmind-light", "valarmind-high-contrast"}


def test_shipped_themes_load() -> None:
    loaded = themes.load_themes(theme_files.shipped_themes_dir())
    assert loaded.errors == []
    by_name = {t.name: t for t in loaded.themes}
    assert set(by_name) == SHIPPED
    assert by_name["valarmind-light"].dark is False
    for theme in by_name.values():
        assert {"diff-added", "diff-removed", "text-muted"} <= set(theme.variables)


def test_broken_files_are_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text("name: mine\nprimary: '#112233'\n")
    (tmp_path / "bad-yaml.yaml").write_text("name: [unclosed\n")
    (tmp_path / "bad-colour.yaml").write_text("name: x\nprimary: not-a-colour\n")
    (tmp_path / "unknown.yml").write_text("name: y\nprimary: '#000000'\nsparkle: 3\n")
    loaded = themes.load_themes(theme_files.shipped_themes_dir(), tmp_path)
    assert {t.name for t in loaded.themes} == SHIPPED | {"mine"}
    assert len(loaded.errors) == 3
    joined = "\n".join(loaded.errors)
    assert "bad-yaml.yaml" in joined and "bad-colour.yaml" in joined
    assert "unknown.yml: unknown field(s) sparkle" in joined


def test_user_theme_overrides_shipped_name(tmp_path: Path) -> None:
    (tmp_path / "dark.yaml").write_text("name: valarmind-dark\nprimary: '#ff0000'\n")
    loaded = themes.load_themes(theme_files.shipped_themes_dir(), tmp_path)
    dark = next(t for t in loaded.themes if t.name == "valarmind-dark")
    assert dark.primary == "#ff0000"


def test_saved_theme_round_trip_keeps_other_keys() -> None:
    assert theme_files.saved_theme() is None
    path = themes.save_theme("valarmind-light")
    assert theme_files.saved_theme() == "valarmind-light"
    path.write_text(path.read_text() + "other = 1\n")
    themes.save_theme("valarmind-high-contrast")
    assert theme_files.saved_theme() == "valarmind-high-contrast"
    assert "other = 1" in path.read_text()
