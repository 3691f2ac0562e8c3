"""Rank a window's commits by the evidence, for growth and for shrink, and say why.

Each candidate collects points from independent signals; the weights below are the whole
model (no per-project tuning), documented in docs/regressions.md:

* **prior**: a tenth of the seed category's weight (compiler flags 9 … docs 0): the labels
  stay the seed's, but they only break near-ties;
* **reach** (paths and changed lines): ships in no wheel −40; Python only −12; cannot move
  any variant that moved −30; moves the variants that moved +12 × share; would also move
  variants that stayed flat −10 × share; platform- or version-specific and matching exactly
  what moved +8 (+6 more when scoped to toolkit versions);
* **text** (title strong, body weak): names the platforms/versions that moved +6 × share,
  names only ones that did not −8, names exactly the versions that moved +4; growth words on
  a growth night (removal words on a shrink) +8, the other way −8 (half for body words);
  mentions binary size +3; a change of the right size class (bundled libraries, arch lists,
  dependencies for tens of MB; flags and kernels for a few MB) +5, the wrong one −3;
* **content** (the wheel diff, when downloaded): a library that appeared/disappeared and the
  candidate names it +25; GPU architectures that appeared/vanished and it names them +25;
  device code changed in a few architectures it names +12; device code changed everywhere and
  it changes GPU sources +8 (host-only code −4); host code changed and it changes shared native
  code +6 (device-only −4); debug sections and it changes flags +10;
* **amount**: up to +3 for the lines of shipped native code it adds (growth) or deletes
  (shrink), log-scaled, so a 2,000-line refactor cannot outweigh a one-line flag change.

Ties keep the window's chronological order, so the ranking is deterministic.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.regressions.classify import CATEGORIES, Classified, categorize
from wheel_size.regressions.commits import Commit
from wheel_size.regressions.content_facts import ContentFacts
from wheel_size.regressions.fingerprint import Fingerprint, VariantKey
from wheel_size.regressions.reach import Part, Reach, narrow, reach_of
from wheel_size.regressions.text_signals import (
    CODEGEN_FLAGS,
    Mentions,
    TextSignals,
    arch_min_cuda,
    arch_min_rocm,
    library_label,
    library_platform,
    read_text,
)

__all__ = ["Ranked", "Reason", "rank_commits", "score_commit"]

PRIOR_SCALE = 0.1
NO_SHIP = -40.0
PYTHON_ONLY = -12.0
NO_REACH = -30.0
COVER = 12.0
SPILL = -10.0
EXACT = 8.0
SCOPED_EXACT = 6.0
TEXT_COVER = 6.0
TEXT_MISS = -8.0
TEXT_EXACT = 4.0
POLARITY = 8.0
SIZE_WORDS = 3.0
MAGNITUDE_FIT = 5.0
MAGNITUDE_MISFIT = -3.0
CONTENT_LIBRARY = 25.0
CONTENT_ARCH = 25.0
CONTENT_ARCH_FEW = 12.0
CONTENT_DEVICE = 8.0
CONTENT_HOST = 6.0
CONTENT_WRONG_SIDE = -4.0
CONTENT_DEBUG = 10.0
CONTENT_RESIZED = 12.0
CODEGEN_FLAG = 4.0
DEAD_HEADERS = -10.0
VERSION_BUMP = 5.0
AMOUNT_MAX = 3.0
NO_SHIP_TAG = -20.0  # files unknown, but the title is tagged [CI], [Docs], [test] …


@dataclass(frozen=True)
class Reason:
    signal: str  # prior, reach, text, content, amount
    points: float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"signal": self.signal, "points": round(self.points, 1), "text": self.text}


@dataclass(frozen=True)
class Ranked(Classified):
    """A candidate with its labels (the seed's categories), score, rank and reasons."""

    reasons: tuple[Reason, ...] = ()
    reach: str = ""  # what its changed files can move, in a few words

    def why(self, limit: int = 4) -> str:
        """The few signals that placed it, strongest first, in one line."""
        strong = sorted(
            (r for r in self.reasons if r.signal != "prior" and abs(r.points) >= 2),
            key=lambda r: -abs(r.points),
        )[:limit]
        pros = [r.text for r in strong if r.points > 0]
        cons = [r.text for r in strong if r.points < 0]
        text = "; ".join(pros)
        if cons:
            text = (text + "; " if text else "") + "against: " + "; ".join(cons)
        return text or "no signal beyond its category"


@dataclass
class _Tally:
    reasons: list[Reason] = field(default_factory=list)

    def add(self, signal: str, points: float, text: str) -> None:
        if points:
            self.reasons.append(Reason(signal, points, text))

    @property
    def total(self) -> float:
        return sum(r.points for r in self.reasons)


def _names(keys: Sequence[VariantKey]) -> str:
    return ", ".join(k.name for k in keys)


def _share(reach: Reach | _TextReach, keys: Sequence[VariantKey]) -> float:
    return sum(reach.strength(k) for k in keys) / len(keys) if keys else 0.0


def _bulk_share(reach: Reach, keys: Sequence[VariantKey]) -> float:
    return sum(reach.bulk_strength(k) for k in keys) / len(keys) if keys else 0.0


@dataclass(frozen=True)
class _TextReach:
    parts: tuple[Part, ...]

    def strength(self, key: VariantKey) -> float:
        return max((p.reaches(key) for p in self.parts), default=0.0)


def _cuda_versions_for_archs(archs: frozenset[str]) -> frozenset[str] | None:
    """Restrict CUDA versions by the architectures named (sm_100 needs CUDA 12.8+)."""
    known = [arch_min_cuda(a) for a in archs if a.startswith("sm_")]
    spans = [s for s in known if s is not None]
    if not spans or len(spans) != len([a for a in archs if a.startswith("sm_")]):
        return None
    out = set()
    for first, last in spans:
        for version in ("11.8", "12.4", "12.6", "12.8", "12.9", "13.0", "13.1", "13.2"):
            if _ver(version) >= _ver(first) and (last is None or _ver(version) <= _ver(last)):
                out.add(f"cuda:{version}")
    return frozenset(out)


def _ver(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def text_reach(m: Mentions) -> _TextReach | None:
    """The variants a commit's words point at, or None when they name none."""
    parts: list[Part] = []
    cuda = frozenset(f"cuda:{v}" for v in m.cuda_versions) or _cuda_versions_for_archs(m.archs)
    gfx = [a for a in m.archs if a.startswith("gfx")]
    firsts = [arch_min_rocm(a) for a in gfx]
    rocm = frozenset(f"rocm:{v}" for v in m.rocm_versions) or (
        frozenset(f"rocm:>={v}" for v in firsts if v) if gfx and all(firsts) else None
    )
    kinds = {p for p in m.platforms if p in ("cuda", "rocm", "xpu")}
    kinds |= {
        library_platform(lib)
        for lib in m.libraries
        if library_platform(lib) in ("cuda", "rocm", "xpu")
    }
    if "gpu" in {library_platform(lib) for lib in m.libraries}:
        kinds |= {"cuda", "rocm"}
    for kind in sorted(kinds):
        versions = cuda if kind == "cuda" else rocm if kind == "rocm" else None
        parts.append(Part(kind, 1.0, versions))
    for os_name in ("windows", "macos", "aarch64"):
        if os_name in m.platforms:
            parts.append(Part("all", 1.0, None, os_name))
    return _TextReach(tuple(parts)) if parts else None


def _reach_points(tally: _Tally, reach: Reach, fp: Fingerprint) -> None:
    if not reach.ships:
        tally.add("reach", NO_SHIP, "ships in no wheel (tests, docs, CI)")
        return
    if not reach.native:
        tally.add("reach", PYTHON_ONLY, "Python only: kilobytes, not megabytes")
    if reach.dead_headers:
        tally.add("reach", DEAD_HEADERS, "only deletes headers that nothing included any more")
    if not fp.moved:
        return
    cover = _share(reach, fp.moved)
    others = fp.flat + fp.opposite
    spill = _bulk_share(reach, others)
    if cover == 0:
        tally.add("reach", NO_REACH, f"{reach.summary}: cannot move {_names(fp.moved)}")
        return
    if reach.native:
        tally.add("reach", COVER * cover, f"can move {fp.scope()} ({reach.summary})")
    if spill and reach.native:
        spilled = [k for k in others if reach.bulk_strength(k)]
        tally.add("reach", SPILL * spill, f"would also move {_names(spilled)}, which did not")
    specific = reach.specific or not any(
        p.kind == "all" and p.os is None and p.versions is None for p in reach.bulk
    )
    if specific and reach.native and cover >= 1 and not spill and others:
        tally.add("reach", EXACT, f"matches exactly what moved ({fp.scope()})")
        if reach.scoped and any(k.version for k in others if k.kind in fp.moved_kinds()):
            tally.add("reach", SCOPED_EXACT, "its build changes are scoped to those versions")


def _text_points(
    tally: _Tally, text: TextSignals, fp: Fingerprint, reach: Reach | None, damp: float
) -> None:
    for mentions, weight, where in ((text.title, 1.0, "title"), (text.body, 0.5, "body")):
        tr = text_reach(mentions)
        if tr is None or not fp.moved:
            continue
        others = fp.flat + fp.opposite
        cover = _share(tr, fp.moved)
        named = ", ".join(
            sorted(
                {library_label(lib) for lib in mentions.libraries}
                | set(mentions.archs)
                | {f"CUDA {v}" for v in mentions.cuda_versions}
                | {f"ROCm {v}" for v in mentions.rocm_versions}
            )
            or sorted(p.upper() if len(p) <= 4 else p for p in mentions.platforms)
        )
        if cover == 0:
            tally.add(
                "text", TEXT_MISS * weight, f"its {where} is about {named}, which did not move"
            )
            continue
        tally.add("text", TEXT_COVER * cover * weight * damp, f"its {where} names {named}")
        versioned = any(p.versions for p in tr.parts)
        if (
            versioned
            and not _share(tr, others)
            and any(k.version for k in others if k.kind in fp.moved_kinds())
        ):
            tally.add("text", TEXT_EXACT * weight * damp, "names exactly the versions that moved")
    if fp.direction and text.polarity:
        fits = text.polarity == fp.direction
        words = text.polarity_words or ""
        points = POLARITY if fits else -POLARITY
        if fits:
            points *= damp
        night = "growth" if fp.direction > 0 else "shrink"
        tally.add("text", points, f"“{words}” {'fits' if fits else 'goes against'} a {night}")
    if text.size_words:
        tally.add("text", SIZE_WORDS * damp, "talks about binary size")
    if text.magnitude and fp.direction and (fp.large or fp.small):
        if (text.magnitude == "large") == fp.large:
            kind = "a large change" if fp.large else "a few-MB change"
            tally.add("text", MAGNITUDE_FIT * damp, f"the kind of change fits {kind}")
        elif reach is None or reach.native:
            tally.add("text", MAGNITUDE_MISFIT, "the kind of change does not fit the size moved")


def _candidate_terms(commit: Commit, text: TextSignals) -> tuple[set[str], set[str], set[str]]:
    """Libraries named strongly (title, patch), weakly (body), and architectures named."""
    strong = set(text.title.libraries)
    weak = set(text.body.libraries)
    archs = set(text.title.archs) | set(text.body.archs)
    for changed in commit.files or ():
        strong |= {
            t
            for t in changed.terms.added | changed.terms.removed
            if not t.startswith(("sm_", "gfx", "-"))
        }
        archs |= changed.terms.archs_added | changed.terms.archs_removed
        archs |= {
            t for t in changed.terms.added | changed.terms.removed if t.startswith(("sm_", "gfx"))
        }
    return strong, weak - strong, archs


def _content_points(
    tally: _Tally,
    commit: Commit,
    text: TextSignals,
    reach: Reach | None,
    facts: ContentFacts,
    fp: Fingerprint,
    categories: Sequence[str],
) -> None:
    direction = fp.direction or (1 if facts.delta >= 0 else -1)
    strong, weak, archs = _candidate_terms(commit, text)
    went = "appeared in" if direction > 0 else "left"
    for library, path in sorted(facts.appeared(direction).items()):
        name = path.rsplit("/", 1)[-1]
        if library in strong:
            tally.add(
                "content",
                CONTENT_LIBRARY,
                f"{name} {went} the wheel, and it names {library_label(library)}",
            )
        elif library in weak:
            tally.add("content", CONTENT_LIBRARY / 2, f"{name} {went} the wheel; its body names it")
    for library, change in sorted(facts.resized(direction).items()):
        if library in strong or library in weak:
            moved = f"{'grew' if change > 0 else 'shrank'} by {abs(change) / 1_048_576:.1f} MB"
            tally.add(
                "content",
                CONTENT_RESIZED if library in strong else CONTENT_RESIZED / 2,
                f"bundled {library_label(library)} {moved}, and it names it",
            )
    changed_archs = facts.archs_gone_or_new(direction)
    hit = sorted(changed_archs & archs)
    if hit:
        verb = "appeared" if direction > 0 else "vanished"
        tally.add(
            "content", CONTENT_ARCH, f"device code for {', '.join(hit)} {verb}, which it names"
        )
    arch_moved = facts.archs_moved(direction)
    few = bool(arch_moved) and len(arch_moved) <= max(2, len(facts.archs_both) // 3)
    if few and arch_moved & archs and not hit:
        tally.add(
            "content",
            CONTENT_ARCH_FEW,
            f"device code changed only for {', '.join(sorted(arch_moved))}, which it names",
        )
    if reach is None or not facts.delta:
        return
    gpu_sources = any(
        p.kind in ("cuda", "rocm", "xpu") and p.strength >= 1 and "build" not in p.why
        for p in reach.parts
    )
    host = any(p.kind == "all" and p.os is None for p in reach.parts)
    if facts.share(facts.device_delta) >= 0.6 and not (
        facts.libraries_added or facts.libraries_removed
    ):
        if gpu_sources or "cutlass-fbgemm" in categories:
            tally.add(
                "content",
                CONTENT_DEVICE,
                "the wheels' device code changed, and it changes GPU sources",
            )
        elif host and reach.native and not gpu_sources:
            tally.add(
                "content",
                CONTENT_WRONG_SIDE,
                "the change is device code; it changes host code only",
            )
    elif facts.share(facts.debug_delta) >= 0.5:
        if "compiler-flags" in categories or "build-image" in categories:
            tally.add(
                "content", CONTENT_DEBUG, "debug sections changed, and it changes build flags"
            )
    elif facts.share(facts.host_delta) >= 0.6 and not (
        facts.libraries_added or facts.libraries_removed
    ):
        if host and reach.native:
            tally.add(
                "content",
                CONTENT_HOST,
                "the wheels' host code changed, and it changes shared native code",
            )
        elif gpu_sources:
            tally.add(
                "content",
                CONTENT_WRONG_SIDE,
                "the change is host code; it changes device code only",
            )


def score_commit(
    commit: Commit,
    fp: Fingerprint,
    facts: ContentFacts | None = None,
    categories: tuple[str, ...] | None = None,
) -> Ranked:
    """Score one candidate (unranked)."""
    cats = categories if categories is not None else categorize(commit)
    tally = _Tally()
    weight = max((CATEGORIES[c].weight for c in cats), default=0)
    tally.add(
        "prior", weight * PRIOR_SCALE, f"category: {CATEGORIES[cats[0]].title}" if cats else ""
    )
    text = read_text(commit.title, commit.body)
    reach: Reach | None = None
    damp = 1.0
    if commit.files is not None and commit.files:
        reach = reach_of(commit.files)
        if text.title.tagged:
            reach = narrow(reach, text.title.tagged)
        elif text.title.platforms:
            reach = narrow(reach, text.title.platforms, shared_too=False)
        _reach_points(tally, reach, fp)
        if not reach.native:
            damp = 0.25  # words about CUDA in a Python-only or test-only commit mean little
    elif text.title.no_ship_tag:
        tally.add("reach", NO_SHIP_TAG, "files not checked; its title is tagged as CI/docs/tests")
    _text_points(tally, text, fp, reach, damp)
    if (
        text.version_change
        and (reach is None or reach.pins or reach.native)
        and ((reach is not None and reach.pins) or text.title.libraries)
    ):
        tally.add(
            "text", VERSION_BUMP, "a dependency's version changes: it can move size either way"
        )
    flags = {m.group(0) for m in CODEGEN_FLAGS.finditer(commit.title)}
    for changed in commit.files or ():
        flags |= {
            t for t in changed.terms.added | changed.terms.removed if CODEGEN_FLAGS.fullmatch(t)
        }
    if flags and (reach is None or reach.native):
        tally.add(
            "text", CODEGEN_FLAG, f"changes code-generation flags ({', '.join(sorted(flags)[:3])})"
        )
    if facts is not None and (reach is None or reach.native):
        _content_points(tally, commit, text, reach, facts, fp, cats)
    if reach is not None and reach.native and fp.direction:
        # Net lines: a refactor that moves 900 lines adds nothing.
        net = reach.native_added - reach.native_deleted
        lines = max(0, net if fp.direction > 0 else -net)
        if lines:
            tally.add(
                "amount",
                min(AMOUNT_MAX, math.log10(1 + lines)),
                f"{'adds' if fp.direction > 0 else 'deletes'} {lines} lines of shipped code",
            )
    return Ranked(
        commit,
        cats,
        round(tally.total, 3),
        reasons=tuple(tally.reasons),
        reach=reach.summary if reach else "files not checked",
    )


def rank_commits(
    commits: Sequence[Commit], fp: Fingerprint, facts: ContentFacts | None = None
) -> list[Ranked]:
    """Score every commit and rank them (1 = likeliest); ties keep the given order."""
    scored = [score_commit(c, fp, facts) for c in commits]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    return [dataclasses.replace(scored[i], rank=position + 1) for position, i in enumerate(order)]
