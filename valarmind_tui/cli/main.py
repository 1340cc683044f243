"""Command-line entry: arguments → Settings → the chosen face.

Kept light: `valarmind --version` imports nothing heavy (no litellm, textual or mcp).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from valarmind_tui import __version__
from valarmind_tui.core.visible_text import visible

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that never reads a prefix as an option (`allow_abbrev=False`); its
    subcommands' parsers are Parsers too. With prefixes, the top parser read `commit --all` as
    an abbreviation of its own --allow-* options and stopped: "ambiguous option"."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)


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
  (valarmind commit adds 5 and 6: see valarmind commit --help)

examples:
  valarmind                                   the TUI in this folder
  valarmind "explain src/app.py"              the TUI, starting with that prompt
  valarmind -p "add a test for greet" --output-format jsonl
  valarmind review --staged --fail-on major   static review, as a pre-commit hook
  valarmind init --yes                        write VALARMIND.md without asking
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="valarmind", description="ValarMind: a terminal coding assistant.",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"valarmind {__version__}")
    _common(parser)
    parser.add_argument("-p", "--print", dest="prompt", metavar="TASK",
                        help="run one task headless and print the answer")
    parser.add_argument("--output-format", choices=["text", "json", "jsonl"], default="text")
    parser.add_argument("--permission-mode", choices=["default", "accept-edits", "plan", "bypass"])
    _project_commands_flag(parser)
    parser.add_argument("--plain", action="store_true", help="line-mode REPL (no full-screen UI)")
    parser.add_argument("--resume", metavar="SESSION", nargs="?", const="last",
                        help="resume a stored session (the last one by default)")
    parser.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                        help="continue the last session in this project")
    sub = parser.add_subparsers(dest="command")

    run = sub.add_parser(
        "run", help="run one agent profile on files and write its answer to a file (for scripts)")
    _common(run)
    run.add_argument("--agent", required=True, help="profile or agent name")
    run.add_argument("--prompt", required=True, type=Path, help="system prompt file")
    run.add_argument("--output", required=True, type=Path, help="where the final answer goes")
    run.add_argument("--permission-mode", choices=["default", "accept-edits", "plan", "bypass"])
    _project_commands_flag(run)
    run.add_argument("paths", nargs="*", help="paths for the agent to work on (after --)")

    mcp = sub.add_parser("mcp", help="MCP server for IDEs")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    serve = mcp_sub.add_parser("serve", help="expose the agents as MCP tools")
    _common(serve)
    serve.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1")
    serve.add_argument("--permission-mode", choices=["default", "accept-edits", "plan", "bypass"])
    serve.add_argument("--tool-timeout", dest="tool_timeout", type=float, metavar="SECONDS",
                       help="time limit of one tool call (default: [mcp] serve_tool_timeout_s, "
                            "300)")

    acp = sub.add_parser(
        "acp", help="Agent Client Protocol agent on stdio, for editors (Zed, Neovim...)")
    acp.add_argument("--model", help="LiteLLM model string or alias (overrides config)")
    acp.add_argument("--api-base", dest="api_base", help="model endpoint URL")
    acp.add_argument("--permission-mode", choices=["default", "accept-edits", "plan", "bypass"],
                     help="the mode new sessions start in (the editor can switch it)")

    init = sub.add_parser("init", help="write VALARMIND.md for this project")
    _common(init)
    init.add_argument("--yes", action="store_true", help="write without asking")

    map_ = sub.add_parser("map", help="print the repository map")
    _common(map_)
    map_.add_argument("--tokens", type=int, default=1024)
    map_.add_argument("--json", action="store_true")

    review = sub.add_parser(
        "review", help="review the working tree, --staged, a ref range (A..B, A...B) or files",
        description="Static findings (linters, security rules, secrets, what the change breaks "
                    "elsewhere, risk areas) and, with a model, the review agent's.")
    _common(review)
    review.add_argument("target", nargs="*", help="--staged, a ref, A..B, A...B or files")
    review.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    review.add_argument("--sarif", type=Path, metavar="FILE",
                        help="also write the findings as SARIF 2.1.0 (for code scanning)")
    review.add_argument("--fail-on", dest="fail_on",
                        choices=["critical", "major", "minor", "info"],
                        help="exit 1 when a finding is this severe or worse")

    commit = sub.add_parser(
        "commit", help="check, review, write the message and commit what is staged",
        description="check (the detected lint, type-check and test commands) → confirm (the "
                    "review agent on the staged diff) → message → git commit; a JSON summary.")
    _common(commit)
    commit.add_argument("--push", action="store_true", help="push to the upstream afterwards")
    commit.add_argument("--no-review", dest="no_review", action="store_true",
                        help="commit without the review (it is reported as skipped)")
    commit.add_argument("-a", "--all", action="store_true",
                        help="stage every change to tracked files first")
    commit.add_argument("-m", "--message", help="the commit message (no model writes one)")

    undo = sub.add_parser("undo", help="take back the files the last turn changed")
    _common(undo)
    _checkpoint_flags(undo)
    redo = sub.add_parser("redo", help="put back what undo took back")
    _common(redo)
    _checkpoint_flags(redo)
    rewind = sub.add_parser("rewind", help="list the turns, or restore the files to before one")
    _common(rewind)
    _checkpoint_flags(rewind)
    which = rewind.add_mutually_exclusive_group(required=True)
    which.add_argument("--list", action="store_true", help="the turns that changed files")
    which.add_argument("--to", type=int, metavar="N", help="the files as before turn N")
    which.add_argument("--prompt", type=int, metavar="N",
                       help="back to before your message N (see --scope); --prompt 0 lists them")
    rewind.add_argument("--scope", choices=["files", "conversation", "both"], default="files",
                        help="with --prompt: what goes back (default: files)")
    rewind.add_argument("--keep", action="store_true",
                        help="with --prompt: leave files changed by hand as they are")

    sessions = sub.add_parser("sessions", help="the stored sessions of this project")
    _common(sessions)
    sessions.add_argument("--limit", type=int, default=20)
    sessions.add_argument("--json", action="store_true")

    setup = sub.add_parser("setup", help="what of your Claude Code, Codex or Gemini setup loads")
    _common(setup)
    setup.add_argument("--json", action="store_true", help="one JSON array of every row")

    trust = sub.add_parser("trust", help="trust this folder's own configuration, or take it back")
    _common(trust)
    trust_how = trust.add_mutually_exclusive_group()
    trust_how.add_argument("--revoke", action="store_true", help="stop trusting this folder")
    trust_how.add_argument("--show", action="store_true",
                           help="show what changed since you trusted it; trust nothing")
    return parser


def _checkpoint_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="ID", default="last",
                        help="the stored session (default: the last one in this project)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite files changed by hand since the checkpoint")
    parser.add_argument("--preview", action="store_true",
                        help="show what would change (a diff, the conflicts); write nothing")


def _trust_command(root: Path, args: argparse.Namespace) -> int:
    """`valarmind trust`: trust the folder's configuration as it is now (saying what changed
    since it was last trusted); `--show` only shows that; `--revoke` takes trust back."""
    from valarmind_tui.settings.trust.decision import CHANGED, decide, remember, repository_config

    decision = decide(root)
    if decision.how == CHANGED and decision.changes is not None:
        print(visible(f"{root}: its configuration {CHANGED} ({decision.changes.names()}):\n"
                      f"{decision.changes.diff}"))
    elif args.show:
        print(f"{root} is {'trusted' if decision.trusted else 'not trusted'} "
              f"({decision.how}); nothing changed to show.")
    if args.show:
        return EXIT_OK
    path = remember(root, not args.revoke)
    present = ", ".join(repository_config(root)) or "none yet"
    verb = "no longer trusted" if args.revoke else "trusted as it is now"
    print(visible(f"{root} is {verb} (saved in {path}). Its configuration: {present}."))
    return EXIT_OK


def _setup_command(root: Path, args: argparse.Namespace) -> int:
    """`valarmind setup`: setup/scan's one screen, or (`--json`) its rows."""
    from valarmind_tui.setup.scan import report

    print(report(root, Path.home(), args.trust_project, args.json, cwd=Path.cwd()))
    return EXIT_OK


