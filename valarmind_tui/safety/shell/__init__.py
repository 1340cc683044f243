"""A shell command as the rules read it: every simple command it runs (`command.py`), the
commands that run other commands (`launchers.py`), and the files it writes (`writes.py`).
"""
