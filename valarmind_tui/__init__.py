"""ValarMind: a terminal coding assistant."""

__version__ = "0.1.0"
