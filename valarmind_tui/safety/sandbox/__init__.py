"""The sandbox every command the assistant runs goes through: bubblewrap around the argv
(`wrap.py`), what it sees of HOME and the system (`home.py`), and what of the project stays
read-only inside it because it configures something that runs outside (`project.py`).
"""
