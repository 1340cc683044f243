"""`session/load`: a stored conversation replayed to the client as the updates it would have
seen (the person's messages, the answers, each tool call with its outcome)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp import helpers

from valarmind_tui.context.transcript import (
    AnswerItem,
    SummaryItem,
    ToolItem,
    Transcript,
    UserItem,
)
from valarmind_tui.faces.acp.updates import (
    KIND_BY_RISK,
    MAX_OUTPUT,
    STATUS_BY_OUTCOME,
    UpdateTranslator,
)
from valarmind_tui.safety.visible_fields import visible_fields


def replay_updates(transcript: Transcript, translator: UpdateTranslator) -> Iterator[Any]:
    for index, item in enumerate(map(visible_fields, transcript.items)):  # controls shown
        if isinstance(item, UserItem):
            files = "".join(f"\n@{path}" for path in item.attachments)
            yield helpers.update_user_message_text(item.text + files)
        elif isinstance(item, AnswerItem):
            yield helpers.update_agent_message_text(item.text)
        elif isinstance(item, SummaryItem):
            yield helpers.update_agent_thought_text(item.text)
        elif isinstance(item, ToolItem):
            yield _tool_call(item, index, translator)


def _tool_call(item: ToolItem, index: int, translator: UpdateTranslator) -> Any:
    tool = translator.tool_for(item.name)
    kind = KIND_BY_RISK.get(tool.risk, "other") if tool is not None else "other"
    subject = next((str(v) for k, v in item.arguments.items()
                    if k in ("path", "command", "pattern", "url", "query") and v), "")
    body = f"```diff\n{item.diff}\n```" if item.diff else item.output[:MAX_OUTPUT]
    content = [helpers.tool_content(helpers.text_block(body))] if body else None
    return helpers.start_tool_call(
        f"replay:{index}:{item.call_id}", f"{item.name} {subject}".strip(),
        # why the ignore below: values are the SDK's status Literal
        kind=kind, status=STATUS_BY_OUTCOME.get(item.status, "failed"),  # type: ignore[arg-type]  # why: above
        content=content, raw_input=item.arguments)
