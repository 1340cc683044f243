"""What the model daemon and its clients agree on: who may talk, which build answers, which
requests it may serve, and the environment it runs in.

After connecting, each side checks the other's user id (SO_PEERCRED) and the client sends
`{"hello": BUILD}`; the daemon answers `{"hello": BUILD, "pid": N, "ready": bool}`. A daemon
of another build (another ValarMind version, protocol or installation) is not used: the client
starts a new one in its place, and the old one leaves once its own requests finish. Then the
lines of providers/process/client.py's protocol, both ways.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
import sys
from collections.abc import Mapping
from pathlib import Path

from valarmind_tui import __version__

PROTOCOL = 1
"""Raised whenever the lines exchanged change meaning."""

SERVED_PROVIDERS = frozenset({
    "openai", "anthropic", "ollama", "ollama_chat", "hosted_vllm", "lm_studio", "openrouter",
    "deepseek", "groq", "mistral", "together_ai", "xai", "llamafile", "vllm",
})
"""Providers whose whole request is the model, the endpoint and the key, which travel with
each request. Others (Bedrock, Vertex, Azure...) read credentials of their own from the
environment or disk, which the daemon does not have: they run in the client's process."""

PROXY_ENV = frozenset({
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
    "all_proxy", "no_proxy",
})
"""How a request reaches the network, and maybe a proxy's password: a client with any of them
set calls in-process (the daemon inherits none, and serves every run of the user)."""
CA_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
"""Which certificates to trust (paths, no secret): the daemon inherits them, and they are part
of its build, so a run whose certificates differ gets a daemon of its own."""
OWN_LITELLM_ENV = frozenset({"LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_MODE", "LITELLM_LOG"})
"""LiteLLM variables ValarMind sets itself; any other `LITELLM_*` keeps the call in-process."""

DAEMON_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "XDG_RUNTIME_DIR",
              "XDG_DATA_HOME", "XDG_CACHE_HOME", "CUSTOM_TIKTOKEN_CACHE_DIR", "TIKTOKEN_CACHE_DIR",
              *CA_ENV)
"""All the daemon inherits (and `LC_*`): no key, token or proxy of whoever started it."""


def build(environ: Mapping[str, str] | None = None) -> str:
    """This build's identity: version, protocol, where this installation and its environment
    live (two checkouts of one version must not serve each other's requests) and the
    certificates it trusts (from `environ`, this process's environment by default)."""
    env = os.environ if environ is None else environ
    certificates = "\0".join(env.get(name, "") for name in CA_ENV)
    # the environment (sys.prefix), not the interpreter's name: `python` and `python3` of
    # one venv are one build
    here = f"{Path(__file__).resolve().parents[2]}\0{sys.prefix}\0{certificates}"
    return f"{__version__}/{PROTOCOL}/{hashlib.sha256(here.encode()).hexdigest()[:12]}"


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def provider_of(model: str | None) -> str | None:
    """The provider named by a `provider/model` string (None without one)."""
    if not model or "/" not in model:
        return None
    return model.split("/", 1)[0]


def may_serve(model: str | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the daemon can make `model`'s request as this process would: a plain-HTTP
    provider named in the model string, and nothing in this environment its library would
    read besides the key (which the request carries)."""
    provider = provider_of(model)
    if provider not in SERVED_PROVIDERS:
        return False
    env = os.environ if environ is None else environ
    own = f"{provider.upper()}_"
    for name in env:
        if name in PROXY_ENV:
            return False
        if name.startswith("LITELLM_") and name not in OWN_LITELLM_ENV:
            return False
        if name.startswith(own) and not name.endswith("_API_KEY"):
            return False
    return True


def daemon_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The daemon's whole environment: DAEMON_ENV and `LC_*` from `environ`, this package
    found without the working directory, LiteLLM offline."""
    env = os.environ if environ is None else environ
    kept = {k: v for k, v in env.items() if k in DAEMON_ENV or k.startswith("LC_")}
    kept["PYTHONPATH"] = str(Path(__file__).resolve().parents[3])
    kept["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return kept
