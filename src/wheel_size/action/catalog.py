"""The four actions of this repository and the inputs each one takes.

One image serves four ``action.yml`` files: the nightly job at the root
(``uses: OWNER/wheel-size-action@v1``) and ``check/``, ``split/`` and ``audit/``
(``uses: OWNER/wheel-size-action/check@v1``), which pass their name as the container's
argument. The runner hands every ``with:`` entry to the container as ``INPUT_<NAME>``, even
one the action does not declare (it only warns), so an input meant for another action would
be silently ignored; :func:`misplaced_input` turns it into an error naming the action that
has it. The tables here must match the ``action.yml`` files (a test compares them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = ["ACTIONS", "DEPRECATED_MODES", "ActionSpec", "check_inputs", "uses_line"]

_COMMON = ("github-token", "repository")
_STORE = ("data-branch", "data-remote", "git-timeout", "history-dir")
_NAMING = ("python", "artifact-pattern")
_LIMITS = ("ceiling-mb", "ceilings", "pypi-limit-mb", "ceiling-ack")
# The project quota (action/quota_inputs.py), of the check and the audit.
QUOTA_INPUTS = ("quota-project", "quota-limit-gb", "quota-index")


@dataclass(frozen=True)
class ActionSpec:
    """One action: its name (the container argument), directory and inputs."""

    name: str
    directory: str  # "" for the root action
    what: str  # how messages name it
    inputs: frozenset[str]


TRACK = ActionSpec(
    "track",
    "",
    "nightly action",
    frozenset(
        (
            *_COMMON, *_STORE, *_NAMING, *_LIMITS,
            "mode", "workflow", "branch", "variants", "threshold-mb", "threshold-pct",
            "rollback-days", "report-days", "date", "from", "to", "months", "dashboard",
            "dashboard-days", "records", "fail-on-regression", "create-issues", "issue-labels",
            "accepted-label", "close-on-rollback", "drop-issues", "cc-culprit", "creep-mb",
            "creep-days", "evidence", "evidence-max-download-mb", "evidence-memory-mb",
            "evidence-time-budget", "build-evidence", "build-evidence-workflows",
            "build-evidence-job-pattern", "build-evidence-log-pattern", "log-url-template",
            "commit-url-template", "reach-table", "report-path", "baseline", "build-time",
            "job-pattern", "build-threshold-min", "build-threshold-pct", "run-events", "bot-login",
            # bisection with builds (action/bisect.py)
            "bisect-build-workflow", "bisect-dispatch-input", "bisect-dispatch-ref",
            "bisect-tag-pattern", "bisect-builds-per-round", "bisect-max-builds", "bisect-state",
            "bisect-wait", "bisect-poll-interval", "bisect-max-events",
            "silence-nights",
            "installed-size", "forecast", "deps", "deps-index-url",
        )
    ),
)  # fmt: skip
CHECK = ActionSpec(
    "check",
    "check",
    "check action",
    frozenset(
        (
            *_COMMON, *_STORE, *_NAMING, *_LIMITS,
            "workflow", "check-wheels", "check-budget-mb", "check-budget-pct", "check-footer",
            "check-comment", "check-max-download-mb", "check-report-path", "pr-number", "bot-login",
            "head-sha", "head-repository", "head-branch", "compare-with", *QUOTA_INPUTS,
        )
    ),
)  # fmt: skip
SPLIT = ActionSpec(
    "split",
    "split",
    "split action",
    frozenset(
        (
            *_COMMON,
            "split-input", "split-output-dir", "device-package-prefix", "overlay-root",
            "wheel-type", "databases", "output-format", "compression", "compression-level",
            "jobs", "extra-naming", "host-installs", "device-requires-dist",
            "generate-variant-wheel", "variant-label", "pr-number", "split-comment", "bot-login",
        )
    ),
)  # fmt: skip
AUDIT = ActionSpec(
    "audit",
    "audit",
    "audit action",
    frozenset(
        (
            *_COMMON,
            "audit-input", "audit-run-id", "audit-artifact-pattern", "audit-strict",
            "audit-max-download-mb", "audit-prefer", "report-path", *QUOTA_INPUTS,
        )
    ),
)  # fmt: skip

ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in (TRACK, CHECK, SPLIT, AUDIT)}
# ``mode:`` of the root action, kept for v1 only: the action each one now is.
DEPRECATED_MODES = ("split", "audit", "check")


def uses_line(spec: ActionSpec, env: Mapping[str, str]) -> str:
    """``OWNER/wheel-size-action/check@v1`` as the user would write it (the repository and
    ref the runner says this step uses, else placeholders)."""
    repo = env.get("GITHUB_ACTION_REPOSITORY") or "OWNER/wheel-size-action"
    ref = env.get("GITHUB_ACTION_REF") or "v1"
    return f"{repo}{'/' + spec.directory if spec.directory else ''}@{ref}"


def _env_name(name: str) -> str:
    return f"INPUT_{name.replace(' ', '_').upper()}"


def check_inputs(env: Mapping[str, str], allowed: frozenset[str], running: ActionSpec) -> None:
    """Refuse an ``INPUT_*`` that belongs to another action only (one line naming that
    action and how to use it). Inputs no action knows are left to the runner's warning."""
    known = {_env_name(name): name for spec in ACTIONS.values() for name in spec.inputs}
    for key in sorted(env):
        name = known.get(key)
        if name is None or name in allowed:
            continue
        owners = [spec for spec in ACTIONS.values() if name in spec.inputs]
        where = " or ".join(f"uses: {uses_line(spec, env)}" for spec in owners)
        raise InputError(
            f"input {name} is not an input of the {running.what}; it belongs to "
            f"{' and '.join('the ' + spec.what for spec in owners)}: move it to a step with "
            f"{where}"
        )
