"""The first frame: drawn before Textual loads, replaced in place by Textual's, and the shell's
screen given back whether Textual ran or never started. In a real terminal (tmux)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import ScriptedTurn
from tests.ui.test_tmux_e2e import VALARMIND, Tmux
from valarmind_tui.faces.tui import skeleton
from valarmind_tui.faces.tui.theme_files import DEFAULT_THEME, shipped_themes_dir

pytestmark = pytest.mark.slow


@pytest.fixture
def terminal(git_repo: Path, fake_model: Any) -> Any:
    """tmux in a git repository, a model configured (no offline-mode notice on the screen)."""
    assert shutil.which("tmux"), "tmux is needed for the first-frame tests"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')
    env = {**os.environ, "TERM": "xterm-256color", "FAKE_API_KEY": "sk-test"}
    for name in ("COLORTERM", "COLUMNS", "LINES"):  # pytest may set COLUMNS and LINES
        env.pop(name, None)
    tmux = Tmux(git_repo, env)
    yield tmux
    tmux.stop()


def _coloured(tmux: Tmux) -> list[str]:
    return tmux._tmux("capture-pane", "-p", "-e", "-t", "e2e").splitlines()


def _painted_alone(tmux: Tmux, term: str) -> None:
    """The skeleton, painted by itself and left on screen."""
    code = ("from valarmind_tui.faces.tui import skeleton; import time; "
            "skeleton.paint(); time.sleep(60)")
    tmux.start(["env", f"TERM={term}", sys.executable, "-c", code])
    tmux.wait(lambda: "starting…" in tmux.screen(), 20, "the skeleton")


@pytest.mark.parametrize("term", ["xterm-256color", "xterm"])
def test_the_skeleton_is_the_apps_own_first_frame(terminal: Tmux, git_repo: Path,
                                                  term: str) -> None:
    """Every row but the status bar, colours included, is what Textual then draws: nothing
    jumps or changes tint when the app takes over (in 256 colours and in 16)."""
    _painted_alone(terminal, term)  # a pane's TERM is tmux's own unless the command sets it
    drawn, drawn_text = _coloured(terminal), terminal.screen().splitlines()
    terminal.stop()

    app = Tmux(git_repo, terminal.env)
    app.start(["env", f"TERM={term}", str(VALARMIND)])
    try:
        app.wait(lambda: "mode:" in app.screen(), 60, "the app's frame")
        shown, shown_text = _coloured(app), app.screen().splitlines()
    finally:
        app.key("C-c")
        app.key("C-c")
        app.stop()
    assert "Tasks" in drawn_text[1] and "No agents running." in drawn_text[5]
    assert drawn_text[-1].strip() == "○ starting…"
    assert drawn_text[:-1] == shown_text[:-1]
    assert drawn[:-2] == shown[:-2]  # the prompt's row: its cursor blinks in Textual's frame


def test_keys_typed_before_textual_loads_reach_the_prompt(terminal: Tmux) -> None:
    terminal.start([str(VALARMIND)])
    terminal.type("hello there")  # while Python starts: long before Textual reads keys
    terminal.wait(lambda: "mode:" in terminal.screen(), 60, "the app")
    terminal.wait(lambda: "hello there" in terminal.screen().splitlines()[-2], 10, "the keys")
    terminal.key("C-c")
    terminal.key("C-c")


def test_a_prompt_sent_before_textual_loads_is_sent(terminal: Tmux, fake_model: Any) -> None:
    """Enter typed before Textual reads keys is still Enter (not the newline a terminal's line
    mode would make of it): the prompt goes to the model."""
    fake_model.script(ScriptedTurn(text="Answered it."))
    terminal.start([str(VALARMIND)])
    terminal.wait(lambda: "starting…" in terminal.screen(), 20, "the first frame")
    terminal.type("say hi")  # on this machine, ~0.5 s before Textual starts reading keys
    terminal.key("Enter")
    terminal.wait(lambda: "Answered it." in terminal.screen(), 60, "the answer")
    assert "say hi" not in terminal.screen().splitlines()[-2]  # the prompt was emptied
    terminal.key("C-c")
    terminal.key("C-c")


def _modes_around(terminal: Tmux, tmp: Path, command: str) -> tuple[str, str]:
    """`stty -a` before and after `command` runs in the terminal."""
    terminal.start(["sh", "-c", f"stty -a > {tmp}/before; echo before-app; {command}; "
                                f"stty -a > {tmp}/after; echo after-app; sleep 60"])
    return str(tmp / "before"), str(tmp / "after")


def test_quitting_gives_the_shell_its_screen_and_modes_back(terminal: Tmux,
                                                            tmp_path: Path) -> None:
    before, after = _modes_around(terminal, tmp_path, str(VALARMIND))
    terminal.wait(lambda: "mode:" in terminal.screen(), 60, "the app")
    terminal.key("C-c")
    terminal.key("C-c")
    terminal.wait(lambda: "after-app" in terminal.screen(), 20, "the shell")
    screen = terminal.screen()
    assert "before-app" in screen and "Tasks" not in screen and "starting" not in screen
    assert Path(after).read_text() == Path(before).read_text()
    assert " echo " in f" {Path(after).read_text()} " and " icanon " in Path(after).read_text()


def test_a_launch_that_never_reaches_textual_gives_the_screen_back(terminal: Tmux,
                                                                   tmp_path: Path) -> None:
    """An error or Ctrl+C after the first frame and before Textual starts: the shell's screen
    comes back, with what it showed, and the terminal's modes."""
    code = ("from valarmind_tui.faces.tui import skeleton; import time; s = skeleton.paint(); "
            "time.sleep(1); s.abandon()")
    before, after = _modes_around(terminal, tmp_path, f"{sys.executable} -c '{code}'")
    terminal.wait(lambda: "after-app" in terminal.screen(), 20, "the shell")
    screen = terminal.screen()
    assert "before-app" in screen and "starting" not in screen and "Tasks" not in screen
    assert Path(after).read_text() == Path(before).read_text()


