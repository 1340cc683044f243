"""Which files import an edited one, by their import lines."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.lsp.importers import importers


def test_python_and_typescript_importers_are_found_by_their_import_lines(
        tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "shapes.py").write_text("def area(): ...\n")
    (tmp_path / "a.py").write_text("from pkg.shapes import area\n")
    (tmp_path / "b.py").write_text("import pkg.shapes as s\n")
    (tmp_path / "c.py").write_text("# shapes are nice\nfrom pkg import other\n")
    (tmp_path / "pkg" / "d.py").write_text("from .shapes import area\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "e.py").write_text("from pkg.shapes import area\n")
    (tmp_path / "shapes.ts").write_text("export const x = 1;\n")
    (tmp_path / "f.ts").write_text('import { x } from "./shapes";\n')
    (tmp_path / "g.js").write_text('const s = require("./shapes.ts");\n')
    (tmp_path / "h.ts").write_text('import { y } from "./shapeshifter";\n')
    found = importers(tmp_path, tmp_path / "pkg" / "shapes.py")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in found) == [
        "a.py", "b.py", "pkg/d.py"]
    found = importers(tmp_path, tmp_path / "shapes.ts")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in found) == ["f.ts", "g.js"]
    assert importers(tmp_path, tmp_path / "main.go") == []
