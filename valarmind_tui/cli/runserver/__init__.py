"""The run server: the one-shot's modules kept imported per user, a run forked for each client.

`client.py` is what `valarmind` does first (a look at argv); for a one-shot, `handover.py`
connects, hands over argv, working folder, environment, umask and stdin/stdout/stderr,
forwards signals and exits with the run's code, before anything heavy is imported.
`server.py` is the server (`spawn.py` starts it detached on first use; it leaves when idle),
which only accepts and forks; `child.py` what a forked child does (take the client's place,
then run `cli.main.main` as an in-process run would); `protocol.py` what both sides agree on.
LiteLLM is not here: it stays in the model daemon (providers/daemon/). Why and the security
model: docs/speed.md, "The run server".
"""
