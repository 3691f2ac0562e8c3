"""The record of one event's bisection: the window, every build asked for and what it
showed, the rounds spent. Written after every change, read back on the next call (or the
next nightly) to resume; a file of another event or a damaged one is refused, never reused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wheel_size.errors import InputError
from wheel_size.fileio import atomic_write_text

__all__ = [
    "SCHEMA",
    "Build",
    "Event",
    "State",
    "dump_state",
    "load_state",
    "parse_state",
    "save_state",
]

SCHEMA = 1
# A build's conclusion when it ended without a size (besides GitHub's own words).
NO_RUN = "no-run"  # no run appeared for it within the wait
NO_ARTIFACT = "no-artifact"  # the run succeeded without the variant's artifact
TIMED_OUT = "timed-out"  # we cancelled it after the time per build


@dataclass(frozen=True)
class Event:
    """What is bisected, and how: the key a state file must match to be resumed."""

    repo: str
    workflow: str
    date: str
    variant: str
    python: str
    build_workflow: str
    trigger: str  # "dispatch:INPUT@REF" or "tag:PATTERN"
    artifact: str

    def describe(self) -> str:
        return f"{self.variant} on {self.date} in {self.repo}"


@dataclass
class Build:
    """One build asked for. ``status``: waiting (no run found yet), running, completed."""

    sha: str
    round: int
    attempt: int
    since: str  # ISO time it was asked for
    started_at: float  # clock time it was asked for (time per build)
    status: str = "waiting"
    run_id: int | None = None
    html_url: str | None = None
    tag: str | None = None
    conclusion: str | None = None
    size_bytes: int | None = None
    note: str | None = None

    @property
    def in_flight(self) -> bool:
        return self.status != "completed"

    @property
    def measured(self) -> bool:
        return self.conclusion == "success" and self.size_bytes is not None


@dataclass
class State:
    event: Event
    window: list[str]  # the older nightly's base first, the newer one's last
    noise_bytes: int
    state: str = "pending"  # pending, done, gave-up
    rounds: int = 0
    builds: list[Build] = field(default_factory=list)
    reason: str | None = None  # why it gave up, one line
    issue: int | None = None  # the event's issue, where the result goes
    # Builds of the build workflow that existed in the window before the bisection (read
    # once when it starts): they narrow the bracket before anything is built, and are no
    # build spent.
    existing: list[Build] = field(default_factory=list)

    def sizes(self) -> dict[str, int]:
        """The measured size of each commit built (its latest successful build; one the
        bisection made wins over one that existed)."""
        out: dict[str, int] = {}
        for build in [*self.existing, *self.builds]:
            if build.measured and build.size_bytes is not None:
                out[build.sha] = build.size_bytes
        return out

    def failures(self, sha: str) -> int:
        return sum(1 for b in self.builds if b.sha == sha and not b.in_flight and not b.measured)

    def in_flight(self) -> list[Build]:
        return [b for b in self.builds if b.in_flight]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "event": asdict(self.event),
            "window": list(self.window),
            "noise_bytes": self.noise_bytes,
            "state": self.state,
            "rounds": self.rounds,
            "reason": self.reason,
            "issue": self.issue,
            "builds": [asdict(b) for b in self.builds],
            "existing": [asdict(b) for b in self.existing],
        }


def dump_state(state: State) -> str:
    return json.dumps(state.to_json(), indent=2) + "\n"


def save_state(path: Path, state: State) -> None:
    """Write atomically: a cut-off write leaves the previous state, never half of one."""
    atomic_write_text(path, dump_state(state))


class _Damaged(Exception):
    pass


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise _Damaged(f"{key!r} is missing or not {getattr(kind, '__name__', kind)}")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if data.get(key) is None:
        return None
    return _field(data, key, kind)


def _build(data: object) -> Build:
    if not isinstance(data, dict):
        raise _Damaged("a build is not an object")
    build = Build(
        sha=_field(data, "sha", str),
        round=_field(data, "round", int),
        attempt=_field(data, "attempt", int),
        since=_field(data, "since", str),
        started_at=float(_field(data, "started_at", (int, float))),
        status=_field(data, "status", str),
        run_id=_optional(data, "run_id", int),
        html_url=_optional(data, "html_url", str),
        tag=_optional(data, "tag", str),
        conclusion=_optional(data, "conclusion", str),
        size_bytes=_optional(data, "size_bytes", int),
        note=_optional(data, "note", str),
    )
    if build.status not in ("waiting", "running", "completed"):
        raise _Damaged(f"build status {build.status!r} is unknown")
    return build


def _parse(data: object) -> State:
    if not isinstance(data, dict):
        raise _Damaged("it is not a JSON object")
    if data.get("schema") != SCHEMA:
        raise _Damaged(f"schema {data.get('schema')!r} is not {SCHEMA}")
    raw_event = _field(data, "event", dict)
    event = Event(**{k: _field(raw_event, k, str) for k in Event.__dataclass_fields__})
    window = _field(data, "window", list)
    if not all(isinstance(sha, str) for sha in window):
        raise _Damaged("'window' holds something that is not a SHA")
    state = State(
        event=event,
        window=list(window),
        noise_bytes=_field(data, "noise_bytes", int),
        state=_field(data, "state", str),
        rounds=_field(data, "rounds", int),
        builds=[_build(b) for b in _field(data, "builds", list)],
        reason=_optional(data, "reason", str),
        issue=_optional(data, "issue", int),
        existing=[_build(b) for b in _optional(data, "existing", list) or []],
    )
    if state.state not in ("pending", "done", "gave-up"):
        raise _Damaged(f"state {state.state!r} is unknown")
    outside = [b.sha for b in [*state.builds, *state.existing] if b.sha not in state.window]
    if outside:
        raise _Damaged(f"build of {outside[0][:12]} is outside its window")
    return state


def load_state(path: Path, event: Event) -> State | None:
    """The state of ``event`` kept in ``path``; None when there is no file yet. A damaged
    file or one of another event is an :class:`InputError` naming the file: resuming from
    it could build the wrong commits or claim what no build showed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the bisection state ({exc})") from None
    return parse_state(text, str(path), event)


def parse_state(text: str, where: str, event: Event | None) -> State:
    """A kept state read from ``where`` (a file, a path on the data branch), checked to be
    of ``event`` when given."""
    try:
        state = _parse(json.loads(text))
    except (json.JSONDecodeError, _Damaged, TypeError, ValueError) as exc:
        raise InputError(
            f"{where}: damaged bisection state ({exc}); remove it to start the bisection again"
        ) from None
    if event is not None and state.event != event:
        raise InputError(
            f"{where}: the bisection state is of {state.event.describe()} "
            f"({state.event.trigger}, {state.event.build_workflow}), not of "
            f"{event.describe()} ({event.trigger}, {event.build_workflow}); "
            "give another --state file"
        )
    return state
