"""Whether a forked run may stand in for its client: the same confinement, or it is declined.

The child must not run with more than its client had. A client in another namespace (a
container, a sandbox such as bubblewrap or firejail, `unshare`), under another root, with
other groups, capabilities, `no_new_privs` or seccomp filter, is declined: it runs in its own
process. Resource limits and the nice value are the client's: set in the child when it may
(lowering a limit, raising niceness), declined when it may not. The cgroup is not matched:
the child runs in the server's (docs/speed.md, "The run server").
"""

from __future__ import annotations

import os
import resource

NAMESPACES = ("mnt", "pid", "net", "user", "ipc", "uts", "cgroup", "time")
STATUS_FIELDS = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                 "NoNewPrivs", "Seccomp")
LIMITS = tuple(getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_"))


def unlike_client(pid: int) -> str | None:
    """Why the client `pid` (its SO_PEERCRED pid) is confined otherwise than this process
    (None: alike). 0 means another pid namespace, where the kernel cannot name it."""
    if pid <= 0:
        return "the client is in another pid namespace"
    try:
        for kind in NAMESPACES:
            if not os.path.exists(f"/proc/self/ns/{kind}"):
                continue
            if os.readlink(f"/proc/{pid}/ns/{kind}") != os.readlink(f"/proc/self/ns/{kind}"):
                return f"the client is in another {kind} namespace"
        if os.readlink(f"/proc/{pid}/root") != "/":
            return "the client runs under another root"
        theirs, ours = _status(f"/proc/{pid}/status"), _status("/proc/self/status")
    except OSError as exc:
        return f"the client's confinement cannot be read ({exc.strerror})"
    for field in STATUS_FIELDS:
        if theirs.get(field) != ours.get(field):
            return f"the client's {field} differs"
    return None


def take_limits(pid: int) -> str | None:
    """Put the client's resource limits and nice value on this process; why not, when one
    cannot be (a higher limit or priority than this process may take)."""
    try:
        for limit in LIMITS:
            wanted = resource.prlimit(pid, limit)
            if wanted != resource.getrlimit(limit):
                resource.setrlimit(limit, wanted)
        nice = os.getpriority(os.PRIO_PROCESS, pid)
        if nice != os.getpriority(os.PRIO_PROCESS, 0):
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except (OSError, ValueError) as exc:
        return f"the client's limits cannot be taken ({exc})"
    return None


def _status(path: str) -> dict[str, str]:
    with open(path, encoding="ascii", errors="replace") as status:
        return dict(line.rstrip("\n").partition(":\t")[::2] for line in status)
