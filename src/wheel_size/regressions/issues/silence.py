"""Silence issues: one issue per watched variant that stopped producing its wheel.

After ``nights`` silent nights in a row (:mod:`wheel_size.series.silence`) the issue step
opens "No `cuda12_8` wheel since …" with the runs of those nights and, where the nights
show it, the name it was renamed to. The issue is found again by its marker (the bot's own
issues only), so later runs comment on it — once per new silent night — instead of opening
another; the night the wheel is back, a last comment and the issue is closed. Apart from
the jump issues' sync (``sync.py``): the two share only the label and the bot login.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from wheel_size.markers import comment_marker, spellings
from wheel_size.ports import CommentView, Issues, IssueView
from wheel_size.regressions.issues.sync import SyncResult
from wheel_size.render import render
from wheel_size.render.templates import render_macro
from wheel_size.series import SizeSeries
from wheel_size.series.nights import Night
from wheel_size.series.silence import Silence, silence_of

__all__ = ["SilenceSettings", "issue_marker", "sync_silences"]

_MARKER = comment_marker("silence variant={variant}")
_NIGHT = comment_marker("silence-night variant={variant} date={date}")
_BACK = comment_marker("silence-back variant={variant} date={date}")
_VARIANT = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")


@dataclass(frozen=True)
class SilenceSettings:
    labels: tuple[str, ...]
    nights: int  # silent nights before an issue (0: no silence issues)
    bot_login: str | None = None


def issue_marker(variant: str) -> str:
    return _MARKER.format(variant=variant)


def _run_url(repo_url: str, run_id: int | None) -> str | None:
    return f"{repo_url}/actions/runs/{run_id}" if run_id is not None else None


class NightRow(TypedDict):
    """One silent night as the silence templates read it."""

    date: dt.date
    state: str
    renamed_to: tuple[str, ...]
    run_id: int | None
    run_url: str | None
    jobs: tuple[str, ...]  # the jobs that did not produce the artifact (issue 34 item 6)


class BackRow(TypedDict):
    """The night the wheel came back."""

    date: dt.date
    size_mb: float
    run_id: int | None
    run_url: str | None


def _night_row(night: Night, repo_url: str, jobs: Sequence[str] = ()) -> NightRow:
    run = night.latest
    return {
        "date": night.date,
        "state": night.state,
        "renamed_to": night.renamed_to,
        "run_id": run.run_id if run else None,
        "run_url": _run_url(repo_url, run.run_id if run else None),
        "jobs": tuple(jobs),
    }


def _said(line: str, **values: object) -> str:
    """A title or line of the silence issues: the macro ``line`` of ``issue_sync_lines.txt.j2``."""
    return render_macro("issue_sync_lines.txt.j2", line, **values)


def _title(s: Silence) -> str:
    renamed = s.renamed_to[0] if s.renamed_to else None
    return _said("silence_title", variant=s.variant, since=s.since.isoformat(), renamed_to=renamed)


def _body(s: Silence, repo_url: str, threshold: int) -> str:
    last = _NIGHT.format(variant=s.variant, date=s.last.isoformat())
    return render(
        "silence_issue.md.j2",
        marker=f"{issue_marker(s.variant)}\n{last}",
        s=s,
        renamed=list(s.renamed_to),
        watch=_variant_in(s, s.renamed_to[0]) if s.renamed_to else None,
        nights=[_night_row(n, repo_url, s.jobs_without_artifact) for n in s.nights],
        threshold=threshold,
    )


def _variant_in(s: Silence, artifact: str) -> str | None:
    """The variant a new artifact name carries, read with the silent artifact's own naming
    (``manywheel-py3_12-cuda12_8`` watched as ``cuda12_8``: ``…-cuda12_9`` is ``cuda12_9``):
    what ``--variant`` accepts. None when the new name does not follow that naming."""
    if s.variant not in s.artifact:
        return None
    prefix, _, suffix = s.artifact.rpartition(s.variant)
    if not (artifact.startswith(prefix) and artifact.endswith(suffix)):
        return None
    variant = artifact[len(prefix) : len(artifact) - len(suffix)]
    return variant or None


def _ours(issue: IssueView | CommentView, bot: str) -> bool:
    return issue.author.casefold() == bot.casefold()


def _carries(text: str | None, marker: str) -> bool:
    """Does ``text`` hold ``marker``, in the one prefix or as an older release wrote it?"""
    return any(spelled in (text or "") for spelled in spellings(marker))


def _open_issue(issues: Sequence[IssueView], variant: str, bot: str) -> IssueView | None:
    marker = issue_marker(variant)
    found = [i for i in issues if i.state == "open" and _ours(i, bot) and _carries(i.body, marker)]
    return min(found, key=lambda i: i.number) if found else None


def _comment_once(
    repo: Issues, issue: IssueView, marker: str, body: str, bot: str
) -> CommentView | None:
    """Post ``body`` unless one of our comments already carries ``marker``."""

    def existing() -> CommentView | None:
        return next(
            (c for c in repo.comments(issue.number) if _carries(c.body, marker) and _ours(c, bot)),
            None,
        )

    if _carries(issue.body, marker) or existing() is not None:
        return None
    return repo.create_comment(issue.number, body, find_existing=existing)


def sync_silences(
    repo: Issues,
    series: SizeSeries,
    until: dt.date,
    variants: Sequence[str],
    settings: SilenceSettings,
    *,
    repo_url: str,
    result: SyncResult | None = None,
) -> SyncResult:
    """Open, follow up or close the silence issue of each watched variant on night
    ``until`` (canonical variant names). One issue listing; writes only on news."""
    result = result if result is not None else SyncResult()
    if settings.nights <= 0 or not variants:
        return result
    bot = settings.bot_login or repo.identity()
    listed = repo.issues(settings.labels[0])
    for variant in variants:
        if not _VARIANT.match(variant):
            continue
        standing = _open_issue(listed, variant, bot)
        silence = silence_of(series, variant, until)
        if silence is None:
            point = series.variant(variant).point_on(until)
            if standing is None or point is None:
                continue
            marker = _BACK.format(variant=variant, date=until.isoformat())
            back: BackRow = {
                "date": until,
                "size_mb": point.size_mb,
                "run_id": point.run_id,
                "run_url": _run_url(repo_url, point.run_id),
            }
            body = render("silence_update.md.j2", marker=marker, variant=variant, back=back)
            _comment_once(repo, standing, marker, body, bot)
            repo.close_issue(standing.number)
            result.updated.append(standing.number)
            result.lines.append(
                _said("silence_back", number=standing.number, variant=variant, night=until)
            )
            continue
        if silence.count < settings.nights or silence.last != until:
            continue
        if standing is None:
            title, body = _title(silence), _body(silence, repo_url, settings.nights)

            def find(variant: str = variant) -> IssueView | None:
                return _open_issue(repo.issues(settings.labels[0]), variant, bot)

            made = repo.create_issue(title, body, settings.labels, find_existing=find)
            result.created.append(made.number)
            result.events.setdefault(f"silence/{variant}/{silence.since}", made.number)
            result.lines.append(
                _said(
                    "silence_opened",
                    number=made.number,
                    variant=variant,
                    since=silence.since,
                    nights=silence.count,
                )
            )
            continue
        night = silence.nights[-1]
        marker = _NIGHT.format(variant=variant, date=night.date.isoformat())
        body = render(
            "silence_update.md.j2",
            marker=marker,
            variant=variant,
            s=silence,
            night=_night_row(night, repo_url),
            back=None,
        )
        if _comment_once(repo, standing, marker, body, bot) is not None:
            result.updated.append(standing.number)
            result.events.setdefault(f"silence/{variant}/{silence.since}", standing.number)
            result.lines.append(
                _said("silence_still", number=standing.number, variant=variant, night=night.date)
            )
    return result