def _settings(args: argparse.Namespace, trusted: bool | None = None) -> Any:
    """Settings for this run; the project's own config only when it is trusted (`trusted`
    when a face asked the person, else the remembered decision or --trust-project)."""
    from valarmind_tui.settings.config import load_settings
    from valarmind_tui.settings.trust.decision import decide

    flags: dict[str, Any] = {"model": args.model, "api_base": args.api_base}
    if getattr(args, "permission_mode", None):
        flags["permission_mode"] = args.permission_mode
    if getattr(args, "allow_project_commands", None):
        flags["allow_project_commands"] = True
    if getattr(args, "allow_sampling", None):
        flags["allow_sampling"] = True
    root = _root(args)
    if trusted is None:
        trusted = decide(root, flag=getattr(args, "trust_project", False)).trusted
    return load_settings(root, trusted=trusted, **flags)


def _root(args: argparse.Namespace) -> Path:
    """`--cwd` as given; else the git root above here (a run started in `src/` works on the
    whole repository, as Claude Code and Codex do)."""
    from valarmind_tui.setup.context_files import project_root_for

    return Path(args.cwd).resolve() if args.cwd is not None else project_root_for(Path.cwd())


SCREEN_UPDATES_PER_S = 120
"""At most this many screen updates a second (Textual's default is 60). A keystroke's echo
waits for the next update slot: up to 17 ms at 60, 8 at 120. A streamed answer's own frames
stay at 10-20 a second (ui/widgets/streaming_markdown.py). In tmux at 1,000 tokens/s, three
launches each: echo p95 52-64 -> 46-58 ms, the UI's CPU unchanged (40-46% of a core)."""


