"""Widgets of the ValarMind TUI."""
