"""The Textual face: `launch.py` draws the first frame (`skeleton.py`) before Textual loads and
opens the session behind it (`session_start.py`); `app.py` is the app; `bridge.py` is the only
path from the core's EventBus into Textual; `event_routing.py` sends each event to its widget;
`pickers.py` the /rewind and /resume pickers, whose actions `app.py` performs; `call_backs.py`
notifications and the person's status line (`status_line.py`).

The only package that imports textual.
"""
