"""What a Session keeps outside memory: the SQLite store it opens or resumes, the transcript
file hooks read, the repair of a conversation whose process died mid-turn, and the provider's
last count of the conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from valarmind_tui.context.history_size import ReportedSize, kept_count, restored_size
from valarmind_tui.context.interrupted import close_interrupted
from valarmind_tui.context.transcript import Transcript, build_transcript
from valarmind_tui.core.errors import UsageError
from valarmind_tui.core.events import TurnFinished
from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.hooks.transcript import transcript_lines
from valarmind_tui.safety.secrets import SecretMasker
from valarmind_tui.settings.config import KNOWN_KEYS
from valarmind_tui.store.sessions import SessionStore


def open_store(project_root: Path, resume: str | None) -> tuple[SessionStore, str | None]:
    """The user's session store and the id to resume (`resume` is an id or "last"), or None
    for a new session."""
    store = SessionStore(user_data_dir() / "sessions.db")
    if not resume:
        return store, None
    known = store.list(project_root.resolve(), limit=1 if resume == "last" else 1000)
    matches = [s.id for s in known if resume in ("last", s.id)]
    if not matches:
        store.close()
        raise UsageError(f"no stored session {resume!r} for {project_root}")
    return store, matches[0]


def export_transcript(history: list[dict[str, Any]], hook_session_id: str,
                      cwd: Path) -> str:
    """The conversation so far in Claude Code's transcript lines (hooks/transcript.py), for
    hooks' `transcript_path`; written again each time a hook runs, so it holds the turn."""
    path = user_data_dir() / "transcripts" / f"{hook_session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = transcript_lines(history, hook_session_id, cwd)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def stored_transcript(store: SessionStore | None, session_id: str | None,
                      history: list[dict[str, Any]], limit: int) -> Transcript:
    """The conversation as the faces show it again, with what its event log adds."""
    events = store.events(session_id) if store is not None and session_id is not None else []
    return build_transcript(history, events, limit)


def restore_interrupted(
    history: list[dict[str, Any]], store: SessionStore, session_id: str
) -> list[dict[str, Any]]:
    """The messages that close a session whose process died mid-turn (already stored): what was
    streamed becomes an answer marked interrupted, and tool calls left without a result get one
    (else the next request is rejected)."""
    added = close_interrupted(history, store.interrupted_text(session_id))
    for message in added:
        store.append_message(session_id, message)
    if added:
        text = added[-1]["content"] if added[-1]["role"] == "assistant" else ""
        store.append_event(session_id, TurnFinished(turn=0, text=text,
                                                    finish_reason="interrupted"))
    return added


def keep_reported_size(store: SessionStore | None, session_id: str | None,
                       reported: ReportedSize, secrets: SecretMasker) -> None:
    """Keep the provider's newest count of the conversation with the stored session (its
    digest of the messages masked, as the store keeps them)."""
    if store is not None and session_id is not None:
        store.keep_reported_count(session_id, kept_count(
            reported, lambda messages: secrets.mask_data(messages, cached=True)))


def resumed_size(store: SessionStore | None, session_id: str | None,
                 history: list[dict[str, Any]]) -> ReportedSize | None:
    """The kept count of a resumed conversation, when it counted these messages."""
    if store is None or session_id is None or not history:
        return None
    count = store.reported_count(session_id)
    return None if count is None else restored_size(count, history)


def offline_help(headless: bool = False) -> str:
    """How to get a model, in the words of the face that shows it: slash commands in the TUI,
    REPL and ACP; subcommands and flags headless."""
    keys = ", ".join(KNOWN_KEYS)
    if headless:
        return (
            "No model is configured. Without one, `valarmind init`, `valarmind map` and "
            "`valarmind review` still work. To use a model, set a provider key LiteLLM knows "
            f"({keys}), or pass --model NAME, or set `model = \"...\"` in "
            "~/.config/valarmind/config.toml. Ollama on localhost:11434 works with "
            "--model ollama/<name>."
        )
    return (
        "No model is configured, so ValarMind is in offline mode: /init, /map, /review and /qa "
        "still work without one. To use a model, set a provider key LiteLLM knows "
        f"({keys}), or choose one with /model NAME, or set `model = \"...\"` in "
        "~/.config/valarmind/config.toml. Ollama on localhost:11434 works with `ollama/<name>`."
    )
