"""The `valarmind` command line: the options, the subcommands and their arguments.

Kept light: building the parser imports nothing heavy (no litellm, textual or mcp).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from valarmind_tui import __version__


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that never reads a prefix as an option (`allow_abbrev=False`); its
    subcommands' parsers are Parsers too. With prefixes, the top parser read `commit --all` as
    an abbreviation of its own --allow-* options and stopped: "ambiguous option"."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        self.takes_value: dict[str, bool] = {}
        """Each option string of this parser, and whether it takes one value after it."""
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        for name in action.option_strings:
            self.takes_value[name] = action.nargs is None
        return action


MODES = ["default", "accept-edits", "plan", "bypass"]


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="LiteLLM model string or alias (overrides config)")
    parser.add_argument("--api-base", dest="api_base", help="model endpoint URL")
    parser.add_argument("--cwd", type=Path, default=None,
                        help="project root (default: the git root above here)")
    parser.add_argument(
        "--trust-project", dest="trust_project", action="store_true",
        help="load this repository's own configuration (.valarmind/, .mcp.json, plugins) for "
             "this run; it can never set the mode, endpoints, keys or sandbox",
    )


def _no_daemon_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-daemon", dest="no_daemon", action="store_true",
                        help="call the model from this process, not the warm model daemon "
                             "(config: model_daemon = false)")


def _project_commands_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-project-commands", dest="allow_project_commands", action="store_true",
        default=None,
        help="let the project's detected build, lint, type-check and test commands run headless "
             "(matched by argv prefix, one simple command each, in the sandbox)",
    )
    parser.add_argument(
        "--allow-sampling", dest="allow_sampling", action="store_true", default=None,
        help="answer MCP servers' sampling requests with your model in a headless run",
    )


def _budget_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-cost-usd", dest="max_cost_usd", type=_positive(float),
                        metavar="USD", help="stop the run once its model calls cost this much")
    parser.add_argument("--max-tokens", dest="max_tokens", type=_positive(int), metavar="N",
                        help="stop the run once its model calls used this many tokens")
    parser.add_argument("--max-turns", dest="max_turns", type=_positive(int), metavar="N",
                        help="stop the run after this many agent model calls")
    parser.add_argument("--max-time", dest="max_time", type=duration, metavar="TIME",
                        help="stop the run after this long (90, 90s, 5m, 1h)")


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0: {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


_UNIT_S = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def duration(text: str) -> float:
    """`90`, `90s`, `5m`, `1.5h` in seconds."""
    number = text.strip().rstrip("smhin")
    unit = text.strip()[len(number):]
    try:
        seconds = float(number) * _UNIT_S[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (90, 90s, 5m, 1h)") from None
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text}")
    return seconds


HELP_EPILOG = """\
A task as the first argument (valarmind "fix the failing test") starts the TUI with it as the
first prompt; with --plain, the REPL; when the output is not a terminal, it runs as -p.

configuration:
  ~/.config/valarmind/config.toml   yours ($XDG_CONFIG_HOME/valarmind when set): model,
                                    api_key_env, aliases, hooks, MCP servers, rules
  .valarmind/config.toml            the project's, loaded only once you trust the folder
  VALARMIND_<SETTING>               environment, e.g. VALARMIND_MODEL, VALARMIND_API_BASE,
                                    VALARMIND_PERMISSION_MODE; flags win over all of these

exit codes:
  0 done   1 failed   2 usage or configuration error   3 stopped by a limit before done
  4 escalated (the same intent denied three times)   130 interrupted
  8 budget: a --max-* flag's or [budget]'s limit was spent; the work and the session are
    kept for --resume (docs/budgets.md)
  (valarmind commit adds 5 and 6: see valarmind commit --help)
  goals (valarmind goal, -p --goal): 0 done (every check passed on the final tree)
  1 failed or cancelled   8 budget   9 stalled   10 weakened (a round weakened the checks)
  11 max rounds
  12 nothing merged (--best-of, worktrees merge: no attempt passed, a conflict, failing checks)

