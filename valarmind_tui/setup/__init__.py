"""Bringing a setup: the skills, custom commands, subagents, permission rules, hooks and context
files people wrote for Claude Code, Codex, Gemini CLI or OpenCode, read where they already are.

One module per format; each finds its files and parses them into plain records, and says what it
found in a `Found` row (`report.py`) whether it loaded or not (untrusted folder, unknown key, name
clash), which `valarmind setup` and `/setup` show. A project's files count only in a trusted
folder; nothing here loosens a rule the person set. The packages that use the records (agents,
commands, the gate, hooks, context) turn them into their own objects.

May import: `settings`, `core`.
"""
