"""Sessions in SQLite (WAL): the append-only event log and the conversation history.

May import: `core`.
"""
