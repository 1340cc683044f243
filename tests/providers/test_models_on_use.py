"""Pydantic models created while LiteLLM imports are built when first validated
(providers/models_on_use.py): the ones a request never validates hold no validator."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from tests.providers.face_scripts import ASK, run_face
from valarmind_tui.providers.models_on_use import models_built_on_use


def test_a_model_made_inside_is_built_at_its_first_validation() -> None:
    with models_built_on_use():
        class Inside(BaseModel):
            name: str
            size: int = 0

        class Built(BaseModel):
            model_config = ConfigDict(defer_build=False)  # its own config wins
            name: str

    class After(BaseModel):
        name: str

    assert not Inside.__pydantic_complete__
    assert Built.__pydantic_complete__ and After.__pydantic_complete__
    assert Inside.model_validate({"name": "a", "size": "3"}).size == 3  # built, and coerces
    assert Inside.__pydantic_complete__
    assert Inside(name="b").model_dump() == {"name": "b", "size": 0}


LITELLM_FACE = textwrap.dedent("""
    import asyncio, json, sys
    from pydantic._internal._config import config_defaults
    from valarmind_tui.providers.litellm_call import load_litellm

    load_litellm()
    from litellm.types.interactions.generated import InteractionSseEvent
""") + ASK + textwrap.dedent("""
    answers = [asyncio.run(ask("openai/fake-model", sys.argv[1])),
               asyncio.run(ask("anthropic/claude-3-5-haiku-20241022", sys.argv[2]))]
    print(json.dumps({"answers": answers, "default": config_defaults["defer_build"],
                      "unused_built": InteractionSseEvent.__pydantic_complete__}))
""")


def test_litellm_answers_with_its_models_built_on_use(fake_model: FakeModelServer,
                                                      tmp_path: Path) -> None:
    fake_model.script(ScriptedTurn(text="openai words"), ScriptedTurn(text="anthropic words"))
    facts = run_face(LITELLM_FACE, fake_model.openai_base, fake_model.anthropic_base,
                     cwd=tmp_path)
    assert facts["answers"] == ["openai words", "anthropic words"]
    assert facts["default"] is False  # only what LiteLLM's import created is deferred
    assert facts["unused_built"] is False  # an API no request used: never built
