"""LiteLLM's and the OpenAI SDK's pydantic models built when first used, not when imported.

Pydantic builds a model's validator and serializer (from its core schema) as the class is
created. LiteLLM's import creates ~1,180 models, its own types and the OpenAI SDK's; pydantic
already leaves most of them unbuilt (references resolved later), and 22 more it built held
~2.2 MB of the model process's memory that no request used (the Google Interactions API's
generated unions the largest). Created under
`models_built_on_use()`, a model is given pydantic's `defer_build`: the same schema is built at
its first validation (the warm-up's request builds those a prompt's request uses). A model whose
own config sets `defer_build` keeps it.

pydantic has no public switch for its defaults: this sets `defer_build` in its private table of
them for the time of the import, and does nothing when that table is not there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def models_built_on_use() -> Iterator[None]:
    """Pydantic models created inside (by any thread) are built at their first validation."""
    defaults = _config_defaults()
    if defaults is None:
        yield
        return
    before = defaults["defer_build"]
    defaults["defer_build"] = True
    try:
        yield
    finally:
        defaults["defer_build"] = before


def _config_defaults() -> dict[str, Any] | None:
    try:
        from pydantic._internal import _config
    except ImportError:
        return None
    defaults = getattr(_config, "config_defaults", None)
    return defaults if isinstance(defaults, dict) and "defer_build" in defaults else None