examples:
  valarmind                                   the TUI in this folder
  valarmind "explain src/app.py"              the TUI, starting with that prompt
  valarmind -p "add a test for greet" --output-format jsonl
  valarmind review --staged --fail-on major   static review, as a pre-commit hook
  valarmind init --yes                        write VALARMIND.md without asking
  valarmind goal "make the tests pass" --check "pytest -q"   rounds until the check passes
  valarmind --worktree feature                a session in a worktree of its own
  valarmind -p "fix the flaky test" --best-of 3 --check "pytest -q"
"""


def build_parser() -> Parser:
    parser = Parser(
        prog="valarmind", description="ValarMind: a terminal coding assistant.",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"valarmind {__version__}")
    _common(parser)
    parser.add_argument("-p", "--print", dest="prompt", metavar="TASK",
                        help="run one task headless and print the answer")
    parser.add_argument("--output-format", choices=["text", "json", "jsonl"], default="text")
    _no_daemon_flag(parser)
    parser.add_argument("--permission-mode", choices=MODES)
    _project_commands_flag(parser)
    _budget_flags(parser)
    parser.add_argument("--plain", action="store_true", help="line-mode REPL (no full-screen UI)")
    parser.add_argument("--goal", action="store_true",
                        help="with -p: work in rounds until the checks pass (see valarmind goal)")
    _goal_flags(parser)
    parser.add_argument("--resume", metavar="SESSION", nargs="?", const="last",
                        help="resume a stored session (the last one by default)")
    parser.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                        help="continue the last session in this project")
    _worktree_flags(parser)
    sub = parser.add_subparsers(dest="command")
    for command in SUBCOMMANDS.values():
        one = sub.add_parser(command.name, help=command.help, description=command.description)
        command.arguments(one)
    return parser


@dataclass(frozen=True)
class Subcommand:
    """One `valarmind NAME`: its line in --help and the arguments it takes."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    description: str | None = None


def _goal_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", dest="checks", action="append", metavar="CMD",
                        help="a check ValarMind runs itself: after each round of a goal, on "
                             "each --best-of attempt (repeatable; default: the project's "
                             "detected commands)")
    parser.add_argument("--approve-weakening", dest="approve_weakening", action="store_true",
                        help="let a goal go on when a round weakens its checks (skips, "
                             "removed assertions, `|| true`); without it the goal stops as "
                             "weakened")
    parser.add_argument("--max-rounds", dest="max_rounds", type=int, metavar="N",
                        help="a goal's round limit (default: goal_max_rounds, 20)")


def _goal(goal: argparse.ArgumentParser) -> None:
    _common(goal)
    goal.add_argument("text", nargs="*", help="the goal (empty with --resume: continue it)")
    _goal_flags(goal)
    goal.add_argument("--output-format", dest="output_format", choices=["text", "json", "jsonl"],
                      default="text")
    goal.add_argument("--permission-mode", choices=MODES)
    _project_commands_flag(goal)
    _budget_flags(goal)  # for the whole goal, every round together
    goal.add_argument("--resume", metavar="SESSION", nargs="?", const="last",
                      help="continue the goal a stored session left unfinished (the last "
                           "session by default)")


def _run(run: argparse.ArgumentParser) -> None:
    _common(run)
    run.add_argument("--agent", required=True, help="profile or agent name")
    run.add_argument("--prompt", required=True, type=Path, help="system prompt file")
    run.add_argument("--output", required=True, type=Path, help="where the final answer goes")
    run.add_argument("--permission-mode", choices=MODES)
    _no_daemon_flag(run)
    _project_commands_flag(run)
    _budget_flags(run)
    run.add_argument("paths", nargs="*", help="paths for the agent to work on (after --)")


def _mcp(mcp: argparse.ArgumentParser) -> None:
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    serve = mcp_sub.add_parser("serve", help="expose the agents as MCP tools")
    _common(serve)
    serve.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1")
    serve.add_argument("--permission-mode", choices=MODES)
    serve.add_argument("--tool-timeout", dest="tool_timeout", type=float, metavar="SECONDS",
                       help="time limit of one tool call (default: [mcp] serve_tool_timeout_s, "
                            "300)")


