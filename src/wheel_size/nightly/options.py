"""Everything one nightly run is asked to do, as frozen data."""

from __future__ import annotations

from dataclasses import dataclass, field

from wheel_size.check.budget import Limits
from wheel_size.evidence.options import EvidenceOptions
from wheel_size.regressions.issues.options import IssueOptions
from wheel_size.track import TrackOptions

__all__ = ["NightlyOptions"]


@dataclass(frozen=True)
class NightlyOptions:
    """``track``: what to collect, store and report. ``issues``: open and keep regression
    issues (None: no issues). ``evidence``: the wheel content diff in new issues."""

    track: TrackOptions
    issues: IssueOptions | None = None
    evidence: EvidenceOptions = field(default_factory=EvidenceOptions)
    limits: Limits | None = None  # size ceilings reported on the newest night

    def __post_init__(self) -> None:
        if self.issues is not None:
            # Checked now, before anything is stored (e.g. a creep window of one day).
            self.issues.alert_settings(self.track.thresholds)

    @property
    def issues_repo(self) -> str:
        """Where the regression issues live."""
        return (self.issues.issues_repo if self.issues else None) or self.track.source.repository
