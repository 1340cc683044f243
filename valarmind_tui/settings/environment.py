"""`VALARMIND_*` environment variables as settings values.

pydantic-settings' environment source reads them (names in any case, `__` into a table's keys:
`VALARMIND_LSP__ENABLED=0`, JSON for lists and tables), but importing the package took ~40 ms,
an eighth of a warm `valarmind -p`, in every run, and few runs set any such variable. So it is
imported only when a variable names a setting; the values are the same as before.
"""

from __future__ import annotations

import os
from typing import Any, cast

from pydantic import BaseModel

PREFIX = "VALARMIND_"
NESTED = "__"


def environment_values(model: type[BaseModel]) -> dict[str, Any]:
    """The values the environment sets for `model`'s fields, as pydantic-settings reads them
    (`case_sensitive=False`); empty, and nothing imported, when no variable names a field."""
    if not _names_a_field(model, os.environ):
        return {}
    from pydantic_settings import EnvSettingsSource

    source = EnvSettingsSource(cast(Any, model), case_sensitive=False, env_prefix=PREFIX,
                               env_nested_delimiter=NESTED)
    return source()


def _names_a_field(model: type[BaseModel], environ: Any) -> bool:
    fields = {f"{PREFIX}{name}".lower() for name in model.model_fields}
    for key in environ:
        name = key.lower()
        if name in fields or name.partition(NESTED)[0] in fields:
            return True
    return False
