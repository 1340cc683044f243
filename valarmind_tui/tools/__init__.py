"""Built-in tools: `base.py` is the shape every tool has (`Tool[P]`: typed params, risk class,
path params), `result.py` what it gives back, `catalog.py` every built-in tool in one list,
`registry.py` the set an agent may use, `services.py` what a running tool may reach of its
session, `common.py` what tools share.
One folder per family (`files/`, `git/`, `shell/`, `web/`, `planning/`), each tool beside its `.md`.

May import: `repomap`, `safety`, `settings`, `core`.
"""