def _full_screen(root: Path, args: argparse.Namespace) -> int:
    """The TUI: its first frame at once, litellm importing on the other core while Textual
    loads, then the app, which asks about trust when it must and then loads the settings."""
    from valarmind_tui.faces.tui import skeleton as first_frame

    skeleton = first_frame.paint()
    os.environ.setdefault("TEXTUAL_FPS", str(SCREEN_UPDATES_PER_S))  # read when Textual loads
    try:
        from valarmind_tui.providers.process import client as model_process

        model_process.start()
        from valarmind_tui.faces.tui.launch import run_app

        return run_app(lambda trusted=None: _settings(args, trusted), root, args, skeleton)
    finally:
        if skeleton is not None:
            skeleton.abandon()


def entry() -> NoReturn:
    """The `valarmind` command: main(), then the exit without the interpreter's teardown (in
    `valarmind -p` 0.5 s after its last line went into freeing litellm's modules)."""
    from valarmind_tui.core.fast_exit import exit_without_teardown

    exit_without_teardown(main())


def bare_task(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[list[str], str | None]:
    """`valarmind fix the bug` / `valarmind "fix the bug"`: the words where a subcommand would
    stand, when they are not one, taken out of `argv` as a task. A lone word close to a
    subcommand (`reveiw`) is a typo, left for the parser to refuse with the names."""
    import difflib

    commands = set(_subcommands(parser))
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        action = parser._option_string_actions.get(argv[i])  # noqa: SLF001 - argparse has no public lookup
        one_value = action is not None and action.nargs is None and "=" not in argv[i]
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


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:  # noqa: SLF001 - argparse has no public lookup
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001 - as above
            return list(action.choices)
    return []


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    parser = build_parser()
    argv, task = bare_task(parser, sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    from valarmind_tui.core.errors import ConfigError, UsageError, ValarMindError

    if args.continue_last and args.resume is None:
        args.resume = "last"
    args.first_prompt = None
    if task is not None:
        if args.prompt is not None:
            parser.error("give the task once: as -p TASK or as the first argument")
        if args.plain or sys.stdout.isatty():
            args.first_prompt = task
        else:
            args.prompt = task
    try:
        root = _root(args)
        if args.command is None and args.prompt is None and not args.plain and sys.stdout.isatty():
            return _full_screen(root, args)
        if args.command == "trust":
            return _trust_command(root, args)
        if args.command == "setup":
            return _setup_command(root, args)
        if args.command is None and args.prompt is None:
            from valarmind_tui.faces.repl.plain import run_repl

            return run_repl(lambda trusted=None: _settings(args, trusted), root, args)
        if args.command == "acp":  # each ACP session loads its own settings for the client's cwd
            from valarmind_tui.faces.acp.server import serve as serve_acp

            return serve_acp(args)
        if args.command == "map":  # needs no settings, model or session: a warm map stays fast
            from valarmind_tui.repomap.show import print_map

            return print_map(root, args.tokens, args.json, shown=visible)
        settings = _settings(args)
        if args.command == "run":
            from valarmind_tui.faces.headless import run_agent

            return run_agent(settings, root, args)
        if args.command == "mcp":
            from valarmind_tui.faces.mcp_server.serve import serve

            return serve(settings, root, args)
        if args.command in ("undo", "redo", "rewind", "sessions"):
            from valarmind_tui.faces.headless import run_session_command

            return run_session_command(settings, root, args)
        if args.command == "review":
            from valarmind_tui.faces.headless import run_review_command

            return run_review_command(settings, root, args)
        if args.command == "commit":
            from valarmind_tui.faces.headless import run_commit_command

            return run_commit_command(settings, root, args)
        if args.command == "init":
            from valarmind_tui.faces.headless import run_subcommand

            return run_subcommand(settings, root, args)
        from valarmind_tui.faces.headless import run_prompt

        return run_prompt(settings, root, args)
    except (ConfigError, UsageError) as exc:
        print(visible(f"valarmind: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except ValarMindError as exc:  # a provider or tool failure: said plainly, no traceback
        print(visible(f"valarmind: {exc}"), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
