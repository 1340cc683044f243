"""The `valarmind` command: arguments → Settings → the chosen face (`main.py`: `entry`, `main`).

May import anything below it; heavy faces are imported only when chosen, so `--version` and
`--help` stay fast.
"""
