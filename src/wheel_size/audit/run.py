"""The audit as one library call, shared by ``wheel-size audit`` and the Action's
``mode: audit``: typed options in, a report (and what was skipped) out.

Both adapters only translate: argv or ``INPUT_*`` into :class:`AuditOptions`, and the
:class:`AuditResult` into files, annotations and an exit status. The limits (download size,
artifact pattern) are therefore the same wherever the audit runs.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.audit.gpu import hip_member_targets
from wheel_size.audit.inspect import WheelInfo, inspect_wheel
from wheel_size.audit.matrix import AuditReport, audit_matrix
from wheel_size.audit.native import ArchScanner
from wheel_size.audit.numbers import numbers_json, numbers_markdown
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.ports import ArtifactDownloads
from wheel_size.quota.model import GIB, Quota, QuotaOptions, quota_of
from wheel_size.wheel.archive import DirectorySource, ZipSource
from wheel_size.wheel.inputs import WheelInput, resolve_input

__all__ = [
    "DEFAULT_MAX_DOWNLOAD_MB",
    "AuditOptions",
    "AuditResult",
    "audit_paths",
    "collect_wheels",
    "run_audit",
]

DEFAULT_MAX_DOWNLOAD_MB = 4096  # MB = 1,048,576 bytes
# HIP targets read from each library copy, with errors naming the wheel member
AUDIT_SCANNERS: tuple[ArchScanner, ...] = (hip_member_targets,)


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and how.

    ``paths``: wheels, folders of wheels (searched recursively) or artifact zips.
    ``display``: report some paths under another name (the workspace-relative path).
    ``repo`` + ``run_id``: also every artifact of that workflow run whose name matches
    ``artifact_pattern``; artifacts over ``max_download_mb`` (0: no limit) are skipped.
    ``prefer``: globs over wheel paths or job names that win the keeper choice first.
    """

    paths: tuple[Path, ...] = ()
    display: Mapping[Path, str] = field(default_factory=dict)
    repo: str | None = None
    run_id: int | None = None
    artifact_pattern: str = "*"
    max_download_mb: int = DEFAULT_MAX_DOWNLOAD_MB
    trust_record: bool = False
    prefer: tuple[str, ...] = ()
    # The project quota on the index (audit.quota): the wheels kept are the release set.
    quota: QuotaOptions | None = None

    @property
    def max_download_bytes(self) -> int | None:
        return self.max_download_mb << 20 if self.max_download_mb > 0 else None


@dataclass
class AuditResult:
    """The report, plus the artifacts that were not downloaded (expired, too large)."""

    report: AuditReport
    skipped: list[str] = field(default_factory=list)
    quota: Quota | None = None
    quota_error: str | None = None  # why the quota is unknown (an index that timed out)
    quota_asked: bool = False

    def json_text(self) -> str:
        document: dict[str, object] = dict(self.report.to_json())
        if self.quota_asked:  # only when asked for: other audits are unchanged
            document["quota"] = self.quota.to_json() if self.quota is not None else None
            document["quota_error"] = self.quota_error
        document.update(numbers_json(self.report))  # only what was found
        return json.dumps(document, indent=2) + "\n"

    def markdown(self) -> str:
        from wheel_size.audit.view import audit_view
        from wheel_size.render import render

        text = render("audit.md.j2", **audit_view(self.report)) + numbers_markdown(self.report)
        if self.quota_asked:
            text += render("_quota.md.j2", q=self.quota, error=self.quota_error, gib=GIB)
        return text

    @property
    def clean(self) -> bool:
        """No wheel to drop or fix (what ``--strict`` / ``audit-strict`` require)."""
        return all(v.verdict == "keep" for v in self.report.verdicts)


def collect_wheels(
    paths: Sequence[Path],
    workdir: Path,
    *,
    opened: dict[Path, ZipSource | DirectorySource] | None = None,
) -> tuple[list[WheelInput], list[tuple[str, str]]]:
    """Every wheel under ``paths``; a directory is searched recursively (one folder per job).
    With ``opened``, a wheel file given as a path is left open there (``resolve_input``)."""
    found: list[WheelInput] = []
    problems: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            wheels = sorted(path.rglob("*.whl"))
            zips = sorted(path.rglob("*.zip"))
            found += [WheelInput(str(w), w) for w in wheels]
            for archive in zips:
                try:
                    found += resolve_input(archive, workdir)
                except WheelSizeError as exc:
                    problems.append((str(archive), str(exc)))
            if not wheels and not zips:
                problems.append((str(path), f"{path}: no *.whl files in this directory"))
            continue
        try:
            found += resolve_input(path, workdir, opened=opened)
        except WheelSizeError as exc:
            problems.append((str(path), str(exc)))
    return found, problems


