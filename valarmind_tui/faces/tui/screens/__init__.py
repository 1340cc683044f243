"""Screens of the ValarMind TUI: the approval modal, the trust question, the /rewind and /resume
pickers, the commit message editor, /jobs' background commands.
"""
