"""An edit may not write a marker over the secret it stands for.

The model reads `[secret masked: .env DATABASE_URL]` where the file holds the real value, and
may echo the marker into an edit_file or write_file. Written as is, the marker would replace the
secret on disk (fuzzy matching could even find the line). So an edit whose result holds more
markers than the file held is refused, naming the marker; a file that already held marker text
(documentation about masking) keeps being editable.
"""

from __future__ import annotations

from collections import Counter

from valarmind_tui.core.errors import ToolError
from valarmind_tui.safety.secrets.masker import MARKER


def refuse_marker_writes(shown: str, old: str | None, new: str, search: str = "") -> None:
    """Raise ToolError when writing `new` over `old` (None: a new file) would add a marker, or
    when the search text holds a marker the file does not (it stands for a hidden value)."""
    before = Counter(MARKER.findall(old or ""))
    missing = [m for m in dict.fromkeys(MARKER.findall(search)) if m not in before]
    added = [m for m, n in Counter(MARKER.findall(new)).items() if n > before[m]]
    problem = missing or added
    if not problem:
        return
    raise ToolError(
        f"{shown}: not changed. {problem[0]} stands for a secret that was masked from what you "
        "read; the file holds the real value, which you were never shown, and writing the "
        "marker would destroy it. Change the file around it (a search text that leaves that "
        "line out), or ask the person to make this change.")