def _acp(acp: argparse.ArgumentParser) -> None:
    acp.add_argument("--model", help="LiteLLM model string or alias (overrides config)")
    acp.add_argument("--api-base", dest="api_base", help="model endpoint URL")
    acp.add_argument("--permission-mode", choices=MODES,
                     help="the mode new sessions start in (the editor can switch it)")


def _init(init: argparse.ArgumentParser) -> None:
    _common(init)
    init.add_argument("--yes", action="store_true", help="write without asking")


def _map(map_: argparse.ArgumentParser) -> None:
    _common(map_)
    map_.add_argument("--tokens", type=int, default=1024)
    map_.add_argument("--json", action="store_true")


def _review(review: argparse.ArgumentParser) -> None:
    _common(review)
    review.add_argument("target", nargs="*", help="--staged, a ref, A..B, A...B or files")
    review.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    review.add_argument("--sarif", type=Path, metavar="FILE",
                        help="also write the findings as SARIF 2.1.0 (for code scanning)")
    review.add_argument("--fail-on", dest="fail_on",
                        choices=["critical", "major", "minor", "info"],
                        help="exit 1 when a finding is this severe or worse")


def _commit(commit: argparse.ArgumentParser) -> None:
    _common(commit)
    commit.add_argument("--push", action="store_true", help="push to the upstream afterwards")
    commit.add_argument("--no-review", dest="no_review", action="store_true",
                        help="commit without the review (it is reported as skipped)")
    commit.add_argument("-a", "--all", action="store_true",
                        help="stage every change to tracked files first")
    commit.add_argument("-m", "--message", help="the commit message (no model writes one)")


def _undo_redo(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    _checkpoint_flags(parser)


def _rewind(rewind: argparse.ArgumentParser) -> None:
    _undo_redo(rewind)
    which = rewind.add_mutually_exclusive_group(required=True)
    which.add_argument("--list", action="store_true", help="the turns that changed files")
    which.add_argument("--to", type=int, metavar="N", help="the files as before turn N")
    which.add_argument("--prompt", type=int, metavar="N",
                       help="back to before your message N (see --scope); --prompt 0 lists them")
    rewind.add_argument("--scope", choices=["files", "conversation", "both"], default="files",
                        help="with --prompt: what goes back (default: files)")
    rewind.add_argument("--keep", action="store_true",
                        help="with --prompt: leave files changed by hand as they are")


def _sessions(sessions: argparse.ArgumentParser) -> None:
    _common(sessions)
    sessions.add_argument("--limit", type=int, default=20)
    sessions.add_argument("--json", action="store_true")


def _setup(setup: argparse.ArgumentParser) -> None:
    _common(setup)
    setup.add_argument("--json", action="store_true", help="one JSON array of every row")


def _cost(cost: argparse.ArgumentParser) -> None:
    _common(cost)
    cost.add_argument("--session", metavar="ID",
                      help="one stored session (`last`: this project's last; the default "
                           "without --since)")
    cost.add_argument("--since", metavar="DATE",
                      help="calls from this date on (2026-11-28 or 2026-11-28T14:00); without "
                           "--session, every session of every project")
    cost.add_argument("--json", action="store_true", help="the totals and every breakdown")


def _trust(trust: argparse.ArgumentParser) -> None:
    _common(trust)
    trust_how = trust.add_mutually_exclusive_group()
    trust_how.add_argument("--revoke", action="store_true", help="stop trusting this folder")
    trust_how.add_argument("--show", action="store_true",
                           help="show what changed since you trusted it; trust nothing")


def _worktree_flags(parser: Parser) -> None:
    parser.add_argument("--worktree", metavar="NAME", nargs="?", const="",
                        help="run in a git worktree of its own (made from HEAD and your "
                             "uncommitted changes; reopened when it exists)")
    parser.takes_value["--worktree"] = True  # `--worktree NAME` names it, never a task
    parser.add_argument("--best-of", dest="best_of", type=int, metavar="N",
                        help="with -p: N attempts in N worktrees at once, compared, the pick "
                             "merged back")
    parser.add_argument("--models", metavar="A,B,C",
                        help="with --best-of: one model or alias per attempt")
    parser.add_argument("--pick", choices=["first-passing", "cheapest-passing"],
                        default="first-passing", help="with --best-of: which passing attempt")


def _check_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", dest="checks", action="append", metavar="CMD",
                        help="a command that must pass (repeatable; default: the project's "
                             "detected test command)")


