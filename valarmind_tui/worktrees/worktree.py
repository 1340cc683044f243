"""A ValarMind worktree: created from the person's HEAD plus their uncommitted changes, listed,
removed.

Where they live: `<data dir>/worktrees/<project>-<hash>/<NAME>`, outside the project. Inside the
project (`.valarmind/worktrees/`) every tool that walks the tree (grep, the repo map, pytest's
collection, a build's package discovery, an editor's watcher) would see N more copies of it,
a session in the person's tree could write into a worktree (the project is writable in the
sandbox), and `.valarmind/` is read-only configuration there anyway. Outside, the sandbox of the
person's own sessions hides the data dir, so their sessions never see the worktrees either.

Each worktree is a branch `valarmind/<NAME>` checked out at the person's HEAD, its files the
person's working tree (`git add -A` through a copy of their index: staged, unstaged and
untracked-not-ignored), its index their staged state, so `git diff` and `git status` inside
read as they did outside. The base, that working tree as a commit on top of HEAD, is kept as
`refs/valarmind/worktrees/<NAME>/base`: a merge brings back only what changed since.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.safety.sandbox.project import GIT_PLACEHOLDER_DIRS
from valarmind_tui.worktrees.git import RepoGit, WorktreeError, remove_tree, valid_name

BRANCH_PREFIX = "valarmind/"
REF_PREFIX = "refs/valarmind/worktrees/"


@dataclass(frozen=True)
class Worktree:
    name: str
    path: Path
    branch: str
    base: str
    """The commit of the person's working tree when it was made (parent: their HEAD then)."""

    @property
    def base_ref(self) -> str:
        return f"{REF_PREFIX}{self.name}/base"

    @property
    def merged_ref(self) -> str:
        return f"{REF_PREFIX}{self.name}/merged"


def worktrees_home(project_root: Path) -> Path:
    """This project's worktrees' folder (one per project, named after it)."""
    root = project_root.resolve()
    key = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return user_data_dir() / "worktrees" / f"{root.name or 'root'}-{key}"


def main_root(root: Path) -> Path:
    """The person's working tree for `root`, which may itself be one of our worktrees."""
    git = RepoGit.of(root)
    common = git.common_dir()
    return common.parent if common.name == ".git" else git.root


def create(project_root: Path, name: str) -> Worktree:
    """A new worktree NAME from the person's HEAD and working tree; nothing of theirs written
    but objects, refs and the git dir's empty folders (WorktreeError when NAME is taken)."""
    git = RepoGit.of(project_root)
    valid_name(name)
    branch = BRANCH_PREFIX + name
    if find(project_root, name) is not None or git.call(
            "show-ref", "--verify", "-q", f"refs/heads/{branch}").returncode == 0:
        raise WorktreeError(f"a worktree or branch named {name} exists already: open it, or "
                            f"remove it first (valarmind worktrees remove {name})")
    head = git.head()
    _settle_git_dir(git.common_dir())
    state = git.state()
    base = git.commit_tree(state.full, head, f"valarmind worktree {name}: the working tree")
    path = worktrees_home(git.root) / name
    if path.exists():
        raise WorktreeError(f"{path} exists but is no worktree of this project: remove it")
    path.parent.mkdir(parents=True, exist_ok=True)
    git.run("worktree", "add", "--no-checkout", "-b", branch, str(path), head)
    try:
        git.run("update-ref", f"{REF_PREFIX}{name}/base", base)
        inside = RepoGit.of(path)
        _settle_git_dir(inside.git_dir)
        inside.run("read-tree", "-u", "--reset", state.full)
        if state.staged != state.full:  # -m: the stat data of the same files stays
            inside.run("read-tree", "-m", state.staged)
    except Exception:
        discard(git, path, branch, name)
        raise
    return Worktree(name, path, branch, base)


def _settle_git_dir(git_dir: Path) -> None:
    """Give a git dir (the repository's, a worktree's own) the folders the sandbox would
    otherwise stand in for with a placeholder mount (`modules`, `remotes`, `branches`: empty,
    as `git init` of old made them). A placeholder is made and removed around each command:
    with attempts' commands running at once in several worktrees of one repository, one
    command's placeholder was another's read-only bind, gone before that command started
    ("Can't find source path")."""
    for name in GIT_PLACEHOLDER_DIRS:
        (git_dir / name).mkdir(exist_ok=True)


def discard(git: RepoGit, path: Path, branch: str, name: str) -> None:
    """Take a worktree away with its branch and refs, whatever it holds."""
    git.call("worktree", "remove", "--force", "--force", str(path))
    remove_tree(path)
    git.call("worktree", "prune")
    git.call("branch", "-D", branch)
    for ref in ("base", "merged"):
        git.call("update-ref", "-d", f"{REF_PREFIX}{name}/{ref}")


def list_all(project_root: Path) -> list[Worktree]:
    """Every worktree of ours in this repository, by name."""
    git = RepoGit.of(project_root)
    found: list[Worktree] = []
    path: Path | None = None
    for line in git.run("worktree", "list", "--porcelain", "-z").decode(
            errors="surrogateescape").split("\0"):
        if line.startswith("worktree "):
            path = Path(line.removeprefix("worktree "))
        elif line.startswith("branch refs/heads/" + BRANCH_PREFIX) and path is not None:
            name = line.removeprefix("branch refs/heads/" + BRANCH_PREFIX)
            done = git.call("rev-parse", "--verify", "-q", f"{REF_PREFIX}{name}/base")
            if done.returncode == 0:
                found.append(Worktree(name, path, BRANCH_PREFIX + name,
                                      done.stdout.decode().strip()))
    return sorted(found, key=lambda w: w.name)


def open_or_create(project_root: Path, name: str) -> Worktree:
    """Worktree NAME, made now when it does not exist yet."""
    return find(project_root, valid_name(name)) or create(project_root, name)


def find(project_root: Path, name: str) -> Worktree | None:
    return next((w for w in list_all(project_root) if w.name == name), None)


def get(project_root: Path, name: str) -> Worktree:
    found = find(project_root, valid_name(name))
    if found is None:
        raise WorktreeError(f"no worktree named {name} (valarmind worktrees lists them)")
    return found


def unmerged(project_root: Path, worktree: Worktree) -> list[str]:
    """Files the worktree changed that were never merged back (empty: nothing to lose)."""
    if not (worktree.path / ".git").exists():
        return [f"(its folder {worktree.path} is gone; its branch {worktree.branch} is left)"]
    git, inside = RepoGit.of(project_root), RepoGit.of(worktree.path)
    now = inside.state().full
    merged = git.call("rev-parse", "--verify", "-q", worktree.merged_ref)
    if merged.returncode == 0 and git.tree_of(merged.stdout.decode().strip()) == now:
        return []
    return git.changed(git.tree_of(worktree.base), now)


def remove(project_root: Path, name: str, *, force: bool = False) -> Worktree:
    """Remove the worktree NAME, its branch and refs; refused while it holds unmerged work
    unless `force`."""
    worktree = get(project_root, name)
    if not force:
        left = unmerged(project_root, worktree)
        if left:
            shown = ", ".join(left[:5]) + (" ..." if len(left) > 5 else "")
            raise WorktreeError(f"worktree {name} has changes never merged ({shown}): merge it "
                                "(valarmind worktrees merge), or remove it with --force")
    discard(RepoGit.of(project_root), worktree.path, worktree.branch, name)
    return worktree
