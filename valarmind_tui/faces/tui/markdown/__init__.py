"""Streamed Markdown for the conversation: split into finished blocks and the open one
(`split.py`), rendered with Rich in the theme\x27s colours (`render.py`), the open block drawn
in pieces (`open_block.py`)."""