def _worktrees(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("action", nargs="?", default="list",
                        choices=["list", "open", "preview", "merge", "remove"])
    parser.add_argument("name", nargs="?", help="the worktree")
    _check_flag(parser)
    parser.add_argument("--force", action="store_true",
                        help="remove even with changes never merged")


SUBCOMMANDS = {command.name: command for command in (
    Subcommand("run", "run one agent profile on files and write its answer to a file (for "
                      "scripts)", _run),
    Subcommand("mcp", "MCP server for IDEs", _mcp),
    Subcommand("acp", "Agent Client Protocol agent on stdio, for editors (Zed, Neovim...)", _acp),
    Subcommand("init", "write VALARMIND.md for this project", _init),
    Subcommand("map", "print the repository map", _map),
    Subcommand("review", "review the working tree, --staged, a ref range (A..B, A...B) or files",
               _review, "Static findings (linters, security rules, secrets, what the change "
                        "breaks elsewhere, risk areas) and, with a model, the review agent's."),
    Subcommand("commit", "check, review, write the message and commit what is staged", _commit,
               "check (the detected lint, type-check and test commands) → confirm (the review "
               "agent on the staged diff) → message → git commit; a JSON summary."),
    Subcommand("goal", "work in rounds until the checks pass (headless)", _goal,
               "Each round is one prompt of the orchestrator; after it ValarMind runs every "
               "check itself (in the sandbox) and gives the results to the next round. Ends "
               "done only when every check passed on the final tree; stalled after "
               "goal_stall_rounds rounds without progress; weakened when a round skips, "
               "deletes or loosens tests or changes a check (see the exit codes in "
               "valarmind --help)."),
    Subcommand("undo", "take back the files the last turn changed", _undo_redo),
    Subcommand("redo", "put back what undo took back", _undo_redo),
    Subcommand("rewind", "list the turns, or restore the files to before one", _rewind),
    Subcommand("sessions", "the stored sessions of this project", _sessions),
    Subcommand("cost", "the ledger of model calls: tokens and cost by agent, tool, MCP server, "
                       "reviewer, round", _cost),
    Subcommand("setup", "what of your Claude Code, Codex or Gemini setup loads", _setup),
    Subcommand("trust", "trust this folder's own configuration, or take it back", _trust),
    Subcommand("worktrees", "list, open, preview, merge or remove ValarMind's worktrees",
               _worktrees, "A merge predicts conflicts with your tree and the "
               "other worktrees, runs the checks on the merged tree, then writes it onto your "
               "files (never your index); see docs/worktrees.md."),
)}
"""Every subcommand, in the order --help lists them."""


def _checkpoint_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="ID", default="last",
                        help="the stored session (default: the last one in this project)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite files changed by hand since the checkpoint")
    parser.add_argument("--preview", action="store_true",
                        help="show what would change (a diff, the conflicts); write nothing")


def bare_task(parser: Parser, argv: list[str]) -> tuple[list[str], str | None]:
    """`valarmind fix the bug` / `valarmind "fix the bug"`: the words where a subcommand would
    stand, when they are not one, taken out of `argv` as a task. A lone word close to a
    subcommand (`reveiw`) is a typo, left for the parser to refuse with the names."""
    import difflib

    commands = set(SUBCOMMANDS)
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        one_value = parser.takes_value.get(argv[i], False) and "=" not in argv[i]
        i += 2 if one_value else 1
    if i >= len(argv) or argv[i] in commands:
        return argv, None
    end = i
    while end < len(argv) and not argv[end].startswith("-"):
        end += 1
    words = argv[i:end]
    if len(words) == 1 and " " not in words[0] and difflib.get_close_matches(
            words[0], commands, n=1, cutoff=0.75):
        return argv, None
    return argv[:i] + argv[end:], " ".join(words)
