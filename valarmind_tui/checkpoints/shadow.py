"""A shadow git repository per project: snapshots of the work tree that never touch its own git.

The repository lives in `user_data_dir()/checkpoints/<hash of the project path>` with its own
GIT_DIR and index; git runs with GIT_WORK_TREE set to the project, so the project's `.git`, index,
branches and stash are never read or written (and a folder that is not a git repository works
the same). A snapshot asks git which files changed since the last one (`ls-files -m -d -o`, which
honours every `.gitignore`), hashes only those into the shadow index and writes its tree: cheap
when little changed. Files over `max_file_bytes` are left out and noted, never stored.

Git runs hardened: no hooks, fsmonitor, external diff, system or global config (so no content
filters, `core.autocrlf` off) and `info/attributes` turning every conversion off, so a tree
holds the bytes on disk. The project's own `.git` (its config, `commondir`, `core.worktree`) is
never read by git here: GIT_DIR is ours, so nothing a repository configures runs or redirects a
snapshot. Modes are git's: regular, executable, symlink.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import threading
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from valarmind_tui.checkpoints.stale_locks import remove_stale_locks
from valarmind_tui.checkpoints.tree_files import remove_file, under_real_dirs, write_file
from valarmind_tui.core.errors import ValarMindError
from valarmind_tui.safety.child_env import child_env
from valarmind_tui.safety.git_hardening import GIT_ENV, SAFE_FLAGS

MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are noted in a checkpoint, not stored."""
MAX_NEW_FILES = 100_000
"""A snapshot that would add more files than this is refused (a home folder, a data dump)."""
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
GONE = "000000"
SHADOW_FLAGS = (*SAFE_FLAGS, "-c", "core.autocrlf=false", "-c", "core.safecrlf=false",
                "-c", "core.fileMode=true", "-c", "core.symlinks=true", "-c", "core.bare=false")
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_IDENTITY = {"GIT_AUTHOR_NAME": "ValarMind", "GIT_AUTHOR_EMAIL": "checkpoints@valarmind",
             "GIT_COMMITTER_NAME": "ValarMind", "GIT_COMMITTER_EMAIL": "checkpoints@valarmind"}


class ShadowError(ValarMindError):
    """Git failed in the shadow repository; the message is git's (or says what failed)."""


class NoRoom(ShadowError):
    """A snapshot asked to leave room found the files to copy too big for the free space."""


@dataclass(frozen=True)
class Snapshot:
    """The work tree at one moment."""

    tree: str
    """The git tree id of every stored file."""
    large: dict[str, list[int]] = field(default_factory=dict)
    """Files over the size cap (not stored): path → [size, mtime_ns]."""


@dataclass(frozen=True)
class Change:
    """One path that differs between two trees (`a` → `b`)."""

    path: str
    a_mode: str
    a_blob: str
    b_mode: str
    b_blob: str


@dataclass
class RestoreReport:
    """What a restore did, path by path."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    """Changed by hand since the checkpoint: left as they are (unless forced)."""
    not_restored: list[str] = field(default_factory=list)
    """Over the size cap, or of a kind git does not store: could not be put back."""
    not_ours: list[str] = field(default_factory=list)
    """Changed during the turns by another session or program, not by their own tools: left
    as they are."""
    diff: str = ""
    """A preview's unified diff (state left → state restored) of the paths it would write."""


def shadow_dir(project_root: Path, data_dir: Path) -> Path:
    key = hashlib.sha256(str(project_root.resolve()).encode()).hexdigest()[:16]
    return data_dir / "checkpoints" / key