def test_with_stderr_elsewhere_no_frame_is_left_on_the_screen(terminal: Tmux,
                                                               tmp_path: Path) -> None:
    """Textual draws on stderr: where that is not the terminal, neither is the first frame drawn
    there (it would stay on screen, in the alternate screen, after ValarMind quit)."""
    before, after = _modes_around(terminal, tmp_path, f"{VALARMIND} 2>{tmp_path}/drawn")
    drawn = tmp_path / "drawn"
    terminal.wait(lambda: drawn.exists() and "mode:" in drawn.read_text(errors="replace"), 60,
                  "the app drawing into the file")
    assert "starting" not in terminal.screen()
    terminal.key("C-c")
    terminal.key("C-c")
    terminal.wait(lambda: "after-app" in terminal.screen(), 30, "the shell")
    assert "before-app" in terminal.screen()
    assert Path(after).read_text() == Path(before).read_text()


def test_no_frame_where_textual_would_not_draw_one(tmp_path: Path) -> None:
    with (tmp_path / "out").open("w") as not_a_terminal:
        assert skeleton.paint(not_a_terminal.fileno()) is None
    assert (tmp_path / "out").read_text() == ""


def test_colours_come_from_the_remembered_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    light = skeleton.theme_colours("valarmind-light")
    assert light is not None and light["background"] == "#fafafa" and light["primary"] == "#2e5cb8"
    user_themes = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "themes"
    user_themes.mkdir(parents=True)
    (user_themes / "mine.yaml").write_text(
        'name: mine\nprimary: "#112233"\nbackground: "#010203"\nvariables:\n'
        '  text-muted: "#aabbcc"\n')
    mine, default = skeleton.theme_colours("mine"), skeleton.theme_colours(DEFAULT_THEME)
    assert mine is not None and default is not None
    assert (mine["primary"], mine["background"], mine["text-muted"]) == (
        "#112233", "#010203", "#aabbcc")
    assert mine["surface"] == default["surface"]  # not in the file: the default theme's
    assert (shipped_themes_dir() / "valarmind-dark.yaml").is_file()


def test_the_frame_has_the_size_textual_will_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual lays out for shutil.get_terminal_size(), where COLUMNS and LINES win."""
    import shutil as shutil_module

    for columns, lines in (("132", "50"), ("90", ""), ("", ""), ("x", "30")):
        for name, value in (("COLUMNS", columns), ("LINES", lines)):
            if value:
                monkeypatch.setenv(name, value)
            else:
                monkeypatch.delenv(name, raising=False)
        want = tuple(shutil_module.get_terminal_size())
        assert skeleton._terminal_size(sys.__stdout__.fileno()) == want, (columns, lines)


@pytest.mark.parametrize("env", [
    {"TERM": "xterm-256color"}, {"TERM": "xterm-256color", "COLORTERM": "truecolor"},
    {"TERM": "xterm", "COLORTERM": "24bit"}, {"TERM": "xterm-kitty"}, {"TERM": "xterm"},
    {"TERM": "screen-16color"}, {"TERM": "xterm-256color", "TEXTUAL_COLOR_SYSTEM": "standard"},
    {"TERM": "xterm", "TEXTUAL_COLOR_SYSTEM": "truecolor"},
    {"TERM": "xterm-256color", "NO_COLOR": "1"},
])
def test_the_frame_is_drawn_only_in_the_colours_textual_will_use(
        env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.app import App

    for name in ("TERM", "COLORTERM", "TEXTUAL_COLOR_SYSTEM", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("textual.constants.COLOR_SYSTEM", env.get("TEXTUAL_COLOR_SYSTEM", "auto"))
    app = App()
    assert skeleton.colour_system() == (None if app.no_color else app.console.color_system)
