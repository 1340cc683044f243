"""Importing less of the model library (issue #36): package indexes read name by name.

Many packages under LiteLLM's import are indexes: their `__init__` only re-exports names from
their own submodules (`from .chat_completion import ChatCompletion as ChatCompletion`), and
importing one imports every submodule. The OpenAI SDK's `openai.types` is 1,094 modules of
which a request reads a few dozen; `openai.resources` imports every resource on a client's
first request. For the packages named in `DEFERRED_PACKAGES` (and their subpackages) a finder
on `sys.meta_path` gives the real module, with its `__path__`, `__file__` and loader, without
running its `__init__`; a module `__getattr__` runs, on the first use of a name, the one
statement of the `__init__` that binds it. A name the index does not bind (`__all__` for a
star import, a subpackage read as an attribute, anything unusual) runs the whole `__init__`
first, so every name resolves as it would have.

Fails safe: a package is deferred only if its `__init__` is nothing but such re-exports (and
an `__all__` of literal strings), read from its source when it is imported; a listed package
that is missing, or already imported when `defer_indexes` runs, is left alone.

A library's command line is left out the same way: `httpx` imports its `httpx` program
(`httpx._main`: Click, Pygments and Rich's console, 84 modules, 3.5 MB resident) to bind
`httpx.main`. A stand-in module binds a `main` that imports the real one when it is called.

Some modules LiteLLM binds at import and uses only on one provider's call: OCI's request
signing binds four of `cryptography`'s, whose Rust library is 5.8 MB resident. While LiteLLM
imports (`loaded_on_use`), each of `LOADED_ON_USE` is a stand-in that imports the real module
the first time a name is read from it, and leaves `sys.modules` after (a later import gets the
real one).

`VALARMIND_IMPORT_ALL=1` turns all three off.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any, TypeGuard

DEFERRED_PACKAGES = (
    "openai.types", "openai.resources",
    # LiteLLM's proxy database models and repositories, OpenTelemetry and Opik payloads, a
    # router strategy: reached through one name each on the way to what a request uses
    "litellm.models", "litellm.repositories", "litellm.integrations.otel",
    "litellm.integrations.opik", "litellm.router_strategy.complexity_router",
)
"""Roots of the trees whose index packages are deferred (each subpackage is checked apart;
a root is read only when it is imported: every package listed costs its `__init__`'s parse)."""

COMMAND_LINES = {"httpx._main": "main"}
"""A library's command-line module, and the name its package binds from it."""

LOADED_ON_USE = ("cryptography.hazmat.primitives.hashes",
                 "cryptography.hazmat.primitives.serialization",
                 "cryptography.hazmat.primitives.asymmetric.padding",
                 "cryptography.hazmat.primitives.asymmetric.rsa")
"""Modules bound at LiteLLM's import and read only on a call (OCI's request signing)."""

SWITCH = "VALARMIND_IMPORT_ALL"
"""Set to 1 to import every package whole."""


def defer_indexes(roots: Sequence[str] = DEFERRED_PACKAGES) -> bool:
    """Put the finder on `sys.meta_path` for the `roots` not yet imported; False when the
    switch is on, none is left, or it is already there."""
    if os.environ.get(SWITCH) == "1":
        return False
    fresh = tuple(root for root in roots if root not in sys.modules)
    if not fresh or any(isinstance(f, IndexFinder) for f in sys.meta_path):
        return False
    sys.meta_path.insert(0, IndexFinder(fresh))
    return True


def stand_in_command_lines(modules: dict[str, str] = COMMAND_LINES) -> None:
    """A stand-in for each of `modules` whose package is not imported yet (not when the switch
    is on): calling the name it binds imports the real module and calls its own."""
    if os.environ.get(SWITCH) == "1":
        return
    for name, function in modules.items():
        if name.rpartition(".")[0] in sys.modules or name in sys.modules:
            continue
        stand_in = ModuleType(name, f"Stands in for {name} until {function}() is called.")
        setattr(stand_in, function, _real_on_call(name, function))
        sys.modules[name] = stand_in


def _real_on_call(name: str, function: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        if not hasattr(sys.modules.get(name), "__file__"):
            sys.modules.pop(name, None)  # the stand-in (its module has no file)
        return getattr(importlib.import_module(name), function)(*args, **kwargs)
    return call


@contextlib.contextmanager
def loaded_on_use(names: Sequence[str] = LOADED_ON_USE) -> Iterator[None]:
    """While inside, an import of one of `names` not imported yet gets a `LoadOnUse`."""
    if os.environ.get(SWITCH) == "1":
        yield
        return
    placed = {name: LoadOnUse(name) for name in names if name not in sys.modules}
    sys.modules.update(placed)
    try:
        yield
    finally:
        for name, stand_in in placed.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


class LoadOnUse(ModuleType):
    """Stands in for the module `name`: the first name read from it imports the real one."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"Stands in for {name} until a name is read from it.")
        self._real: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") or attribute == "_real":
            raise AttributeError(attribute)  # the import system's probes
        if self._real is None:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            self._real = importlib.import_module(self.__name__)
        return getattr(self._real, attribute)


class IndexFinder(importlib.abc.MetaPathFinder):
    """Finds the listed packages as the path finder does, and defers their index `__init__`."""

    def __init__(self, roots: Iterable[str]) -> None:
        self.roots = tuple(roots)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not any(fullname == r or fullname.startswith(r + ".") for r in self.roots):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if (spec is None or spec.submodule_search_locations is None
                or not isinstance(loader, importlib.machinery.SourceFileLoader)):
            return None
        index = read_index(loader, fullname)
        if index is None:
            return None
        spec.loader = DeferredInit(loader, index)
        return spec


Index = dict[str, str]
"""Each name an `__init__` binds, and the statement that binds it (source: smaller than its
syntax tree, compiled when the name is first asked for)."""


def read_index(loader: importlib.machinery.SourceFileLoader, package: str) -> Index | None:
    """The names a package's `__init__` binds, if it only re-exports its own submodules' names
    and sets `__all__` to literal strings; None otherwise."""
    try:
        tree = ast.parse(loader.get_data(loader.get_filename(package)))
    except (OSError, SyntaxError, ValueError):
        return None
    index: Index = {}
    for position, node in enumerate(tree.body):
        if position == 0 and _is_docstring(node) or _is_future(node):
            continue
        if isinstance(node, ast.ImportFrom) and _own_submodule(node, package):
            source = f"from {'.' * node.level}{node.module or ''} import "
            for alias in node.names:
                bound = alias.asname or alias.name
                index[bound] = f"{source}{alias.name} as {bound}"
        elif _is_literal_all(node):
            index["__all__"] = f"__all__ = {ast.literal_eval(node.value)!r}"
        else:
            return None
    return index


class DeferredInit(importlib.abc.Loader):
    """The real loader, except that `exec_module` leaves the `__init__` to `ModuleNames`."""

    def __init__(self, real: importlib.machinery.SourceFileLoader, index: Index) -> None:
        self.real = real
        self.index = index

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)  # get_resource_reader, get_source, ...

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        # why the ignore below: a module's own __getattr__ (PEP 562) is set on the module
        module.__getattr__ = ModuleNames(  # type: ignore[method-assign]  # why: above
            module, self.real, self.index)


class ModuleNames:
    """A deferred package's `__getattr__`: a name's own statement, or the whole `__init__`."""

    def __init__(self, module: ModuleType, loader: importlib.machinery.SourceFileLoader,
                 index: Index) -> None:
        self.module = module
        self.loader = loader
        self.index = index
        self.whole_run = False
        self.running = threading.local()

    def __call__(self, name: str) -> Any:
        namespace = self.module.__dict__
        busy: set[str] = self.running.__dict__.setdefault("names", set())
        statement = self.index.get(name)
        if name in busy:  # `from . import x` asking while it binds x: the import system's turn
            raise AttributeError(name)
        busy.add(name)
        try:
            if statement is not None:
                exec(compile(statement, self.loader.path, "exec", dont_inherit=True), namespace)
            elif self._is_submodule(name):
                return importlib.import_module(f"{self.module.__name__}.{name}")
            else:
                self._run_whole()
        finally:
            busy.discard(name)
        try:
            return namespace[name]
        except KeyError:
            raise AttributeError(
                f"module {self.module.__name__!r} has no attribute {name!r}") from None

    def _is_submodule(self, name: str) -> bool:
        """`from package import sub` asks the package for `sub` before importing it."""
        if name.startswith("__"):
            return False
        return importlib.machinery.PathFinder.find_spec(
            f"{self.module.__name__}.{name}", self.module.__path__) is not None

    def _run_whole(self) -> None:
        """Unlocked: two threads running it at once only import the same modules and bind the
        same names (an index does nothing else), and a lock here could deadlock with the
        import system's own."""
        if not self.whole_run:
            code = self.loader.get_code(self.module.__name__)
            assert code is not None
            exec(code, self.module.__dict__)
            self.whole_run = True


def _own_submodule(node: ast.ImportFrom, package: str) -> bool:
    if any(alias.name == "*" for alias in node.names):
        return False
    if node.level == 1:
        return True
    return node.level == 0 and (node.module or "").startswith(package + ".")


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _is_literal_all(node: ast.stmt) -> TypeGuard[ast.Assign]:
    return (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "__all__"
            and isinstance(node.value, ast.List | ast.Tuple)
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                    for e in node.value.elts))
