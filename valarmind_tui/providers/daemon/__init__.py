"""The model daemon: litellm kept warm between headless runs, per user, on a private socket.

`server.py` is the daemon (started detached by a run, leaves when idle), `link.py` a run's side
of it, `place.py` where the socket lives and what may be trusted there, `protocol.py` the
greeting, who may be served and the daemon's environment. The calls themselves are
providers/process/'s: the daemon runs its Worker, a run talks through its Channel. Why and the
security model: docs/speed.md.
"""
