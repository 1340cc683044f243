"""The first frame, drawn before Textual loads.

Importing Textual and the app, parsing its CSS and composing the screen takes 0.3-0.8 s; until
then the terminal would still show the shell. `paint()` draws the main screen's layout at once,
with bare escape codes and little imported (no Textual, no YAML): the sidebar's empty task list
and agent monitor, the prompt box and a status bar that says "starting…", in the remembered
theme's colours, on the alternate screen. Textual's first frame then replaces it in place: the
app's driver takes the screen over without entering the alternate screen again (ui.launch). If
Textual never starts, `abandon()` gives the shell its screen back. Keys typed meanwhile wait in
the terminal, in the modes Textual reads them in, and reach the prompt.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Any

from valarmind_tui.faces.tui.theme_files import DEFAULT_THEME, saved_theme, theme_paths

SIDEBAR_WIDTH = 36
SIDEBAR_MIN_WIDTH = 100
"""Below this many columns the sidebar folds away (ctrl+b shows it); ui.app lays out the same."""
ENTER_ALT_SCREEN = "\x1b[?1049h"
_LEAVE = "\x1b[0m\x1b[?25h\x1b[?1049l"
_COLOUR_KEYS = ("primary", "foreground", "background", "surface", "panel", "text-muted")
_HEX = re.compile(r"#[0-9a-fA-F]{6}")


class Skeleton:
    """A painted first frame; `taken_over` once Textual's driver owns the screen.
    `terminal_attributes` are the terminal's modes from before the frame (Textual restores
    them when it exits)."""

    def __init__(self, fd: int, terminal_attributes: list[Any] | None) -> None:
        self.fd = fd
        self.terminal_attributes = terminal_attributes
        self.taken_over = False

    def abandon(self) -> None:
        """Textual never started (an error, Ctrl+C): the shell's screen, cursor and terminal
        modes come back."""
        if self.taken_over:
            return
        self.taken_over = True
        with contextlib.suppress(OSError):
            os.write(self.fd, _LEAVE.encode())
        if self.terminal_attributes is not None:
            import termios

            with contextlib.suppress(termios.error):
                termios.tcsetattr(0, termios.TCSANOW, self.terminal_attributes)


def paint(fd: int = 2) -> Skeleton | None:
    """Draw the first frame on `fd`, where Textual's driver draws (stderr; it reads keys on
    stdin and lays out for stdout's size); None where that would not be the screen Textual takes
    over (one of them not a terminal, a dumb one, another Textual driver, Windows, too small)."""
    if os.name != "posix" or os.environ.get("TEXTUAL_DRIVER"):
        return None
    if os.environ.get("TERM", "dumb") in ("", "dumb"):
        return None
    if not all(os.isatty(n) for n in (fd, 0, 1)):
        return None
    system = colour_system()
    width, height = _terminal_size(1)
    if system is None or width < 20 or height < 6:
        return None
    colours = theme_colours(saved_theme() or DEFAULT_THEME)
    if colours is None:
        return None
    try:
        os.write(fd, frame(width, height, colours, system).encode())
    except OSError:
        return None
    return Skeleton(fd, _keys_as_textual_reads_them())


def _keys_as_textual_reads_them() -> list[Any] | None:
    """Put the keyboard in the modes Textual will (no echo, no line editing, Enter stays
    Enter), so keys typed before it reads them arrive as typed; Ctrl+C still interrupts. The
    modes from before, or None when they cannot be read."""
    import termios

    try:
        before = termios.tcgetattr(0)
        keys = termios.tcgetattr(0)
        keys[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
        keys[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        keys[6][termios.VMIN], keys[6][termios.VTIME] = 1, 0
        termios.tcsetattr(0, termios.TCSANOW, keys)
    except termios.error:
        return None
    return before


def frame(width: int, height: int, colours: dict[str, str], system: str = "truecolor") -> str:
    """The escape codes of the first frame at `width` x `height`."""
    foreground = {key: _sgr(38, colour, system) for key, colour in colours.items()}
    background = {key: _sgr(48, colour, system) for key, colour in colours.items()}
    fg, bg = foreground.__getitem__, background.__getitem__

    sidebar = width >= SIDEBAR_MIN_WIDTH
    chat = width - SIDEBAR_WIDTH if sidebar else width
    side_text = {1: ("Tasks", "\x1b[1m" + fg("primary")), 2: ("No tasks yet.", fg("text-muted")),
                 4: ("Agents", "\x1b[1m" + fg("primary")),
                 5: ("No agents running.", fg("text-muted"))}
    rows = []
    for row in range(height - 3):
        line = bg("background") + " " * chat
        if sidebar:
            text, style = side_text.get(row, ("", ""))
            line += (fg("panel") + bg("surface") + "▏\x1b[0m" + bg("surface") + " " + style + text
                     + "\x1b[0m" + bg("surface") + " " * (SIDEBAR_WIDTH - 2 - len(text)))
        rows.append(line + "\x1b[0m")
    edge = "\x1b[7m" + fg("primary") + bg("background") + "▊\x1b[0m"
    right = fg("primary") + bg("background") + "▎\x1b[0m"
    rows.append(edge + fg("primary") + bg("surface") + "▔" * (width - 2) + right)
    cursor = fg("background") + bg("foreground") + " "
    rows.append(edge + bg("surface") + " " + cursor + fg("foreground") + bg("surface")
                + " " * (width - 5) + "\x1b[39m " + right)
    status = " ○ starting…"
    rows.append(bg("panel") + fg("text-muted") + status + " " * (width - len(status)) + "\x1b[0m")
    screen = "".join(f"\x1b[{n};1H{line}" for n, line in enumerate(rows, start=1))
    return ENTER_ALT_SCREEN + "\x1b[?25l\x1b[?7l" + screen + "\x1b[?7h"


def theme_colours(name: str) -> dict[str, str] | None:
    """The colours the frame needs from theme `name`'s file (a shipped or the person's theme),
    the default theme's for anything it lacks; None when even those cannot be read. Only
    `key: "#rrggbb"` lines are read, so no YAML parser is imported."""
    themes: dict[str, dict[str, str]] = {}
    for path in theme_paths():
        found = _theme_fields(path)
        if found.get("name") in (name, DEFAULT_THEME):
            themes[found["name"]] = found
    chosen, default = themes.get(name, {}), themes.get(DEFAULT_THEME, {})
    colours = {key: chosen.get(key) or default.get(key) or "" for key in _COLOUR_KEYS}
    return colours if all(colours.values()) else None


def _theme_fields(path: Path) -> dict[str, str]:
    """`key: value` lines of a theme file (nested ones too); quotes taken off, comments out."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.strip().partition(":")
        value = value.strip()
        if not colon or not key or value.startswith("#"):
            continue
        if value and value[0] in "\"'" and value.count(value[0]) >= 2:
            value = value[1:value.index(value[0], 1)]
        if key == "name" or _HEX.fullmatch(value):
            fields.setdefault(key, value)
    return fields


