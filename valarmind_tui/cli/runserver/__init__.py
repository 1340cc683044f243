"""The run server: the one-shot's modules kept imported per user, a run forked for each client.

`client.py` is what `valarmind -p` does first (connect, hand over argv, working folder,
environment, umask and stdin/stdout/stderr, forward signals, exit with the run's code), before
it imports anything heavy; `server.py` the server (started detached on first use, leaves when
idle), which only accepts and forks; `child.py` what a forked child does (take the client's
place, then run `cli.main.main` as an in-process run would); `protocol.py` what both sides
agree on. LiteLLM is not here: it stays in the model daemon (providers/daemon/). Why and the
security model: docs/speed.md, "The run server".
"""
