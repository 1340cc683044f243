"""Screens of the ValarMind TUI."""
