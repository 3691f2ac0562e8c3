"""The typed options of a bisection, shared by ``wheel-size bisect`` and the nightly action
(both turn their words into these and nothing else is checked twice)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from wheel_size.bisect.engine import Budget
from wheel_size.errors import InputError
from wheel_size.ports.trigger import BuildTrigger, BuildTriggers

__all__ = ["BisectOptions", "TriggerOptions", "check_tag_pattern", "trigger_of"]

# git check-ref-format's rules that a {sha}-filled pattern could break.
_BAD_REF = re.compile(r"(^/|/$|//|\.\.|@\{|[\x00-\x20~^:?*\[\\\x7f]|\.lock(/|$)|(^|/)\.)")


def check_tag_pattern(pattern: str, what: str = "--tag-pattern") -> str:
    """A tag name with ``{sha}`` where the commit goes (``ciflow/binaries/{sha}``)."""
    if "{sha}" not in pattern:
        raise InputError(f"{what} {pattern!r} needs {{sha}} where the commit goes")
    filled = pattern.replace("{sha}", "0" * 40)
    if _BAD_REF.search(filled) or filled.startswith("refs/"):
        raise InputError(f"{what} {pattern!r} does not make a valid tag name")
    return pattern


@dataclass(frozen=True)
class TriggerOptions:
    """How builds are started: ``dispatch_input`` (with ``dispatch_ref``) or ``tag_pattern``."""

    build_workflow: str
    dispatch_input: str | None = None
    dispatch_ref: str | None = None
    tag_pattern: str | None = None

    def __post_init__(self) -> None:
        if not self.build_workflow.strip():
            raise InputError("the build workflow (--build-workflow) is empty")
        if (self.dispatch_input is None) == (self.tag_pattern is None):
            raise InputError("give one trigger: --dispatch-input NAME or --tag-pattern PATTERN")
        if self.tag_pattern is not None:
            check_tag_pattern(self.tag_pattern)
            if self.dispatch_ref is not None:
                raise InputError("--dispatch-ref goes with --dispatch-input, not --tag-pattern")
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", self.dispatch_input or ""):
            raise InputError(f"--dispatch-input {self.dispatch_input!r} is not an input name")

    @property
    def key(self) -> str:
        if self.tag_pattern is not None:
            return f"tag:{self.tag_pattern}"
        return f"dispatch:{self.dispatch_input}@{self.dispatch_ref or '(default branch)'}"


def trigger_of(port: BuildTriggers, repository: str, options: TriggerOptions) -> BuildTrigger:
    """The trigger ``options`` name, from the GitHub port (the one place options become a
    trigger)."""
    return port.build_trigger(
        repository,
        workflow=options.build_workflow,
        dispatch_input=options.dispatch_input,
        dispatch_ref=options.dispatch_ref,
        tag_pattern=options.tag_pattern,
    )


@dataclass(frozen=True)
class BisectOptions:
    trigger: TriggerOptions
    budget: Budget
    state_path: Path | None = None
    noise_bytes: int | None = None
    artifact: str | None = None  # the build's artifact (default: the nightly's name)
    issue: int | None = None  # post the result on this issue

    def __post_init__(self) -> None:
        b = self.budget
        if b.builds_per_round < 1:
            raise InputError("--builds-per-round must be at least 1")
        if b.max_builds < 2:
            raise InputError("--max-builds must be at least 2 (the window's two ends)")
        if b.max_rounds < 1:
            raise InputError("--max-rounds must be at least 1")
        if b.wait < 0:
            raise InputError("--wait must not be negative")
        if b.poll_interval <= 0:
            raise InputError("--poll-interval must be positive")
        if b.build_timeout <= 0:
            raise InputError("--build-timeout must be positive")
        if b.start_timeout <= 0:
            raise InputError("--start-timeout must be positive")
        if self.noise_bytes is not None and self.noise_bytes < 0:
            raise InputError("--noise-bytes must not be negative")
        if self.issue is not None and self.issue < 1:
            raise InputError("--issue must be an issue number")
