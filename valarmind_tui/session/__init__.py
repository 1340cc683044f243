"""One conversation and how it is built: `wiring.py` is the composition root (settings with the
trust decision applied → gate, sandbox, tools, agents, providers, MCP manager, plugins, hooks;
`build_session` / `open_session` there hand a Session its parts), `session.py` the object every
face drives, `model_choice.py` its model and provider, `records.py` what it keeps in SQLite,
`approver.py` how an interactive face answers an approval, `switch.py` moving to another stored
session.

May import every package below the faces. Start with `open_session` in `wiring.py`.
"""
