"""Widgets of the ValarMind TUI: the conversation (`chat.py`, `answer.py`, `tool_call.py`,
`messages.py`, `diff.py`), the sidebar, the status bar and the prompt.
"""
