"""Issue #17: the type checker passes without unexplained `type: ignore`s. Every one in the
package names its error code and says why (on its line, or on a `# why the ignore below:` line
just above it)."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "valarmind_tui"
EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[\w,-]+\]\s+#\s*\S")
WHY_ABOVE = re.compile(r"^\s*# why the ignore below: \S")


def unexplained_ignores(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if not re.search(r"#\s*type:\s*ignore", line):
                continue
            if not EXPLAINED.search(line):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
            elif "# why: above" in line and not any(
                    WHY_ABOVE.match(prev) for prev in lines[max(0, number - 3):number - 1]):
                found.append(f"{path.relative_to(root.parent)}:{number}: no reason above")
    return found


def test_every_type_ignore_in_the_package_names_its_code_and_its_reason() -> None:
    assert unexplained_ignores(PACKAGE) == []


def test_the_guard_finds_a_bare_ignore_and_one_without_a_reason(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text(
        "x: int = 'a'  # type: ignore\n"
        "y: int = 'b'  # type: ignore[assignment]\n"
        "z: int = 'c'  # type: ignore[assignment]  # strings count here\n"
        "w: int = 'd'  # type: ignore[assignment]  # why: above\n", encoding="utf-8")
    found = unexplained_ignores(package)
    assert [f.split(":")[1] for f in found] == ["1", "2", "4"]