class ShadowRepo:
    """Snapshots and restores of one project's work tree (blocking: call it in a thread)."""

    def __init__(self, project_root: Path, git_dir: Path, *,
                 max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = project_root.resolve()
        self.git_dir = git_dir
        self.max_file_bytes = max_file_bytes
        self._env: dict[str, str] | None = None
        self._held = threading.local()
        """`depth`: how many `locked()` this thread is inside (it holds the flock once)."""

    # -- plumbing -------------------------------------------------------------------------
    def _environment(self) -> dict[str, str]:
        if self._env is None:
            self._init()
            env = child_env(self.root)
            env.update(GIT_ENV)
            env.pop("GIT_OPTIONAL_LOCKS", None)  # the shadow index is ours to refresh
            env.update(_IDENTITY, GIT_DIR=str(self.git_dir), GIT_WORK_TREE=str(self.root),
                       GIT_INDEX_FILE=str(self.git_dir / "index"), GIT_CONFIG_GLOBAL=os.devnull,
                       GIT_NO_REPLACE_OBJECTS="1")
            self._env = env
        return self._env

    def _init(self) -> None:
        """Create the repository once; another process may be creating it at the same time."""
        ready = self.git_dir / "valarmind-ready"
        if ready.is_file():
            return
        self.git_dir.parent.mkdir(parents=True, exist_ok=True)
        with self._flock():
            if not ready.is_file():
                try:
                    self._create()
                except subprocess.CalledProcessError as exc:
                    raise ShadowError(f"git init: {exc.stderr.decode(errors='replace')}") from exc
                ready.touch()

    def _create(self) -> None:
        env = {**child_env(self.root), **GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull}
        subprocess.run(["git", *SAFE_FLAGS, "init", "-q", "--bare", str(self.git_dir)],
                       check=True, env=env, capture_output=True)
        for key, value in (("core.bare", "false"), ("gc.auto", "0"),
                           ("core.logAllRefUpdates", "false"), ("core.untrackedCache", "true"),
                           ("core.splitIndex", "true"), ("index.version", "4")):
            subprocess.run(["git", "--git-dir", str(self.git_dir), "config", key, value],
                           check=True, env=env, capture_output=True)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES)
        (info / "exclude").write_text(".git/\n" + self._project_excludes())

    def _project_excludes(self) -> str:
        """The project's own `.git/info/exclude`, when it has one (read once, at creation)."""
        try:
            return (self.root / ".git" / "info" / "exclude").read_text(errors="replace")
        except OSError:
            return ""

    def git(self, *args: str, input: bytes | None = None) -> bytes:  # noqa: A002
        done = subprocess.run(["git", *SHADOW_FLAGS, *args], cwd=self.root, input=input,
                              env=self._environment(), capture_output=True)
        if done.returncode != 0:
            raise ShadowError(f"git {args[0]}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def git_many(self, commands: Sequence[Sequence[str]]) -> list[bytes]:
        """Several read-only git commands at once; their outputs in order."""
        procs = [subprocess.Popen(["git", *SHADOW_FLAGS, *args], cwd=self.root,
                                  env=self._environment(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for args in commands]
        outputs = []
        for args, proc in zip(commands, procs, strict=True):
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise ShadowError(f"git {args[0]}: {err.decode(errors='replace').strip()}")
            outputs.append(out)
        return outputs

    @contextlib.contextmanager
    def _flock(self) -> Iterator[None]:
        with open(self.git_dir.parent / f"{self.git_dir.name}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One process at a time in the shadow repository (two sessions may share a project);
        a lock git left when a snapshot was killed is cleared first (checkpoints/stale_locks.py).
        Every write holds it: a ref's `.lock` seen while holding it is no live write of
        another session's, and `gc --prune=now` (upkeep.py) never meets an object written but
        not yet referenced. Re-entered by the thread that holds it."""
        depth = getattr(self._held, "depth", 0)
        if depth:
            self._held.depth = depth + 1
            try:
                yield
            finally:
                self._held.depth = depth
            return
        self._environment()
        with self._flock():
            remove_stale_locks(self.git_dir)
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0

    # -- snapshots ------------------------------------------------------------------------
    def snapshot(self, *, room_share: float | None = None) -> Snapshot:
        """Record the work tree now; returns its tree id and the files too large to store.

        With `room_share`, raise NoRoom instead when the files to copy are more than that share
        of the free space where the shadow repository lives (a warm-up must not fill a disk
        for a session that may never write)."""
        with self.locked():
            return self._snapshot(room_share)

    def _snapshot(self, room_share: float | None = None) -> Snapshot:
        # tracked files that changed, and new ones: two walks, run side by side
        listed = self.git_many([("ls-files", "-z", "-m", "-d"),
                                ("ls-files", "-z", "-o", "--exclude-standard")])
        paths = dict.fromkeys(p for out in listed for p in os.fsdecode(out).split("\0") if p)
        add: list[str] = []
        adding = 0
        drop: list[str] = []
        large: dict[str, list[int]] = {}
        real_dirs: dict[str, bool] = {}
        for path in paths:
            if path.endswith("/"):  # another repository nested inside: not ours to record
                continue
            if not under_real_dirs(self.root, path, real_dirs):
                drop.append(path)  # its folder became a link or a file: gone from the project
                continue
            try:
                info = os.lstat(self.root / path)
            except (FileNotFoundError, NotADirectoryError):
                drop.append(path)
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > self.max_file_bytes:
                large[path] = [info.st_size, info.st_mtime_ns]
                drop.append(path)
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                add.append(path)
                adding += info.st_size
            else:
                drop.append(path)
        if len(add) > MAX_NEW_FILES:
            raise ShadowError(f"{len(add):,} new files to record, more than {MAX_NEW_FILES:,}; "
                              "add the bulky folders to .gitignore")
        if room_share is not None and adding > room_share * shutil.disk_usage(self.git_dir).free:
            raise NoRoom(f"{adding:,} bytes to copy into {self.git_dir}, more than "
                         f"{room_share:.0%} of the free space")
        if drop:
            self.git("update-index", "--force-remove", "-z", "--stdin", input=_nul(drop))
        if add:
            self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin",
                     input=_nul(add))
        tree = self.git("write-tree").decode().strip()
        return Snapshot(tree, large)

    def commit(self, tree: str, message: str, parent: str | None = None) -> str:
        """A commit of `tree` (call it inside `locked()` up to the ref that keeps it)."""
        args = ["commit-tree", tree] + (["-p", parent] if parent else [])
        with self.locked():
            return self.git(*args, input=message.encode()).decode().strip()

    def set_ref(self, ref: str, commit: str) -> None:
        with self.locked():
            self.git("update-ref", ref, commit)

    def delete_ref(self, ref: str) -> None:
        with self.locked():
            self.git("update-ref", "-d", ref)

    def refs(self, prefix: str) -> list[tuple[str, str, str, str]]:
        """(ref, commit, tree, message) of every ref under `prefix`."""
        fmt = "%(refname)%00%(objectname)%00%(tree)%00%(contents)%00%00"
        out = self.git("for-each-ref", f"--format={fmt}", prefix).decode(errors="replace")
        rows = []
        for record in out.split("\0\0"):
            parts = record.strip("\n").split("\0")
            if len(parts) >= 4 and parts[0]:
                rows.append((parts[0], parts[1], parts[2], parts[3]))
        return rows

    def diff(self, a_tree: str, b_tree: str) -> list[Change]:
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--raw", a_tree, b_tree)
        fields = os.fsdecode(out).split("\0")
        changes = []
        for head, path in zip(fields[0::2], fields[1::2], strict=False):
            if not head.startswith(":"):
                continue
            a_mode, b_mode, a_blob, b_blob, _status = head[1:].split(" ")
            changes.append(Change(path, a_mode, a_blob, b_mode, b_blob))
        return changes

    def blobs(self, ids: Sequence[str]) -> dict[str, bytes]:
        """The contents of blobs, read in one `cat-file --batch`."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        out = self.git("cat-file", "--batch", input="\n".join(wanted).encode() + b"\n")
        found: dict[str, bytes] = {}
        pos = 0
        for blob in wanted:
            end = out.index(b"\n", pos)
            header = out[pos:end].split(b" ")
            size = int(header[2])
            found[blob] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return found

    # -- restores -------------------------------------------------------------------------
    def restore(self, target: Snapshot, expected: Snapshot, *, force: bool = False,
                preview: bool = False, only: Collection[str] | None = None,
                ) -> tuple[RestoreReport, Snapshot]:
        """Put back the files that differ between `expected` (the state we left) and `target`.

        A file whose content now differs from `expected` was changed by someone else: it is a
        conflict, left alone unless `force`. Returns the report and the state before the
        restore (what undoing it would go back to). `preview` writes nothing: the report says
        what would be written and removed, with the conflicts. `only`: the paths the turns'
        own tools changed; any other path that differs was changed by someone else meanwhile
        and is left (reported in `not_ours`)."""
        with self.locked():
            current = self._snapshot()
            report = RestoreReport()
            since = {c.path: c for c in self.diff(expected.tree, current.tree)}
            changes = self.diff(expected.tree, target.tree)
            apply: list[Change] = []
            for change in changes:
                now = since.get(change.path)
                if now is not None and (now.b_mode, now.b_blob) == (change.b_mode, change.b_blob):
                    continue  # already as wanted
                if only is not None and change.path not in only:
                    report.not_ours.append(change.path)
                    continue
                if now is not None and not force:
                    report.conflicts.append(change.path)
                    continue
                apply.append(change)
            if preview:
                report.written += [c.path for c in apply if c.b_mode != GONE]
                report.removed += [c.path for c in apply if c.b_mode == GONE]
                report.diff = self._preview_diff(expected.tree, target.tree, apply)
            else:
                self._apply(apply, report)
            report.not_restored += sorted(
                p for p in set(target.large) | set(expected.large) | set(current.large)
                if target.large.get(p) != current.large.get(p)
            )
            return report, current

    def _preview_diff(self, a_tree: str, b_tree: str, changes: list[Change]) -> str:
        """The unified diff of what a restore would write (text files; the project's own
        diff drivers never run)."""
        if not changes:
            return ""
        paths = [c.path for c in changes]
        out = self.git("diff", "--no-ext-diff", "--no-textconv", "--no-color", a_tree, b_tree,
                       "--", *paths)
        return out.decode(errors="replace")

    def _apply(self, changes: list[Change], report: RestoreReport) -> None:
        contents = self.blobs([c.b_blob for c in changes if c.b_mode != GONE])
        for change in sorted(changes, key=lambda c: c.b_mode != GONE):  # removals first
            target = self.root / change.path
            if change.b_mode == GONE:
                if remove_file(target, self.root):
                    report.removed.append(change.path)
                continue
            if change.b_mode not in ("100644", "100755", "120000"):
                report.not_restored.append(change.path)
                continue
            try:
                write_file(self.root, change.path, contents[change.b_blob], change.b_mode)
            except OSError:
                report.not_restored.append(change.path)
                continue
            report.written.append(change.path)


def _nul(paths: Sequence[str]) -> bytes:
    return b"\0".join(os.fsencode(p) for p in paths) + b"\0"