def _terminal_size(fd: int) -> tuple[int, int]:
    """The size Textual will lay out for: shutil.get_terminal_size's rule (COLUMNS and LINES
    win over the terminal's own), without importing shutil."""
    sizes = []
    for name in ("COLUMNS", "LINES"):
        try:
            sizes.append(int(os.environ.get(name, "")))
        except ValueError:
            sizes.append(0)
    if sizes[0] > 0 and sizes[1] > 0:
        return sizes[0], sizes[1]
    try:
        width, height = os.get_terminal_size(fd)
    except OSError:
        width, height = 80, 24  # shutil's fallback
    return sizes[0] if sizes[0] > 0 else width, sizes[1] if sizes[1] > 0 else height


def colour_system() -> str | None:
    """The colours Textual will draw in ("truecolor", "256" or "standard": Rich's detection, as
    Textual configures it); None for NO_COLOR's monochrome and anything else, where no frame is
    drawn rather than one that would change tint."""
    if "NO_COLOR" in os.environ:
        return None
    chosen = os.environ.get("TEXTUAL_COLOR_SYSTEM", "auto")
    if chosen != "auto":
        return chosen if chosen in _SYSTEMS else None
    if os.environ.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return "truecolor"
    colours = os.environ.get("TERM", "").strip().lower().rpartition("-")[2]
    return "256" if colours in ("256color", "kitty") else "standard"


_SYSTEMS = ("truecolor", "256", "standard")


def _sgr(layer: int, colour: str, system: str) -> str:
    """The escape code Rich (so Textual) writes for #rrggbb in `system` (rich.color: ~10 ms of
    imports that Textual would make anyway)."""
    from rich.color import Color, ColorSystem

    downgraded = Color.parse(colour).downgrade(
        {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT,
         "standard": ColorSystem.STANDARD}[system])
    return "\x1b[" + ";".join(downgraded.get_ansi_codes(foreground=layer == 38)) + "m"
