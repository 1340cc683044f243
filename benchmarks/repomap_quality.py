"""Ranking quality of the repo map: the share of a project's 20 most-imported modules that the
map names at 1,024 tokens.

"Most imported" is computed here, independently of the map's own code: every Python file is
parsed with `ast`, each `import a.b` / `from .x import y` is resolved to a file of the tree (a
module, or a package's `__init__.py`; `from p import m` counts the submodule `p/m.py` when it
exists), and modules are ranked by how many distinct other files import them. A module counts
as named when the map shows its path.
Run alone: `.venv/bin/python benchmarks/repomap_quality.py [repo ...]`.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.repomap_setup import REPOS, ensure  # noqa: E402

TOP = 20
BUDGET = 1024


def _module_index(root: Path) -> dict[str, str]:
    """dotted module name -> relative path, for every Python file: the name starts at the
    highest folder of the chain of packages (folders with an `__init__.py`) holding it."""
    index: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [path.stem]
        folder = path.parent
        while folder != root and (folder / "__init__.py").exists():
            parts.insert(0, folder.name)
            folder = folder.parent
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            index.setdefault(".".join(parts), path.relative_to(root).as_posix())
    return index


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Dotted names this module imports (resolved for relative imports), with each
    `from X import name` also offered as X.name (a submodule, when one exists)."""
    out: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base:
                continue
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def most_imported(root: Path, top: int = TOP) -> list[tuple[str, int]]:
    """The `top` modules (relative paths) imported by the most other files, with counts."""
    index = _module_index(root)
    by_path = {path: name for name, path in index.items()}
    counts: Counter[str] = Counter()
    for path, name in by_path.items():
        try:
            tree = ast.parse((root / path).read_bytes())
        except (SyntaxError, ValueError):
            continue
        targets: set[str] = set()
        for dotted in _imports(tree, name, path.endswith("__init__.py")):
            if dotted in index:
                targets.add(index[dotted])
        targets.discard(path)
        counts.update(targets)
    return counts.most_common(top)


def named_share(map_text: str, modules: list[str]) -> float:
    shown = {line[:-1] for line in map_text.splitlines() if line.endswith(".py:")}
    return sum(1 for m in modules if m in shown) / max(len(modules), 1)


def measure(name: str, map_text: str) -> tuple[float, list[str]]:
    """(share named, the modules missed)."""
    modules = [m for m, _ in most_imported(ensure(name))]
    shown = {line[:-1] for line in map_text.splitlines() if line.endswith(".py:")}
    return named_share(map_text, modules), [m for m in modules if m not in shown]


def main(argv: list[str]) -> int:
    from valarmind_tui.repomap import RepoMap

    for name in argv or list(REPOS):
        root = ensure(name)
        rm = RepoMap(root)
        text = rm.build(token_budget=BUDGET).text
        rm.close()
        share, missed = measure(name, text)
        print(f"{name}: {share:.0%} of the {TOP} most-imported modules named; missed {missed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
