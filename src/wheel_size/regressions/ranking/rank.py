"""Rank a window's commits by the evidence, for growth and for shrink, and say why.

Each candidate carries evidence items (:class:`Reason`), each with its source and strength,
and the order follows the strongest evidence present, tier by tier (docs/regressions.md):

1. **build** (decisive; added by ``build_attach`` from per-commit builds): the size at the
   commit against its parent;
2. **content**: what moved in the two nights' wheels (libraries that appeared, left or
   resized, torch's own libraries, GPU architectures, device/host/debug sections) matched
   against what the commit touched, through the reach table's map from source paths to the
   shipped libraries they build into;
3. **reach**: the night's fingerprint (which variants moved) against what the commit's
   files can move (the reach table: data, overridable per project); the changed lines
   (toolkit-scoped build scripts, code-generation flags, pinned versions) count here;
4. **text**: the title and body (platforms, versions, architectures named, size words, the
   kind of change), the seed's category as a prior, the lines added: a weak prior and a
   tie-breaker only. Verbs ("remove", "support") carry no weight: real culprits often say
   the opposite of their effect.

Candidates are ordered by their content points, then their reach points (both rounded to
whole points), then text: text never overturns a difference above it. Ties keep the
window's chronological order, so the ranking is deterministic.

Points (the whole model, no per-project tuning):

* reach: ships in no wheel −40; Python only −12; cannot move any variant that moved −30;
  moves the variants that moved +12 × share; surely moves variants that stayed flat −10 ×
  share; platform- or version-specific and matching exactly what moved +8 (+6 more when
  scoped to toolkit versions); only deletes dead headers −10; a pinned dependency's
  version changes +5; changes code-generation flags in its lines +4;
* content: a library that appeared/left and the candidate names it +25 (its body: +12.5);
  a bundled library resized and it names it +12; GPU architectures that appeared/vanished
  and it names them +25; device code changed in a few architectures it names +12; torch's
  own library moved and its sources build into it +10, its libraries did not move −8;
  device code changed and it changes GPU sources (``.cu``/``.cuh``/``.hip`` or headers; any
  source for XPU's SYCL; not a ``.cpp`` beside the kernels, which is host code, nor a
  submodule, whose side is unknown) +8 (host-only code −4); host code changed
  and it changes shared native code +6 (device-only −4); debug sections and it changes
  flags +10; a kernel template family that moved (a tenth of what the families moved, or
  more) and a C++/CUDA source it changes is named after it (``Reduce.cuh`` against
  ``reduce_kernel<…>``) or its changed lines name it (``reduce_kernel``) +10, once;
* text: names the platforms/versions that moved +6 × share, only ones that did not −8,
  exactly the versions that moved +4; mentions binary size +3; the kind of change fits the
  size class +5 (does not −3); a tenth of the seed category's weight; up to +3 for the
  lines of shipped code added (growth) or deleted (shrink), log-scaled.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from wheel_size.regressions.document import ReasonDocument
from wheel_size.regressions.ranking.classify import CATEGORIES, Classified, categorize
from wheel_size.regressions.ranking.content_facts import ContentFacts, FamilyFact
from wheel_size.regressions.ranking.fingerprint import Fingerprint
from wheel_size.regressions.ranking.reach import Part, Reach, narrow, reach_of
from wheel_size.regressions.ranking.reach_table import ReachTable, default_table
from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.text_signals import (
    CODEGEN_FLAGS,
    Mentions,
    TextSignals,
    arch_min_cuda,
    arch_min_rocm,
    library_label,
    library_platform,
    read_text,
)
from wheel_size.render.templates import render_macro
from wheel_size.variants import VariantKey

__all__ = ["TIERS", "Ranked", "Reason", "leading_group", "rank_commits", "score_commit"]

#: Evidence tiers, strongest first; ``prior`` and ``amount`` are text-tier readings.
TIERS = ("build", "content", "reach", "text")
_TIER_OF = {"build": "build", "content": "content", "reach": "reach", "text": "text",
            "prior": "text", "amount": "text"}  # fmt: skip
#: The leader is "clear" when it is ahead of the next candidate by this much in the
#: strongest tier where they differ (content or reach); text never separates.
CLEAR_MARGIN = {"content": 5.0, "reach": 4.0}

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
CONTENT_TORCH_LIBRARY = 10.0
CONTENT_TORCH_STILL = -8.0
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
CONTENT_FAMILY = 10.0
CODEGEN_FLAG = 4.0
DEAD_HEADERS = -10.0
VERSION_BUMP = 5.0
AMOUNT_MAX = 3.0
NO_SHIP_TAG = -20.0  # files unknown, but the title is tagged [CI], [Docs], [test] …


@dataclass(frozen=True)
class Reason:
    """One evidence item: its source (``signal``), its strength (points) and what it says."""

    signal: str  # build, content, reach, text, prior, amount
    points: float
    text: str

    @property
    def tier(self) -> str:
        return _TIER_OF.get(self.signal, "text")

    def to_json(self) -> ReasonDocument:
        return {
            "signal": self.signal,
            "tier": self.tier,
            "points": round(self.points, 1),
            "text": self.text,
        }


@dataclass(frozen=True)
class Ranked(Classified):
    """A candidate with its labels (the seed's categories), score, rank and reasons."""

    reasons: tuple[Reason, ...] = ()
    reach: str = ""  # what its changed files can move, in a few words
    # Whether its changed files can move every variant that moved (None: files unknown, or
    # nothing moved): a commit that cannot is no match for an "every variant" pattern.
    covers_moved: bool | None = None

    def tier_points(self, tier: str) -> float:
        return sum(r.points for r in self.reasons if r.tier == tier)

    def evidence_key(self) -> tuple[float, float, float]:
        """Content, then reach (whole points), then text: the order of the evidence."""
        return (
            round(self.tier_points("content")),
            round(self.tier_points("reach")),
            self.tier_points("text"),
        )

    def why(self, limit: int = 4) -> str:
        """The evidence that placed it in tier order (build, content, reach, text), with its
        numbers, in one line; what speaks against it last."""
        order = {t: i for i, t in enumerate(TIERS)}
        strong = sorted(
            (r for r in self.reasons if r.signal != "prior" and abs(r.points) >= 2),
            key=lambda r: (order[r.tier], -abs(r.points)),
        )
        pros = [f"{r.tier}: {r.text}" for r in strong if r.points > 0][:limit]
        cons = [f"{r.tier}: {r.text}" for r in strong if r.points < 0][: max(1, limit - len(pros))]
        text = "; ".join(pros)
        if cons:
            text = (text + "; " if text else "") + "against: " + "; ".join(cons)
        return text or _say("no_evidence")


@dataclass
class _Tally:
    reasons: list[Reason] = field(default_factory=list)

    def add(self, signal: str, points: float, text: str) -> None:
        if points:
            self.reasons.append(Reason(signal, points, text))

    @property
    def total(self) -> float:
        return sum(r.points for r in self.reasons)


def _say(reason: str, **values: object) -> str:
    """An evidence item's words: the macro ``reason`` of ``ranking_reasons.txt.j2``."""
    return render_macro("ranking_reasons.txt.j2", reason, **values)


def _names(keys: Sequence[VariantKey]) -> list[str]:
    return [k.name for k in keys]


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


def _cover_text(reach: Reach, fp: Fingerprint) -> str:
    """What of the night it can explain, in plain words: "can move all that moved (every
    variant): a build configuration", or "can move only 4 of the 6 variants that moved
    (cuda12_6, …): a CUDA-only build configuration" -- never "every variant" for a change
    that reaches some of them."""
    reached = [k for k in fp.moved if reach.strength(k)]
    if len(reached) == len(fp.moved):
        return _say("cover_all", scope=fp.scope(), summary=reach.summary)
    return _say("cover_some", reached=_names(reached), moved=len(fp.moved), summary=reach.summary)


def _reach_points(tally: _Tally, reach: Reach, fp: Fingerprint) -> None:
    if not reach.ships:
        tally.add("reach", NO_SHIP, _say("no_ship"))
        return
    if not reach.native:
        tally.add("reach", PYTHON_ONLY, _say("python_only"))
    if reach.dead_headers:
        tally.add("reach", DEAD_HEADERS, _say("dead_headers"))
    if not fp.moved:
        return
    cover = _share(reach, fp.moved)
    others = fp.flat + fp.opposite
    spill = _bulk_share(reach, others)
    if cover == 0:
        tally.add(
            "reach", NO_REACH, _say("no_reach", summary=reach.summary, moved=_names(fp.moved))
        )
        return
    if reach.native:
        tally.add("reach", COVER * cover, _cover_text(reach, fp))
    if spill and reach.native:
        spilled = [k for k in others if reach.bulk_strength(k)]
        tally.add("reach", SPILL * spill, _say("spill", spilled=_names(spilled)))
    specific = reach.specific or not any(
        p.kind == "all" and p.os is None and p.versions is None for p in reach.bulk
    )
    if specific and reach.native and cover >= 1 and not spill and others:
        tally.add("reach", EXACT, _say("exact", scope=fp.scope()))
        if reach.scoped and any(k.version for k in others if k.kind in fp.moved_kinds()):
            tally.add("reach", SCOPED_EXACT, _say("scoped"))


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
            tally.add("text", TEXT_MISS * weight, _say("text_miss", where=where, named=named))
            continue
        tally.add(
            "text", TEXT_COVER * cover * weight * damp, _say("text_names", where=where, named=named)
        )
        versioned = any(p.versions for p in tr.parts)
        if (
            versioned
            and not _share(tr, others)
            and any(k.version for k in others if k.kind in fp.moved_kinds())
        ):
            tally.add("text", TEXT_EXACT * weight * damp, _say("text_exact"))
    if text.size_words:
        tally.add("text", SIZE_WORDS * damp, _say("size_words"))
    if text.magnitude and fp.direction and (fp.large or fp.small):
        if (text.magnitude == "large") == fp.large:
            tally.add("text", MAGNITUDE_FIT * damp, _say("magnitude_fit", large=fp.large))
        elif reach is None or reach.native:
            tally.add("text", MAGNITUDE_MISFIT, _say("magnitude_misfit"))


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
    table: ReachTable,
) -> None:
    direction = fp.direction or (1 if facts.delta >= 0 else -1)
    strong, weak, archs = _candidate_terms(commit, text)
    for library, path in sorted(facts.appeared(direction).items()):
        name = path.rsplit("/", 1)[-1]
        if library in strong:
            label = library_label(library)
            tally.add(
                "content",
                CONTENT_LIBRARY,
                _say("library", name=name, direction=direction, label=label),
            )
        elif library in weak:
            tally.add(
                "content",
                CONTENT_LIBRARY / 2,
                _say("library_body", name=name, direction=direction),
            )
    for library, change in sorted(facts.resized(direction).items()):
        if library in strong or library in weak:
            tally.add(
                "content",
                CONTENT_RESIZED if library in strong else CONTENT_RESIZED / 2,
                _say("resized", label=library_label(library), change=change),
            )
    changed_archs = facts.archs_gone_or_new(direction)
    hit = sorted(changed_archs & archs)
    if hit:
        tally.add("content", CONTENT_ARCH, _say("arch", archs=hit, direction=direction))
    arch_moved = facts.archs_moved(direction)
    few = bool(arch_moved) and len(arch_moved) <= max(2, len(facts.archs_both) // 3)
    if few and arch_moved & archs and not hit:
        tally.add("content", CONTENT_ARCH_FEW, _say("arch_few", archs=sorted(arch_moved)))
    if reach is None or not facts.delta:
        return
    # A submodule is neither: what it builds into is known, not whether it is device code.
    gpu_sources = any(
        p.kind in ("cuda", "rocm", "xpu")
        and p.strength >= 1
        and "build" not in p.why
        and "submodule" not in p.why
        for p in reach.parts
    ) and _can_hold_device_code(commit, reach, table)
    # A GPU toolkit, image or build setting recompiles the device code too.
    gpu_build = any(
        p.kind in ("cuda", "rocm", "xpu") and ("build" in p.why or "submodule" in p.why)
        for p in reach.parts
    )
    host = any(p.kind == "all" and p.os is None for p in reach.parts)
    if facts.share(facts.device_delta) >= 0.6 and not (
        facts.libraries_added or facts.libraries_removed
    ):
        if gpu_sources or gpu_build or "cutlass-fbgemm" in categories:
            tally.add("content", CONTENT_DEVICE, _say("device", gpu_sources=gpu_sources))
        elif host and reach.native and not gpu_sources:
            tally.add("content", CONTENT_WRONG_SIDE, _say("device_wrong_side"))
    elif facts.share(facts.debug_delta) >= 0.5:
        if "compiler-flags" in categories or "build-image" in categories:
            tally.add("content", CONTENT_DEBUG, _say("debug"))
    elif facts.share(facts.host_delta) >= 0.6 and not (
        facts.libraries_added or facts.libraries_removed
    ):
        if host and reach.native:
            tally.add("content", CONTENT_HOST, _say("host"))
        elif gpu_sources:
            tally.add("content", CONTENT_WRONG_SIDE, _say("host_wrong_side"))


def _can_hold_device_code(commit: Commit, reach: Reach, table: ReachTable) -> bool:
    """Whether any changed file can change a code object (not only host code): the reach
    table's ``device_source`` (CUDA/HIP sources and the headers a kernel includes; a .cpp
    next to the kernels is host code). SYCL kernels (XPU) are .cpp files, so any source can
    hold XPU device code."""
    files = commit.files or ()
    if any(p.kind == "xpu" for p in reach.parts):
        return True
    return any(table.match("device_source", f.filename) for f in files if not f.submodule)


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: Words that name the kind of code, not a family: a file called ``Kernel.cu`` or a
#: family called ``*_kernel`` says nothing about which family.
_GENERIC = frozenset(
    [
        "kernel",
        "kernels",
        "impl",
        "utils",
        "util",
        "common",
        "cuda",
        "hip",
        "gpu",
        "device",
        "launch",
        "launcher",
        "template",
        "templates",
        "helper",
        "helpers",
        "detail",
        "ops",
        "op",
        "native",
        "config",
        "types",
        "main",
        "core",
        "base",
        "all",
    ]
)
_MIN_NAME = 4


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _function(family: str) -> str:
    """``at::native::(anonymous namespace)::reduce_kernel<…>`` -> ``reduce_kernel``
    (template arguments and scope dropped; ``(unattributed)`` is no function)."""
    if family.startswith("("):
        return ""
    return family.split("<", 1)[0].rsplit("::", 1)[-1].strip()


def _stem_names(stem: str, family: list[str]) -> bool:
    """The file's stem spells a run of the family's words that is not only generic words
    (``Reduce`` or ``ReduceKernel`` in ``reduce_kernel``; ``SoftMax`` in ``softmax_warp``)."""
    joined = "".join(_words(stem))
    if len(joined) < _MIN_NAME:
        return False
    for i in range(len(family)):
        for j in range(i + 1, len(family) + 1):
            run = family[i:j]
            if "".join(run) == joined and _telling(run):
                return True
    return False


def _telling(words: list[str]) -> bool:
    """Some word says which code it is (not a generic word, not a number)."""
    return any(w not in _GENERIC and not w.isdigit() for w in words)


def _family_match(
    commit: Commit, family: FamilyFact, table: ReachTable
) -> tuple[str, str | None] | None:
    """How the commit's C++/CUDA sources (the reach table's ``family_source``) name
    ``family``: the file, and the function its changed lines name (None: the file's name
    names the family); None: they do not."""
    function = _function(family.name)
    words = _words(function)
    if len(function) < _MIN_NAME or not _telling(words):
        return None
    for changed in commit.files or ():
        name = changed.filename.rsplit("/", 1)[-1]
        if not table.match("family_source", name):
            continue
        if function in changed.terms.identifiers:
            return name, function
        if _stem_names(name.split(".", 1)[0], words):
            return name, None
    return None


def _family_points(
    tally: _Tally, commit: Commit, facts: ContentFacts, fp: Fingerprint, table: ReachTable
) -> None:
    """Kernel families that moved, against the sources the commit changes: only a file
    named after the family or changed lines that name it count, and only once."""
    direction = fp.direction or (1 if facts.delta >= 0 else -1)
    for family in sorted(facts.families_moved(direction), key=lambda f: -abs(f.delta)):
        how = _family_match(commit, family, table)
        if how is None:
            continue
        file, function = how
        said = _say(
            "family",
            name=family.name,
            delta=family.delta,
            archs=family.archs,
            file=file,
            function=function,
        )
        tally.add("content", CONTENT_FAMILY, said)
        return


def _named_toolkits(text: TextSignals) -> frozenset[str]:
    """Toolkit versions the title and body name (``cuda:12.9``): they scope a build image."""
    named = text.title | text.body
    cuda = {f"cuda:{v}" for v in named.cuda_versions}
    rocm = {f"rocm:{v}" for v in named.rocm_versions}
    return frozenset(cuda | rocm)


def _builds_into(commit: Commit, table: ReachTable) -> set[str] | None:
    """The torch libraries the commit's files build into; None: all of them (a commit of
    build configuration only: flags, images, toolchains rebuild every object). Build files
    next to sources (a CMake list registering them) build those sources."""
    into: set[str] = set()
    rebuilds_all = False
    for changed in commit.files or ():
        path = changed.filename
        if table.match("no_ship", path) and not table.match("binary_ci", path):
            continue
        named = table.libraries_of(path)
        if named:
            into |= set(named)
        elif changed.submodule or table.match("build", path) or table.match("binary_ci", path):
            rebuilds_all = True
    return None if rebuilds_all and not into else into


def _torch_library_points(
    tally: _Tally, commit: Commit, facts: ContentFacts, fp: Fingerprint, table: ReachTable
) -> None:
    """torch's own libraries that moved, against the ones the commit's files build into:
    points for the share of the moved bytes it can explain."""
    if not facts.torch_libraries or not commit.files:
        return
    direction = fp.direction or (1 if facts.delta >= 0 else -1)
    moved = facts.torch_moved(direction)
    into = _builds_into(commit, table)
    if not moved or into == set():
        return
    hit = set(moved) if into is None else set(moved) & into
    total = sum(abs(v) for v in moved.values())
    if hit:
        share = sum(abs(moved[lib]) for lib in hit) / total
        libraries = [(lib, moved[lib]) for lib in sorted(hit, key=lambda n: -abs(moved[n]))]
        said = _say("torch_library", moved=libraries, share=share, rebuilds_all=into is None)
        tally.add("content", CONTENT_TORCH_LIBRARY * share, said)
        return
    assert into is not None
    seen = into & set(facts.torch_libraries)
    if seen and seen <= facts.torch_still():
        tally.add("content", CONTENT_TORCH_STILL, _say("torch_still", libraries=sorted(seen)))


def score_commit(
    commit: Commit,
    fp: Fingerprint,
    facts: ContentFacts | None = None,
    categories: tuple[str, ...] | None = None,
    table: ReachTable | None = None,
) -> Ranked:
    """Score one candidate (unranked): its evidence items, tier by tier."""
    table = table or default_table()
    cats = categories if categories is not None else categorize(commit, table)
    tally = _Tally()
    weight = max((CATEGORIES[c].weight for c in cats), default=0)
    tally.add(
        "prior", weight * PRIOR_SCALE, f"category: {CATEGORIES[cats[0]].title}" if cats else ""
    )
    text = read_text(commit.title, commit.body)
    reach: Reach | None = None
    damp = 1.0
    files_reach: Reach | None = None  # what the files reach, before the title narrows it
    if commit.files is not None and commit.files:
        reach = files_reach = reach_of(commit.files, table, _named_toolkits(text))
        if text.title.tagged:
            reach = narrow(reach, text.title.tagged)
        elif text.title.platforms:
            reach = narrow(reach, text.title.platforms, shared_too=False)
        _reach_points(tally, reach, fp)
        if not reach.native:
            damp = 0.25  # words about CUDA in a Python-only or test-only commit mean little
    elif text.title.no_ship_tag:
        tally.add("reach", NO_SHIP_TAG, _say("no_ship_tag"))
    _text_points(tally, text, fp, reach, damp)
    if reach is not None and reach.pins and reach.native:
        tally.add("text", VERSION_BUMP, _say("version_bump"))
    elif text.version_change and reach is None and text.title.libraries:
        tally.add("text", VERSION_BUMP, _say("title_bump"))
    line_flags: set[str] = set()
    for changed in commit.files or ():
        line_flags |= {
            t for t in changed.terms.added | changed.terms.removed if CODEGEN_FLAGS.fullmatch(t)
        }
    title_flags = {m.group(0) for m in CODEGEN_FLAGS.finditer(commit.title)} - line_flags
    if line_flags and (reach is None or reach.native):
        flags = sorted(line_flags)[:3]
        tally.add("text", CODEGEN_FLAG, _say("codegen_lines", flags=flags))
    elif title_flags and (reach is None or reach.native):
        tally.add("text", CODEGEN_FLAG, _say("codegen_title", flags=sorted(title_flags)[:3]))
    # The wheels' contents count only for a commit that can build into what moved.
    reachable = reach is None or (
        reach.native and (not fp.moved or any(reach.strength(k) for k in fp.moved))
    )
    if facts is not None and reachable:
        _content_points(tally, commit, text, reach, facts, fp, cats, table)
        _torch_library_points(tally, commit, facts, fp, table)
        _family_points(tally, commit, facts, fp, table)
    if reach is not None and reach.native and fp.direction:
        # Net lines: a refactor that moves 900 lines adds nothing.
        net = reach.native_added - reach.native_deleted
        lines = max(0, net if fp.direction > 0 else -net)
        if lines:
            tally.add(
                "amount",
                min(AMOUNT_MAX, math.log10(1 + lines)),
                _say("amount", direction=fp.direction, lines=lines),
            )
    covers = None
    if files_reach is not None and fp.moved:  # the files, not the title's words, decide
        covers = all(files_reach.strength(k) for k in fp.moved)
    return Ranked(
        commit,
        cats,
        round(tally.total, 3),
        covers_moved=covers,
        reasons=tuple(tally.reasons),
        reach=reach.summary
        if reach
        else _say("no_files")
        if commit.files is not None
        else _say("files_unchecked"),
    )


def rank_commits(
    commits: Sequence[Commit],
    fp: Fingerprint,
    facts: ContentFacts | None = None,
    table: ReachTable | None = None,
) -> list[Ranked]:
    """Rank the commits by their score, the sum of their evidence (1 = likeliest); ties
    keep the given order. A night without a jump (``fp.direction == 0``) ranks nothing."""
    if fp.direction == 0:
        return []
    scored = [score_commit(c, fp, facts, table=table) for c in commits]
    # By the score shown (issue 28): the order never contradicts the numbers it prints.
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    return [dataclasses.replace(scored[i], rank=position + 1) for position, i in enumerate(order)]


#: "No clear culprit" shows at most this many of the leading group.
GROUP_MAX = 5


def leading_group(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The candidates the evidence cannot tell from the leader: just the leader when a build
    confirmed it, or when it has evidence for it (content or reach) and is ahead of the
    next by :data:`CLEAR_MARGIN` in the strongest tier where they differ. Otherwise ("no
    clear culprit") the leader and every candidate within the margins, or, when nothing
    speaks for the leader, the first few. Text never separates."""
    if not ranked:
        return []
    leader = ranked[0]
    if leader.tier_points("build") > 0:
        return [leader]
    if leader.tier_points("content") <= 0 and leader.tier_points("reach") <= 0:
        return [r for r in ranked[:GROUP_MAX] if r.tier_points("build") >= 0] or [leader]
    if len(ranked) < 2:
        return [leader]

    def close(other: Ranked) -> bool:
        if other.tier_points("build") < 0:
            return False
        for tier in ("content", "reach"):
            gap = leader.tier_points(tier) - other.tier_points(tier)
            if gap >= CLEAR_MARGIN[tier]:
                return False
            if gap <= -CLEAR_MARGIN[tier]:
                return True  # behind the leader only by a lower tier
        return True

    return [leader, *(r for r in ranked[1:] if close(r))][:GROUP_MAX]
