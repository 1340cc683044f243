"""The plain face (`valarmind --plain`): a line-mode REPL for dumb terminals, SSH and screen
readers. `plain.py` is the loop (and performs a command's action), `readers.py` where lines come
from, `output.py` where it prints, `pickers.py` the numbered choices of /rewind and /resume.
"""
