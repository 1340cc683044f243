"""The process groups a background command's processes are in, as /proc shows them.

Killing the leader's group is not enough in the sandbox: bubblewrap's `--new-session` runs the
command in a session (and group) of its own under the leader, which only dies when the leader's
death reaches it (`--die-with-parent`), a moment later. So a command is signalled by every group
of its family, and it has ended when none of them has a process left.
"""

from __future__ import annotations

import contextlib
import os

from valarmind_tui.tools.shell.job_records import group_alive, process_stats


def family_groups(pid: int) -> dict[int, int]:
    """The process groups of `pid` and its descendants, each with the earliest start time of a
    member seen (clock ticks since boot: a group id reused later is not taken for it). Blocking:
    reads /proc."""
    stats: dict[int, tuple[int, int, int]] = {}  # pid: (parent, group, start)
    for pid_seen, fields in process_stats():
        try:
            stats[pid_seen] = (int(fields[1]), int(fields[2]), int(fields[19]))
        except (IndexError, ValueError):
            continue
    children: dict[int, list[int]] = {}
    for child, (parent, _, _) in stats.items():
        children.setdefault(parent, []).append(child)
    groups: dict[int, int] = {}
    todo = [pid]
    while todo:
        current = todo.pop()
        if current in stats:
            _, group, started = stats[current]
            groups[group] = min(started, groups.get(group, started))
        todo += children.get(current, [])
    groups.pop(os.getpgrp(), None)  # never ours (a child cannot join it from its own session)
    return groups


def signal_groups(groups: dict[int, int], signal: int) -> None:
    """Send `signal` to those of `groups` that still have a process (a group id of one that
    ended may lead someone else's group by now). Blocking: reads /proc."""
    for pgid, started in groups.items():
        if group_alive(pgid, started):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal)


def any_alive(groups: dict[int, int]) -> bool:
    """A process of one of `groups` still runs (blocking: reads /proc)."""
    return any(group_alive(pgid, started) for pgid, started in groups.items())
