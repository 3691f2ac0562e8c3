"""The wheel content diff of a regression's two nights, added to its investigation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wheel_size.evidence.options import EvidenceOptions
from wheel_size.ports import ArtifactDownloads
from wheel_size.regressions.investigation import Investigation
from wheel_size.render.templates import render_macro
from wheel_size.series import SizePoint

__all__ = ["evidence_enricher", "night_contents"]


def evidence_enricher(
    github: ArtifactDownloads, repo: str, options: EvidenceOptions
) -> Callable[[Investigation], Investigation]:
    """Add the wheel content diff of the two nights (issue 5) to an investigation.

    Best effort: the memory and time budgets of ``options`` hold for every issue of this
    run together (the clock starts now), and whatever happens in the evidence step the
    issue is still opened, saying "Evidence unavailable: <reason>".
    """
    from wheel_size.evidence.collect import EvidenceBudget

    budget = EvidenceBudget.starting_now(options.memory_bytes, options.time_budget)
    max_bytes = options.max_download_bytes

    def enrich(inv: Investigation) -> Investigation:
        from wheel_size.evidence.attach import attach_evidence
        from wheel_size.evidence.collect import Evidence, NightArtifact, collect_evidence

        ev = inv.event
        before = NightArtifact(ev.before.run_id, ev.before.artifact, ev.before.date.isoformat())
        after = NightArtifact(ev.after.run_id, ev.after.artifact, ev.after.date.isoformat())
        try:
            evidence = collect_evidence(
                github, repo, before, after, max_bytes=max_bytes, budget=budget
            )
            return attach_evidence(inv, evidence).apply_content()  # rank with the contents
        except Exception as exc:  # the issue matters more than its evidence
            from wheel_size.oneline import one_line

            failed = Evidence(before, after)
            said = render_macro(
                "evidence_notes.txt.j2", "step_failed", kind=type(exc).__name__, error=exc
            )
            failed.unavailable = one_line(said, 500)
            return attach_evidence(inv, failed)

    return enrich


def night_contents(
    github: ArtifactDownloads, repo: str, options: EvidenceOptions
) -> Callable[[SizePoint, SizePoint], Mapping[str, Any] | None]:
    """The wheel diff of two nights (its JSON; None when unavailable), for the follow-up on
    an issue whose files move back; within the budgets of ``options`` for the whole run."""
    from wheel_size.evidence.collect import EvidenceBudget

    budget = EvidenceBudget.starting_now(options.memory_bytes, options.time_budget)

    def contents(before: SizePoint, after: SizePoint) -> Mapping[str, Any] | None:
        from wheel_size.evidence.collect import NightArtifact, collect_evidence

        evidence = collect_evidence(
            github,
            repo,
            NightArtifact(before.run_id, before.artifact, before.date.isoformat()),
            NightArtifact(after.run_id, after.artifact, after.date.isoformat()),
            max_bytes=options.max_download_bytes,
            budget=budget,
        )
        return evidence.report.to_json() if evidence.report is not None else None

    return contents
