"""The plain face (`valarmind --plain`): a line-mode REPL for dumb terminals, SSH and screen
readers. `plain.py` is the loop, `readers.py` where lines come from, `pickers.py` what it does
after a command asks for a choice (/rewind, /resume).
"""
