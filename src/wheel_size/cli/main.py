"""The ``wheel-size`` command: one subcommand module per job.

Each subcommand module exposes ``configure_parser(parser)`` and ``run(args) -> int``;
heavy imports stay inside ``run`` so ``--help`` is fast. A module may name in ``IMPORTS``
the modules every run imports: the console script imports them while the command starts,
with the cyclic collector off (:func:`entrypoint`).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn, Protocol

from wheel_size import __version__
from wheel_size.errors import WheelSizeError

__all__ = ["entrypoint", "main"]

# name -> (module, one-line help). Order is the order shown in --help.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "track": ("wheel_size.cli.track", "nightly job: collect the newest nights, store, report"),
    "collect": (
        "wheel_size.cli.collect",
        "read run and artifact sizes of a date range from GitHub",
    ),
    "store": ("wheel_size.cli.store", "add record files from parallel collect jobs to the history"),
    "report": ("wheel_size.cli.report", "size report of a variant over dates, from the history"),
    "dashboard": ("wheel_size.cli.dashboard", "draw the history dashboard (index.html)"),
    "plan-chunks": ("wheel_size.cli.plan_chunks", "split a backfill range into matrix jobs"),
    "diff": ("wheel_size.cli.diff", "explain the size difference of two wheels"),
    "bloat": ("wheel_size.cli.bloat", "duplicate kernels, big template families, twin GPU archs"),
    "audit": ("wheel_size.cli.audit", "audit a build matrix's wheels: keep, drop or fix"),
    "deps": ("wheel_size.cli.deps", "the whole download of installing wheels, per platform"),
    "split": ("wheel_size.cli.split", "split a ROCm fat wheel into host and per-GPU device wheels"),
    "check": (
        "wheel_size.cli.check",
        "a pull request's wheels against the nightly of its merge base: sizes, budgets",
    ),
    "investigate": (
        "wheel_size.cli.investigate",
        "what caused a size jump: candidate commits between two nightlies, ranked",
    ),
    "bisect": (
        "wheel_size.cli.bisect",
        "find a size jump's commit by building commits of the window on GitHub Actions",
    ),
}


class _Subcommand(Protocol):
    def configure_parser(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose refusal of a command line also reaches the step summary
    (inside a workflow), as every other failure does; subcommand parsers are of this class
    too (argparse makes them with the parent's class)."""

    def error(self, message: str) -> NoReturn:
        from wheel_size.cli.summary import failure_summary

        failure_summary(f"{self.prog}: {message}")
        super().error(message)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with every registered subcommand; with ``only``, import
    and configure that one alone (the others are listed by name and help, so ``--help``
    and a single command never import every mode)."""
    parser = _Parser(
        prog="wheel-size",
        description="Track, explain, split and audit the size of Python wheels.",
        epilog="Failures are one line and exit 2. An internal error (a bug) asks to be "
        "reported; set WHEEL_SIZE_DEBUG=1 to print its traceback for the report.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        module: _Subcommand = importlib.import_module(module_name)
        module.configure_parser(sub_parser)
        # a command that declares OFFLINE = True makes no HTTPS call: no trust store to load
        sub_parser.set_defaults(
            _run=module.run,
            _offline=getattr(module, "OFFLINE", False),
            _imports=getattr(module, "IMPORTS", ()),
        )
    return parser


def _command(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` names (the first word that is not an option), or ""."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None, *, system_trust: bool = False) -> int:
    """Run one subcommand; return its exit status instead of exiting, for tests.

    Every failure ends as one line ``wheel-size: error: ...`` and exit 2: our own errors as
    they are, anything unexpected (MemoryError and RecursionError included) as
    ``internal error: <type>: <message> (please report)``; no traceback unless
    ``WHEEL_SIZE_DEBUG=1``. Stored records that were skipped are warned about first.
    With ``system_trust`` (the console script, whose process is ours) HTTPS trusts the
    system store — once the command line is parsed, so ``--help`` never loads TLS, and
    only for a command that may make HTTPS calls (not one whose module says ``OFFLINE``).
    """
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=_command(words))
    args = parser.parse_args(words)
    error: WheelSizeError | None = None
    status = 0
    try:
        if system_trust and not getattr(args, "_offline", False):
            from wheel_size.trust import use_system_trust_store

            use_system_trust_store()
        for name in getattr(args, "_imports", ()):
            __import__(name)  # as an import statement does: -X importtime shows it
        _started()
        status = args._run(args)
    except WheelSizeError as exc:
        error = exc
    except KeyboardInterrupt:
        _warn_skipped()
        print("wheel-size: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        from wheel_size.crash import internal_error

        error = internal_error(exc)
    _warn_skipped()
    if error is not None:
        from wheel_size.cli.summary import failure_summary

        print(f"wheel-size: error: {error}", file=sys.stderr)
        failure_summary(str(error))
        return error.exit_code
    return status


def _warn_skipped() -> None:
    """Warn about stored records the command skipped (a workflow also gets annotations and
    a step-summary section). Never the reason a command fails."""
    import os

    if "wheel_size.history.recordfile" not in sys.modules:
        return  # nothing read a stored record, so nothing was skipped (and no history import)
    from wheel_size.action.skipped import report_skipped

    in_workflow = os.environ.get("GITHUB_ACTIONS") == "true"
    try:
        report_skipped(
            sys.stderr,
            annotations=sys.stdout if in_workflow else None,
            summary_path=os.environ.get("GITHUB_STEP_SUMMARY") if in_workflow else None,
        )
    except Exception as exc:  # e.g. an unwritable summary: never the reason a command fails
        print(f"wheel-size: warning: cannot report skipped records: {exc}", file=sys.stderr)


# Whether the console script holds the cyclic collector off until the command has started.
_held = False


def _started() -> None:
    """The command's modules are imported: what they made (modules, classes, functions, the
    trust store) lives until exit and holds no garbage, so it goes to the collector's
    permanent generation, which its passes skip, and the collector runs again for the
    command's own work. Collecting while importing walked those objects again and again as
    they piled up: ~10 ms of a split's start (the console script only; a test calling
    :func:`main` keeps its collector as it was)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


def entrypoint() -> None:
    """Console-script entry point: the process is ours, so HTTPS trusts the system store.

    The collector is off while the command starts (:func:`_started`). Before the interpreter
    exits, every object is handed to its permanent generation too: the passes at shutdown
    would otherwise walk all of them to find the few cycles the run left, 15-20 ms of CPU on
    every command, a tenth of a small split. Everything is written and closed by then;
    objects still go when their counts do, and atexit handlers still run."""
    global _held
    _held = gc.isenabled()
    gc.disable()
    status = main(sys.argv[1:], system_trust=True)
    gc.freeze()
    sys.exit(status)
