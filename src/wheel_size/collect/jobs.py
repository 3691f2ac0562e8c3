"""The jobs that built each artifact: one jobs listing per run, matched by a name pattern.

PyTorch's nightly builds artifact ``manywheel-py3_12-cuda12_8`` in the job
``manywheel-py3_12-cuda12_8-build`` (listed as ``manywheel-py3_12-cuda12_8-build / build``
when it calls a reusable workflow), so a job pattern with the same ``{python}`` and
``{variant}`` as the artifact pattern ties each job to its artifact. Only matching jobs are
stored (with the artifact name they give), and only as listed: the build time is worked
out when the history is read (:mod:`wheel_size.series.buildtime`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from wheel_size.errors import InputError
from wheel_size.history.model import MAX_INT, JobRecord, clean_text

__all__ = ["DEFAULT_JOB_PATTERN", "JobPattern", "jobs_from_api"]

DEFAULT_JOB_PATTERN = "manywheel-{python}-{variant}-build"
_FIELD = re.compile(r"\{(python|variant)\}")


@dataclass(frozen=True)
class JobPattern:
    """How the job building an artifact is named (``--job-pattern``), beside the artifact
    pattern: both use ``{variant}`` once and ``{python}`` at most once."""

    pattern: str = DEFAULT_JOB_PATTERN
    artifact_pattern: str = "manywheel-{python}-{variant}"

    def __post_init__(self) -> None:
        for what, text in (("job", self.pattern), ("artifact", self.artifact_pattern)):
            if text.count("{variant}") != 1 or text.count("{python}") > 1:
                raise InputError(
                    f"{what} pattern {text!r} must contain {{variant}} exactly once "
                    "and {python} at most once"
                )
            if "{" in _FIELD.sub("", text) or "}" in _FIELD.sub("", text):
                raise InputError(f"{what} pattern {text!r} may only use {{variant}} and {{python}}")
        if ("{python}" in self.pattern) != ("{python}" in self.artifact_pattern):
            raise InputError(
                f"job pattern {self.pattern!r} and artifact pattern {self.artifact_pattern!r} "
                "must both use {python} or both leave it out"
            )

    @property
    def _regex(self) -> re.Pattern[str]:
        parts = []
        for part in _FIELD.split(self.pattern):
            if part in ("python", "variant"):
                parts.append(rf"(?P<{part}>[^\s/]+?)")
            else:
                parts.append(re.escape(part))
        # "NAME / build": the job a reusable workflow runs for the caller's job NAME
        return re.compile("^" + "".join(parts) + r"(?: / .+)?$")

    def artifact_of(self, job_name: str) -> str | None:
        """The artifact name the job ``job_name`` builds, or None when it does not match."""
        m = self._regex.match(job_name)
        if m is None:
            return None
        found = m.groupdict()
        return self.artifact_pattern.replace("{python}", found.get("python") or "").replace(
            "{variant}", found["variant"]
        )


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
        return None
    return value


def _text(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) else None


def jobs_from_api(jobs: Iterable[Mapping[str, Any]], pattern: JobPattern) -> tuple[JobRecord, ...]:
    """The records of the listed ``job`` objects that follow ``pattern``, as listed.

    A field of the wrong type is stored as null (the job then has no build time, said so
    when the report is read) rather than failing the night's sizes.
    """
    out = []
    for job in jobs:
        name = job.get("name") if isinstance(job, Mapping) else None
        if not isinstance(name, str):
            continue
        artifact = pattern.artifact_of(name)
        if artifact is None:
            continue
        out.append(
            JobRecord(
                name=clean_text(name) or "",
                id=_int(job.get("id")),
                run_attempt=_int(job.get("run_attempt")),
                status=_text(job.get("status")),
                conclusion=_text(job.get("conclusion")),
                started_at=_text(job.get("started_at")),
                completed_at=_text(job.get("completed_at")),
                artifact=clean_text(artifact),
            )
        )
    return tuple(sorted(out, key=lambda j: (j.name, j.run_attempt or 0, j.id or 0)))