def _rename(text: str, display: Mapping[Path, str]) -> str:
    for path, name in display.items():
        prefix = str(path)
        if text.startswith(prefix) and text[len(prefix) : len(prefix) + 1] in ("", "/", "!"):
            return name + text[len(prefix) :]
    return text


def audit_paths(
    paths: Sequence[Path],
    *,
    display: Mapping[Path, str] | None = None,
    trust_record: bool = False,
    scanners: tuple[ArchScanner, ...] = AUDIT_SCANNERS,
    prefer: Sequence[str] = (),
) -> AuditReport:
    """Audit every wheel found; raises :class:`InputError` when not one could be read.

    ``display`` names some paths differently in the report (a downloaded artifact by its
    name); messages about unreadable inputs use those names too, never a temporary path.
    """
    display = dict(display or {})
    # longest prefix first, so a folder inside a displayed folder keeps its own name
    display = dict(sorted(display.items(), key=lambda item: -len(str(item[0]))))
    not_found: list[tuple[str, str]] = []
    unreadable: list[tuple[str, str]] = []
    infos: list[WheelInfo] = []
    opened: dict[Path, ZipSource | DirectorySource] = {}
    with tempfile.TemporaryDirectory(prefix="wheel-size-audit-") as tmp:
        # One path at a time, its wheels read as soon as they are found: a wheel file opened
        # to tell it from an artifact is read from that opening (its index is checked once)
        # and at most one is held open. The report lists what could not be found first,
        # then what could not be read, each in the order of the paths.
        for path in paths:
            inputs, problems = collect_wheels([path], Path(tmp), opened=opened)
            not_found += [(_rename(p, display), _rename(m, display)) for p, m in problems]
            for found in inputs:
                item = WheelInput(_rename(found.label, display), found.path)
                try:
                    infos.append(
                        inspect_wheel(
                            item.path,
                            item.label,
                            filename=item.filename,
                            trust_record=trust_record,
                            scanners=scanners,
                            source=opened.pop(item.path, None),
                        )
                    )
                except WheelSizeError as exc:
                    message = str(exc).replace(str(item.path), item.label)
                    unreadable.append((item.label, message))
            for source in opened.values():  # pragma: no cover - every opened wheel is read
                source.close()
            opened.clear()
    unreadable = not_found + unreadable
    if not infos:
        detail = "; ".join(message for _, message in unreadable) or "no wheels given"
        raise InputError(f"nothing to audit: {detail}")
    return audit_matrix(infos, unreadable, prefer=prefer)


def run_audit(
    options: AuditOptions, github: Callable[[], ArtifactDownloads] | None = None
) -> AuditResult:
    """Download the run's artifacts if asked, audit everything, return the result.

    ``github`` opens the GitHub port, only when a run's artifacts are asked for (the
    adapter composes it). Raises :class:`InputError` when there is nothing to audit or
    nothing readable.
    """
    if options.run_id is not None and not options.repo:
        raise InputError("auditing a workflow run's artifacts needs its repository")
    if not options.paths and options.run_id is None:
        raise InputError("nothing to audit: give wheels, folders or artifact zips, or a run id")
    display = dict(options.display)
    paths = list(options.paths)
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wheel-size-run-") as tmp:
        if options.run_id is not None:
            from wheel_size.audit.remote import download_run_artifacts

            assert options.repo is not None
            if github is None:
                raise InputError("auditing a workflow run's artifacts needs GitHub access")
            found, skipped = download_run_artifacts(
                github(),
                options.repo,
                options.run_id,
                Path(tmp),
                pattern=options.artifact_pattern,
                max_bytes=options.max_download_bytes,
            )
            paths += [path for path, _ in found]
            display.update(dict(found))
        report = audit_paths(
            paths, display=display, trust_record=options.trust_record, prefer=options.prefer
        )
    result = AuditResult(report, skipped, quota_asked=options.quota is not None)
    if options.quota is not None:
        result.quota, result.quota_error = audit_quota(report, options.quota)
    return result


def audit_quota(report: AuditReport, options: QuotaOptions) -> tuple[Quota | None, str | None]:
    """The quota once the wheels the audit keeps are uploaded, or why it is unknown."""
    from wheel_size.quota.index import fetch_project_files

    kept = {v.wheel for v in report.verdicts if v.verdict == "keep"}
    release = [(w.filename, w.size) for w in report.wheels if w.path in kept]
    try:
        stored = fetch_project_files(options.index_url, options.project, options.timeout)
    except WheelSizeError as exc:
        return None, str(exc)
    return quota_of(options, stored, release), None
