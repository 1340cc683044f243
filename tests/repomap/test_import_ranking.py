"""The map names what a project depends on most: imports are resolved to files and weighed,
names defined everywhere (`append`, `get`) do not crowd out the core modules."""

from __future__ import annotations

import ast
import shutil
from collections import Counter
from pathlib import Path

from valarmind_tui.repomap import RepoMap
from valarmind_tui.repomap.imports import Resolver, extract_imports
from valarmind_tui.repomap.pipeline import resolve_imports

REQUESTS = Path(__file__).parents[1] / "fixtures" / "init_projects" / "requests-2.32.3"
"""The real sdist (Apache-2.0), shared with /init's tests; only its `src/requests` is mapped."""


def _most_imported(package: Path, top: int) -> list[str]:
    """Written independently of the map: `ast` over every module of one flat package, each
    `from .x import` / `from requests.x import` counted once per importing file."""
    counts: Counter[str] = Counter()
    modules = {p.stem for p in package.glob("*.py")}
    for path in package.glob("*.py"):
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.ImportFrom):
                dotted = (node.module or "").removeprefix("requests.").lstrip(".")
                if node.level or (node.module or "").startswith("requests"):
                    first = dotted.split(".")[0] if dotted else ""
                    if first in modules:
                        targets.add(first)
                    elif not dotted:  # from . import utils
                        targets.update(a.name for a in node.names if a.name in modules)
        targets.discard(path.stem)
        counts.update(targets)
    return [f"src/requests/{m}.py" for m, _ in counts.most_common(top)]


def test_map_names_most_of_the_most_imported_modules_of_requests(tmp_path: Path) -> None:
    project = tmp_path / "requests"
    shutil.copytree(REQUESTS / "src" / "requests", project / "src" / "requests")
    top = _most_imported(project / "src" / "requests", 10)
    assert "src/requests/compat.py" in top and "src/requests/utils.py" in top
    repo_map = RepoMap(project, cache_dir=tmp_path / "cache")
    result = repo_map.build(token_budget=512)
    repo_map.close()
    named = [m for m in top if f"{m}:" in result.text.splitlines()]
    assert len(named) >= 8, (top, result.files)  # ranking by references alone named 5


def test_core_module_outranks_names_defined_everywhere(tmp_path: Path) -> None:
    """`append` and `get` are defined in many files and called everywhere (as list and dict
    methods); `Symbol` is defined once and imported by every file; each `work` function is
    called once, from the next file."""
    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "symbol.py").write_text("class Symbol:\n    def __init__(self, n):\n"
                                            "        self.n = n\n")
    for i in range(8):
        (root / "pkg" / f"mod{i}.py").write_text(
            "from .symbol import Symbol\n\n"
            f"class Bag{i}:\n    def append(self, x):\n        pass\n\n"
            "    def get(self, k):\n        pass\n\n"
            f"def work{i}(xs, d):\n    out = []\n"
            + "    out.append(d.get(xs))\n" * 20
            + f"    work{(i + 1) % 8}(out, d)\n    return Symbol(out)\n")
    result = RepoMap(root, cache_dir=tmp_path / "cache").build(token_budget=1024)
    assert (result.ranked[0]["file"], result.ranked[0]["name"]) == ("pkg/symbol.py", "Symbol")
    assert result.files[0] == "pkg/symbol.py"
    rank = {(r["file"], r["name"]): r["rank"] for r in result.ranked}
    common = [rank[(f"pkg/mod{i}.py", name)] for i in range(8) for name in ("append", "get")]
    works = [rank[(f"pkg/mod{i}.py", f"work{i}")] for i in range(8)]
    assert max(common) < min(works)


def test_python_imports_resolve_to_files() -> None:
    files = ["pkg/__init__.py", "pkg/core/__init__.py", "pkg/core/symbol.py", "pkg/types.py",
             "pkg/sub/__init__.py", "pkg/sub/user.py", "tests/test_user.py", "ns/a/b.py",
             "setup.py"]
    src = (b"import os, pkg.core.symbol as s\nfrom . import types\n"
           b"from ..core import symbol, Thing\nfrom ..core.symbol import (\n    Symbol,\n"
           b"    Other as O,\n)\nimport types\n")
    written = extract_imports(src, "python")
    assert ("os", ()) in written and ("pkg.core.symbol", ()) in written
    assert ("..core", ("symbol", "Thing")) in written
    assert ("..core.symbol", ("Symbol", "Other")) in written
    resolver = Resolver(files)
    user = files.index("pkg/sub/user.py")
    assert resolver.resolve(user, "pkg.core.symbol") == 2
    assert resolver.resolve(user, "..core.symbol") == 2
    assert resolver.resolve(user, "..core") == 1
    assert resolver.resolve(user, "os") is None
    assert resolver.resolve(user, "types") is None  # the standard one, not pkg/types.py
    assert resolver.resolve(files.index("tests/test_user.py"), "ns.a.b") == 7
    imported = resolve_imports(files, [[] for _ in files[:5]] + [written] + [[]] * 3)[user]
    # `from ..core import symbol` is the submodule; `Thing` a name of pkg/core/__init__.py;
    # pkg/sub has no types.py, so `from . import types` is a name of pkg/sub/__init__.py.
    assert imported == {2: ["Symbol", "Other"], 1: ["Thing"], 4: ["types"]}
    assert resolver.resolve(files.index("pkg/__init__.py"), ".types") == 3


def test_javascript_relative_imports_resolve_to_files() -> None:
    files = ["src/app.ts", "src/store/index.ts", "src/util.js", "src/view.tsx"]
    src = (b"import { a } from './store';\nimport util from \"./util.js\";\n"
           b"const v = require('./view');\nimport React from 'react';\n"
           b"export * from '../outside';\n")
    written = extract_imports(src, "typescript")
    assert [spec for spec, _ in written] == ["../outside", "./store", "./util.js", "./view"]
    resolver = Resolver(files)
    got = [resolver.resolve(0, spec) for spec, _ in written]
    assert got == [None, 1, 2, 3]
