"""The pieces every layer uses and that import nothing else of ValarMind: the events and their
bus, the exception tree, where the user's files live, reading and writing files safely, outside
text made safe for a terminal, token counts, and leaving a process fast.

May import: the standard library and small third-party packages only (the first frame imports
`user_dirs` before anything else loads). Start with `events.py`: every visible thing is one.
"""
