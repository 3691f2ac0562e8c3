"""The units of work the split spreads over ``--jobs`` processes.

Each job takes and returns small picklable descriptions; bulk data moves through files in the
work directory, never through the process pool's pipes, and never sits whole in memory: code
objects are staged as zstd frames and streamed into the device wheels' kpack members in chunks
of ``limits.CHUNK`` bytes, so a worker's peak memory does not depend on what size a
(compressed) code object claims.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from wheel_size.errors import InvalidBundle, WheelSizeError
from wheel_size.rocm.fatbin_section import BundleRef
from wheel_size.split.in_place import InPlace, stored_in_place
from wheel_size.wheel.archive import RawData

if TYPE_CHECKING:
    from wheel_size.rocm.elf_verify import Finding
    from wheel_size.rocm.fatbin_library import FatLibrary
    from wheel_size.rocm.host_rewrite import RewritePlan
    from wheel_size.rocm.kpack import StreamedKpack
    from wheel_size.rocm.offload_bundle import BundleEntry
    from wheel_size.rocm.pe_library import PeFatLibrary
    from wheel_size.rocm.pe_rewrite import PePlan
    from wheel_size.split.capture import BundleCapture, CapturedBundle, CapturedCode
    from wheel_size.split.deflate_probe import DeflateDecision
    from wheel_size.split.reuse import BackgroundIndex
from wheel_size.wheel.writer import (
    Deflated,
    WheelEntry,
    WrittenWheel,
    deflate_file,
    iter_raw_content,
    write_tree,
    write_wheel,
)

__all__ = [
    "ApplyJob",
    "CodeObjectRef",
    "KpackResult",
    "LibraryJob",
    "LibraryPlan",
    "LibraryResult",
    "PlannedCodeObject",
    "RecordCheck",
    "SettledKpack",
    "WheelJob",
    "apply_library",
    "check_record",
    "kpack_entry",
    "kpack_result",
    "library_job",
    "process_library",
    "read_and_plan_library",
    "release_scratch",
    "settle_kpack",
    "write_output_wheel",
]


@dataclass(frozen=True)
class CodeObjectRef:
    """A code object staged on disk: ``size`` bytes at ``offset`` of ``path``, a zstd frame
    of ``original_size`` bytes when ``compressed`` (done in the library job, so the kpack job
    only concatenates)."""

    target: str
    index: int
    path: Path
    offset: int
    size: int
    original_size: int
    compressed: bool = False


@dataclass(frozen=True)
class LibraryJob:
    """One library candidate: where its bytes are and what the rewrite must write into it."""

    number: int
    source: str  # for messages: "<wheel>:<member>"
    rel: str  # overlay-relative path, the kpack kernel name
    raw: RawData | None  # zip member, or
    file: Path | None  # a file of an unpacked wheel
    work: Path
    search_paths: tuple[str, ...]
    deflate: bool
    deflate_level: int
    zstd_level: int | None = None  # compress code objects while staging them
    check_hash: bool = False  # MD5 of compressed bundles (clang checks it only when verbose)
    apply: bool = True  # carry the plan out (False: a dry run, which only plans)
    threads: int = 1  # zlib's blocks of a rewritten library on this many threads (--jobs)


@dataclass(frozen=True)
class PlannedCodeObject:
    """One code object as the bundle headers describe it (``size`` uncompressed)."""

    target: str
    index: int
    size: int


@dataclass(frozen=True)
class LibraryPlan:
    """What the scan found in one candidate and what the apply phase will do with it.

    ``fat`` is False for a library without device code, or with device code that no wrapper
    registers (``warning`` says why it stays unchanged). For a fat one: its targets and code
    objects, the bundles delimited in its fatbin section (so the apply phase streams code
    objects without parsing again), and the host rewrite, planned down to the bytes it
    patches (``host_rewrite.RewritePlan`` or ``pe_rewrite.PePlan``; nothing changes them
    after the scan). ``copy`` is the file the apply phase reads: the inflated copy in the work
    directory (``extracted``), a stored member in the wheel itself (``split.in_place``) or the
    file of an unpacked wheel.
    """

    number: int
    rel: str
    size: int
    fat: bool
    kind: str = "elf"  # "elf" or "pe"
    section: str = ""
    section_offset: int = 0
    section_size: int = 0
    wrappers: int = 0
    targets: tuple[str, ...] = ()
    code_objects: tuple[PlannedCodeObject, ...] = ()
    bundles: tuple[BundleRef, ...] = ()
    rewrite: RewritePlan | PePlan | None = None  # None once slimmed for the main process
    size_after: int = 0
    copy: Path | InPlace | None = None
    extracted: bool = False
    warning: str | None = None
    old_runtime: str | None = None  # the pre-kpack libamdhip64 that kept it unchanged
    seconds: float = 0.0  # worker time of the scan
    findings: tuple[
        Finding, ...
    ] = ()  # elf_verify findings of the input (its rewrite may keep them)
    content_hash: str | None = None  # RECORD hash of the member's contents (zip members)
    # Code objects taken while the library was inflated (split.capture), by bundle ordinal,
    # and the open staging files holding their frames; both for the apply in this process.
    captured: dict[int, tuple[CapturedCode, ...]] | None = None
    staging: dict[str, tuple[Path, IO[bytes]]] | None = None
    index: BackgroundIndex | None = None  # the member's block index, started early

    @property
    def device_bytes(self) -> int:
        """Uncompressed bytes of all code objects."""
        return sum(c.size for c in self.code_objects)


@dataclass(frozen=True)
class ApplyJob:
    """One fat library to rewrite, with its frozen plan."""

    library: LibraryJob
    plan: LibraryPlan


@dataclass
class LibraryResult:
    """What came out of one candidate; ``fat`` is False for ELF files without device code."""

    number: int
    rel: str
    fat: bool
    original_size: int = 0
    stripped_size: int = 0
    stripped: Path | None = None
    stripped_raw: RawData | None = None
    stripped_hash: str | None = None
    targets: tuple[str, ...] = ()
    code_objects: list[CodeObjectRef] = field(default_factory=list)
    warning: str | None = None  # why a library with device code was left unchanged
    seconds: float = 0.0  # worker time: extraction and host rewrite (set by split.apply)
    deflate_backend: str | None = None  # which compressor's stream the host wheel carries
    deflate_sizes: dict[str, int] = field(default_factory=dict)  # candidate -> bytes
    deflate_seconds: dict[str, float] = field(default_factory=dict)  # candidate -> seconds


def _renamed(exc: WheelSizeError, temp: Path | InPlace, source: str) -> WheelSizeError:
    """The same error, naming the wheel member instead of our temporary copy."""
    message = str(exc) if isinstance(temp, InPlace) else str(exc).replace(str(temp), source)
    if source not in message:
        message = f"{source}: {message}"
    return type(exc)(message)


def _extract(job: LibraryJob, capture: BundleCapture | None = None) -> tuple[Path | InPlace, bool]:
    """The file to read: a zip member inflated into this process's scratch file in the work
    directory (True), a stored member read where it lies in the wheel
    (``split.in_place``: no copy), or the file of an unpacked wheel (False). With
    ``capture``, the inflated bytes go through it (``split.capture``: code objects taken
    on the way, holes left in the scratch file) instead of straight into the file.

    The scratch file is overwritten in place for each library this process handles and cut to
    the member's size, never unlinked between libraries: writing a fresh file and deleting it
    again cost the file system allocating and freeing every block, which measured 2-3x the
    in-place rewrite (``docs/benchmarks.md``). The work directory's removal deletes it once.
    """
    if job.raw is None:
        assert job.file is not None
        return job.file, False
    in_place = stored_in_place(job.raw)
    if in_place is not None:
        return in_place, False
    copy = job.work / f"{_SCRATCH}{os.getpid()}.bin"
    if copy not in _own_scratch:
        _own_scratch.append(copy)
    fd = os.open(copy, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "wb") as out:  # no O_TRUNC: the blocks already allocated are reused
        if capture is None:
            for chunk in iter_raw_content(job.raw):
                out.write(chunk)
        else:
            capture.out = out
            for chunk in iter_raw_content(job.raw):
                capture.feed(chunk)
            capture.inflated = True
        out.truncate()
    return copy, True


def _capture(job: LibraryJob) -> BundleCapture | None:
    """A capture for ``job`` when one can pay: a deflated zip member whose plan is carried
    out (a stored one is read in place, a dry run compresses nothing). The method alone
    decides: ``stored_in_place`` reads a stored member whole for its CRC, once."""
    from wheel_size.split.capture import BundleCapture
    from wheel_size.wheel.archive import DEFLATED

    if job.raw is None or not job.apply or job.raw.method != DEFLATED:
        return None
    stage = job.work / f"co{job.number}"
    return BundleCapture(None, {}, stage, job.zstd_level)


def _drop_staging(staging: dict[str, tuple[Path, IO[bytes]]]) -> None:
    for path, fh in staging.values():
        fh.close()
        path.unlink(missing_ok=True)
    staging.clear()


_SCRATCH = "inflated-"  # each worker's scratch file: inflated-<pid>.bin in the work directory
_own_scratch: list[Path] = []  # this process's scratch file, once it has made one


def release_scratch() -> None:
    """Delete this process's scratch file: the split's library wave is over when the wheel
    wave starts (:func:`write_output_wheel` calls this first), nothing reads the file again,
    and the pages it held (the largest library this process inflated) are free for the
    wheel wave's writes, which reuse them instead of taking fresh ones. Each worker frees
    its own, both at once (``docs/benchmarks.md``, "Split, sixth pass")."""
    while _own_scratch:
        _own_scratch.pop().unlink(missing_ok=True)


def _content_hash(job: LibraryJob, copy: Path | InPlace) -> str | None:
    """The RECORD hash of a zip member left unchanged, from its inflated copy (fresh in the
    page cache): it is copied verbatim, and its RECORD line is checked against this."""
    from wheel_size.wheel.record import StreamingHash

    if job.raw is None or not job.apply:  # a dry run copies nothing
        return None
    with copy.open("rb") as stream:
        return StreamingHash().feed(stream).value


def _parse(fh: IO[bytes], name: str) -> tuple[FatLibrary | PeFatLibrary, str, str, str, int] | None:
    """The one parse of a library (ELF, or a Windows DLL told by its ``MZ`` magic): the
    parsed library, its kind, fatbin and wrapper section names and fatbin offset; None
    without device code. Both parsed forms have the same API (bundles, wrappers, targets,
    bundle_entries)."""
    fh.seek(0)
    if fh.read(2) == b"MZ":
        from wheel_size.rocm import pe_library

        dll = pe_library.read_dll(fh, name)
        section, wrappers = pe_library.FATBIN_SECTION, pe_library.WRAPPER_SECTION
        return dll, "pe", section, wrappers, dll.fatbin.raw_offset
    from wheel_size.rocm.fatbin_library import FATBIN_SECTION, WRAPPER_SECTION, probe_library

    library = probe_library(fh, name)
    if library is None:
        return None
    return library, "elf", FATBIN_SECTION, WRAPPER_SECTION, library.fatbin.offset


def _plan_rewrite(
    library: FatLibrary | PeFatLibrary, kind: str, job: LibraryJob
) -> tuple[RewritePlan | PePlan, int]:
    """The planned host rewrite and the size of the library it writes."""
    if kind == "pe":
        from wheel_size.rocm.pe_library import PeFatLibrary
        from wheel_size.rocm.pe_rewrite import plan_dll_strip

        assert isinstance(library, PeFatLibrary)  # _parse returns a DLL with kind "pe"
        pe_plan = plan_dll_strip(library, kernel_name=job.rel, search_paths=list(job.search_paths))
        assert pe_plan.result is not None
        return pe_plan, pe_plan.result.bytes_after
    from wheel_size.rocm.fatbin_library import FatLibrary
    from wheel_size.rocm.host_rewrite import plan_strip

    assert isinstance(library, FatLibrary)
    elf_plan = plan_strip(library, kernel_name=job.rel, search_paths=list(job.search_paths))
    assert elf_plan.result is not None
    return elf_plan, elf_plan.result.bytes_after


# The HIP runtime (CLR) reads a HIPK wrapper and loads from .kpack archives only from the
# ROCm 7 series on (libamdhip64.so.7); an older one meets an unknown wrapper magic and
# registers no kernel. cupy-rocm-5-0 13.3.0's fat libraries link libamdhip64.so.5.
# auditwheel renames a grafted runtime ``libamdhip64-<8 hex>.so.6.4.43482``.
_HIP_RUNTIME = re.compile(r"libamdhip64(?:-[0-9a-f]{8})?\.so\.(\d+)(?:\.\d+)*\Z")
KPACK_HIP_MAJOR = 7


def _pre_kpack_runtime(library: FatLibrary | PeFatLibrary) -> str | None:
    """The ``libamdhip64.so.N`` (N < 7) a library links directly, or None (a newer runtime,
    or none named: one reached through another library cannot be told from here)."""
    from wheel_size.rocm.elf_tables import needed_libraries
    from wheel_size.rocm.fatbin_library import FatLibrary

    assert isinstance(library, FatLibrary)
    for name in needed_libraries(library.elf):
        match = _HIP_RUNTIME.match(name)
        if match and int(match.group(1)) < KPACK_HIP_MAJOR:
            return name
    return None


def _target(entry: BundleEntry) -> str:
    """A device entry's target-id (the libraries return device entries only)."""
    assert entry.entry_id.target is not None
    return entry.entry_id.target.text


def read_and_plan_library(job: LibraryJob) -> LibraryPlan:
    """Read one candidate once (extracting it when it is a zip member): detect device code,
    delimit its bundles, list targets and code objects, and plan the host rewrite. Writes
    nothing but the inflated copy (this process's scratch file, :func:`_extract`), which
    :func:`apply_library` reads when ``job.apply`` and the library is fat, and the frames of
    the code objects taken on the way (``split.capture``), which the plan vouches for or the
    library is inflated again whole."""
    capture = _capture(job)
    if capture is None:
        return _plan_library(job)
    early = _EarlyIndex(job)
    capture.first_bundle = early.start
    try:
        plan = _plan_library(job, capture)
    except WheelSizeError:
        early.cancel()
        _drop_staging(capture.staging)
        if not capture.made_holes or not capture.inflated:
            raise  # a member that does not inflate fails the same way again
        # a guess that cut host bytes out can make a sound library look broken
        return _plan_library(job)
    taken = capture.close()
    captured = _vouched(plan, taken) if taken else None
    if captured is not None:
        plan = dataclasses.replace(plan, captured=captured, staging=capture.staging)
    else:
        _drop_staging(capture.staging)
        if capture.made_holes:
            plan = _plan_library(job)
    if not plan.fat:
        early.cancel()
        return plan
    return dataclasses.replace(plan, index=early.index)


class _EarlyIndex:
    """The input member's block index (``split.reuse``), started as soon as the capture
    meets the library's first bundle, when the host bytes before it alone make a splice
    pay (``reuse.pays`` grows with the rewrite's size, and those bytes stay in it): the
    code objects no longer wait to be staged after the plan, so an index started there
    would have nothing left to run beside."""

    def __init__(self, job: LibraryJob) -> None:
        self.job = job
        self.index: BackgroundIndex | None = None

    def start(self, offset: int) -> None:
        from wheel_size.split import reuse

        job = self.job
        if job.deflate and job.deflate_level > 0 and reuse.pays(offset, job.raw):
            assert job.raw is not None
            self.index = reuse.BackgroundIndex(job.raw)

    def cancel(self) -> None:
        if self.index is not None:
            self.index.cancel()
            self.index = None


def _vouched(
    plan: LibraryPlan, taken: Sequence[CapturedBundle]
) -> dict[int, tuple[CapturedCode, ...]] | None:
    """The taken code objects when the plan of a fat ELF library confirms them
    (``capture.usable``), else None."""
    from wheel_size.rocm.host_rewrite import RewritePlan
    from wheel_size.split.capture import usable

    if not plan.fat or plan.kind != "elf" or not isinstance(plan.rewrite, RewritePlan):
        return None
    cut = (plan.rewrite.cut_start, plan.rewrite.cut_end)
    return usable(taken, plan.section_offset, plan.bundles, cut)


def _plan_library(job: LibraryJob, capture: BundleCapture | None = None) -> LibraryPlan:
    """:func:`read_and_plan_library`'s plan, from the copy :func:`_extract` makes."""
    src, extracted = _extract(job, capture)
    try:
        with src.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            parsed = _parse(fh, job.source)
            if parsed is None:
                digest = _content_hash(job, src)
                return LibraryPlan(job.number, job.rel, size, fat=False, content_hash=digest)
            library, kind, section, wrapper_name, offset = parsed
            if not library.wrappers:
                # Nothing registers this device code through __hipRegisterFatBinary, so the
                # runtime could not follow a kpack reference to it; the library may load it by
                # other means (a symbol into the section). Stripping it would break that.
                warning = (
                    f"{job.source}: {section} is not registered by any {wrapper_name} "
                    "wrapper; left in the host wheel unchanged"
                )
                return LibraryPlan(
                    job.number,
                    job.rel,
                    size,
                    fat=False,
                    warning=warning,
                    content_hash=_content_hash(job, src),
                )
            runtime = _pre_kpack_runtime(library) if kind == "elf" else None
            if runtime is not None:
                return LibraryPlan(
                    job.number,
                    job.rel,
                    size,
                    fat=False,
                    warning=(
                        f"{job.source}: links {runtime}, a HIP runtime older than ROCm 7 that "
                        "cannot load code from kpack archives; left in the host wheel unchanged"
                    ),
                    old_runtime=runtime,
                    content_hash=_content_hash(job, src),
                )
            code_objects = tuple(
                PlannedCodeObject(_target(entry), ref.ordinal, entry.size)
                for ref in library.bundles
                for entry in library.bundle_entries(ref.ordinal)
            )
            targets = tuple(library.targets)
            rewrite, size_after = _plan_rewrite(library, kind, job)
            findings: tuple[Finding, ...] = ()
            if kind == "elf":
                from wheel_size.rocm.elf_verify import verify_image
                from wheel_size.rocm.fatbin_library import FatLibrary

                assert isinstance(library, FatLibrary)
                findings = tuple(verify_image(library.elf))
            keep = job.apply
            return LibraryPlan(
                job.number,
                job.rel,
                size,
                fat=True,
                kind=kind,
                section=section,
                section_offset=offset,
                section_size=library.fatbin_size,
                wrappers=len(library.wrappers),
                targets=targets,
                code_objects=code_objects,
                bundles=tuple(library.bundles),
                rewrite=rewrite,
                size_after=size_after,
                copy=src if keep else None,
                extracted=extracted and keep,
                findings=findings,
            )
    except WheelSizeError as exc:
        raise _renamed(exc, src, job.source) from None


def apply_library(job: ApplyJob) -> LibraryResult:
    """Carry out one library's plan: stage its code objects (zstd frames when asked) and
    write the rewritten host library, both read from the scan's copy at the places the plan
    names (no second parse), then deflate the result for the host wheel."""
    from wheel_size.rocm.fatbin_library import stream_code_objects
    from wheel_size.rocm.kpack import write_kernel_frame
    from wheel_size.rocm.source import as_source
    from wheel_size.split.window_gate import WindowGate

    spec, plan = job.library, job.plan
    assert plan.fat and plan.copy is not None
    work, src = spec.work, plan.copy
    stripped = work / f"stripped{spec.number}.so"
    background = _index_in_background(spec, plan)
    try:
        with src.open("rb") as fh, contextlib.ExitStack() as files:
            refs: list[CodeObjectRef] = []
            captured = plan.captured or {}
            codes = stream_code_objects(
                as_source(fh),
                spec.source,
                plan.section_offset,
                [ref for ref in plan.bundles if ref.ordinal not in captured],
                check_hash=spec.check_hash,
                section=plan.section,
                gate=WindowGate(work / "ccob-window.lock"),
            )
            # One staging file per target: the device wheel that takes a target's kernels
            # alone deletes them once its archive is written (:func:`write_output`). The
            # frames the capture staged are in the first of them, still open.
            staging = plan.staging if plan.staging is not None else {}
            for _path, staged_file in staging.values():
                files.enter_context(staged_file)
            taken = _taken_refs(plan, captured, spec)
            for planned in plan.code_objects:
                if planned.index in captured:
                    refs.append(next(taken))
                    continue
                code = next(codes, None)
                if code is None:  # fewer code objects than the scan planned
                    raise InvalidBundle(f"{spec.source}: changed since it was scanned")
                if planned != PlannedCodeObject(code.target, code.index, code.size):
                    raise WheelSizeError(f"{spec.source}: changed since it was scanned")
                if code.target not in staging:
                    path = work / f"co{spec.number}-{len(staging)}.bin"
                    staging[code.target] = (path, files.enter_context(path.open("wb")))
                staged, out = staging[code.target]
                start = out.tell()
                if spec.zstd_level is not None:
                    write_kernel_frame(out, code.chunks, code.size, spec.zstd_level)
                else:
                    for chunk in code.chunks:
                        out.write(chunk)
                refs.append(
                    CodeObjectRef(
                        code.target,
                        code.index,
                        staged,
                        start,
                        out.tell() - start,
                        code.size,
                        spec.zstd_level is not None,
                    )
                )
            if next(codes, None) is not None:  # more than it planned
                raise WheelSizeError(f"{spec.source}: changed since it was scanned")
            _rewrite(plan, fh, src, stripped, spec)
        stripped.chmod(0o755)
        result = LibraryResult(
            spec.number,
            spec.rel,
            fat=True,
            original_size=plan.size,
            stripped_size=stripped.stat().st_size,
            stripped=stripped,
            targets=plan.targets,
            code_objects=refs,
        )
        if spec.deflate:
            dst = work / f"stripped{spec.number}.deflate"
            done = _reused(spec, plan, stripped, dst, background)
            background = None
            if done is None:
                done = _recompress(spec, stripped, dst)
            result.stripped_raw, result.stripped_hash = done.raw, done.record_hash
            result.deflate_backend = done.backend
            result.deflate_sizes, result.deflate_seconds = done.sizes, done.seconds
        return result
    except WheelSizeError as exc:
        raise _renamed(exc, src, spec.source) from None
    finally:
        if background is not None:
            background.cancel()


def _taken_refs(
    plan: LibraryPlan, captured: dict[int, tuple[CapturedCode, ...]], spec: LibraryJob
) -> Iterator[CodeObjectRef]:
    """The staged frames of the code objects the capture took, in the plan's order, each
    first checked as :func:`stream_code_objects` checks the ones it reads (its ELF header
    against its target)."""
    from wheel_size.rocm.amdgpu_elf import verify_code_object

    where = f"{spec.source}: {plan.section}"
    for ref in plan.bundles:
        if ref.ordinal not in captured:
            continue
        assert ref.plain is not None  # capture.usable takes plain bundles only
        for entry, code in zip(ref.plain.device_entries(), captured[ref.ordinal], strict=True):
            target = entry.entry_id.target
            assert target is not None
            if target.processor.startswith("gfx"):
                what = f"{where} bundle {ref.ordinal} entry {entry.entry_id.text}"
                verify_code_object(code.head, target, what)
            yield CodeObjectRef(
                code.target,
                ref.ordinal,
                code.staged,
                code.offset,
                code.length,
                code.size,
                spec.zstd_level is not None,
            )


def _index_in_background(spec: LibraryJob, plan: LibraryPlan) -> BackgroundIndex | None:
    """The input member's block index, started on its own thread before the code objects
    are staged where a splice is planned (``split.reuse.pays`` on the planned rewrite's
    size), so it costs the wall time of neither; the one :class:`_EarlyIndex` started while
    the library was inflated, where there is one; None where no splice will be tried."""
    early = plan.index
    from wheel_size.split import reuse

    splice = spec.deflate and spec.deflate_level > 0 and plan.rewrite is not None
    if not splice or not reuse.pays(plan.size_after, spec.raw):
        if early is not None:
            early.cancel()
        return None
    assert spec.raw is not None
    return early if early is not None else reuse.BackgroundIndex(spec.raw)


def _reused(
    spec: LibraryJob,
    plan: LibraryPlan,
    stripped: Path,
    dst: Path,
    background: BackgroundIndex | None,
) -> Deflated | None:
    """The rewritten library spliced from its input member's deflate blocks where the plan
    said the splice pays (``background``, the index started before the staging:
    :func:`_index_in_background`) and it keeps the promises (``split.reuse``), else None
    (a full recompression follows)."""
    if background is None:
        return None
    from wheel_size.split import reuse

    assert spec.raw is not None and plan.rewrite is not None
    copies = plan.rewrite.copies()
    done, _ = reuse.splice_library(spec.raw, stripped, dst, copies, spec.deflate_level, background)
    return done


def _recompress(spec: LibraryJob, stripped: Path, dst: Path) -> Deflated:
    """The rewritten library deflated by ISA-L, or by zlib at ``--deflate-level`` where
    ``split.deflate_probe`` finds zlib's pass worth running (1 % and 64 KiB smaller than
    ISA-L's on its samples: host code, nearly always; random bytes, never), or by both side
    by side where the library is small enough to go unsampled or ISA-L's stream alone is
    larger than the input member; the smaller stream, or the library stored when no stream
    is smaller (``writer.deflate_file``). A compressor that fails is one error naming the
    member."""
    from wheel_size.split.deflate_probe import probe
    from wheel_size.wheel import deflate

    try:
        bounded, fast = True, True
        size = stripped.stat().st_size
        if deflate.HAS_FAST and spec.deflate_level > 0:
            with stripped.open("rb") as fh:

                def read(at: int, length: int) -> bytes:
                    return os.pread(fh.fileno(), length, at)

                decision = probe(read, size, spec.deflate_level, baseline=_fast_size)
            bounded = decision.full_pass
            # Sampled and predicted 1 % and 64 KiB smaller than ISA-L's: ISA-L's stream
            # beside it would be kept only where the samples lied (host code: never in the
            # real-wheel suite), at a ninth of zlib's CPU (jax-rocm7-pjrt: 1.5 CPU-s).
            fast = not (decision.full_pass and decision.sampled)
        threads = spec.threads
        done = deflate_file(
            stripped, dst, level=spec.deflate_level, bounded=bounded, threads=threads, fast=fast
        )
        if (
            not bounded
            and spec.raw is not None
            and done.raw.compressed_size > spec.raw.compressed_size
        ):
            # The promise outranks the line: a rewritten member no larger than the one it
            # replaces wherever zlib can make it so (jax-rocm7-plugin 0.10.0's _solver.so:
            # ISA-L 454,222 bytes against 434,801 in, zlib 6 410,571, a 44 KB saving under
            # 64 KiB).
            done = deflate_file(
                stripped, dst, level=spec.deflate_level, bounded=True, threads=threads
            )
        return done
    except deflate.ERRORS as exc:
        raise WheelSizeError(
            f"{spec.source}: the rewritten library could not be recompressed: {exc}"
        ) from None


def _fast_size(data: bytes) -> int:
    """What ISA-L (the split's fast compressor) makes of ``data``: the probe's baseline."""
    from wheel_size.wheel import deflate

    compressor = deflate.compressobj()
    return len(compressor.compress(data)) + len(compressor.flush())


def _rewrite(
    plan: LibraryPlan, fh: IO[bytes], src: Path | InPlace, dst: Path, spec: LibraryJob
) -> None:
    """Write the planned host rewrite of the open library ``fh`` to ``dst`` and verify it
    (host_rewrite's plan -> apply -> verify, with the plan made in the scan)."""
    search_paths = list(spec.search_paths)
    if isinstance(src, InPlace):  # its mode bits: the wheel's (the caller sets 0o755 after)
        src = src.path
    if plan.kind == "pe":
        from wheel_size.rocm.pe_rewrite import PePlan, write_dll

        assert isinstance(plan.rewrite, PePlan)
        write_dll(plan.rewrite, fh, src, dst, kernel_name=spec.rel, search_paths=search_paths)
        return
    from wheel_size.rocm.host_rewrite import RewritePlan, verify_stripped, write_rewritten_library

    assert isinstance(plan.rewrite, RewritePlan)  # planned in the scan, kept for the apply

    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as out:
            write_rewritten_library(plan.rewrite, fh, out)
        shutil.copymode(src, tmp)
        verify_stripped(tmp, spec.source, plan.rewrite, before=plan.findings)
        tmp.replace(dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def library_job(job: LibraryJob) -> tuple[LibraryPlan, LibraryResult | None]:
    """One library through the split's library wave: its complete plan
    (:func:`read_and_plan_library`) and, unless this is a dry run, that plan carried out at
    once (:func:`apply_library`), while the inflated copy is fresh in the page cache.
    Holding every library's copy until all are planned cost a tenth more CPU
    (``docs/benchmarks.md``). The plan that goes back to the main process leaves out what
    only the apply needed (bundles, rewrite bytes)."""
    plan = read_and_plan_library(job)
    result = apply_library(ApplyJob(job, plan)) if plan.fat and job.apply else None
    slim = dataclasses.replace(
        plan,
        bundles=(),
        rewrite=None,
        copy=None,
        findings=(),
        captured=None,
        staging=None,
        index=None,
    )
    return slim, result


def process_library(job: LibraryJob) -> LibraryResult:
    """Plan and apply one library (tools and fuzzing)."""
    plan, result = library_job(job)
    if result is None:
        return LibraryResult(job.number, job.rel, fat=False, warning=plan.warning)
    return result


@dataclass(frozen=True)
class KpackResult:
    """One archive of the split: ``<group>_<arch>.kpack`` (``name``), laid out from its staged
    kernels (``stream``), which the device wheel's writer streams into its zip member once:
    no kpack file is written, read back, copied or deleted (one that pays to deflate goes
    through a scratch file of its deflated bytes, :func:`settle_kpack`). ``kernels`` counts
    stored code objects, not their TOC aliases."""

    arch: str
    name: str
    size: int
    kernels: int
    stream: StreamedKpack


def kpack_result(
    *,
    arch: str,
    group: str,
    compression: str,
    items: Sequence[tuple[str, CodeObjectRef, tuple[str, ...]]],
    arches: Sequence[str] = (),
) -> KpackResult:
    """The archive for ``items`` (toc key, staged code object, the arch strings it is filed
    under): zstd frames staged by the library jobs for the zstd scheme, raw code objects for
    "none"."""
    from wheel_size.rocm.kpack import SCHEMES, KpackBlob, StreamedKpack, kpack_file_name

    zstd = compression == "zstd"
    blobs = []
    for key, ref, listed in items:
        if ref.compressed != zstd:
            raise ValueError(f"{key}: staged {'raw' if zstd else 'compressed'}, not {compression}")
        blobs.append(
            KpackBlob(key, listed or (arch,), ref.path, ref.offset, ref.size, ref.original_size)
        )
    stream = StreamedKpack(arch, group, SCHEMES[compression], tuple(blobs), tuple(arches))
    return KpackResult(arch, kpack_file_name(group, arch), stream.size, len(blobs), stream)


def kpack_entry(path: str, kpack: KpackResult, compression: str, level: int) -> WheelEntry:
    """The device wheel's member for ``kpack``. A "none" kpack is deflated at ``level``. A
    zstd kpack is given stored; the job that writes its wheel settles it
    (:func:`settle_kpack`): deflated in full and kept deflated where that is smaller, when
    its samples say a full pass could save 1 % and 64 KiB (one under 64 KiB never can)."""
    if compression != "zstd":
        return WheelEntry(path, stream=kpack.stream, compress=True)
    return WheelEntry(path, stream=kpack.stream, compress=False)


@dataclass(frozen=True)
class SettledKpack:
    """How a stored zstd kpack went into its wheel: ``entry`` (stored, or the deflated
    stream in a scratch file), the ``decision`` that chose whether to deflate it in full, and
    the full pass's bytes (``deflated``; None when none was run)."""

    entry: WheelEntry
    decision: DeflateDecision
    deflated: int | None

    @property
    def stored(self) -> bool:
        return self.entry.raw is None


def settle_kpack(
    path: str, stream: StreamedKpack, level: int, scratch: Path, threads: int = 1
) -> SettledKpack:
    """The member for a zstd kpack, no larger than zlib at ``level`` makes it wherever
    ``split.deflate_probe`` finds a full pass could pay: then the archive is streamed once
    through zlib into ``scratch`` (in ``deflate.BlockDeflate``'s blocks on ``threads``
    threads; hashed and CRC'd on the way; memory stays a few blocks) and the smaller of
    stored and deflated is kept. ``scratch`` is the caller's to delete."""
    from wheel_size.split.deflate_probe import probe
    from wheel_size.wheel import deflate
    from wheel_size.wheel.record import StreamingHash

    decision = probe(stream.read, stream.size, level, stream.regions(), small=True)
    stored = WheelEntry(path, stream=stream, compress=False)
    if not decision.full_pass:
        return SettledKpack(stored, decision, None)
    hasher = StreamingHash()
    crc = 0
    compressor = deflate.BlockDeflate(level, threads)
    try:
        with scratch.open("wb") as out:
            for chunk in stream.chunks():
                hasher.update(chunk)
                crc = deflate.crc32(chunk, crc)
                out.write(compressor.compress(chunk))
            out.write(compressor.flush())
            size = out.tell()
    finally:
        compressor.close()
    if size >= hasher.size:
        return SettledKpack(stored, decision, size)
    raw = RawData(scratch, 0, size, hasher.size, crc, 8)
    return SettledKpack(WheelEntry(path, raw=raw, record_hash=hasher.value), decision, size)


@dataclass(frozen=True)
class RecordCheck:
    """Members copied verbatim into the outputs, each with the hash its RECORD line claims."""

    members: tuple[tuple[str, RawData, str], ...]  # (name, compressed bytes, claimed hash)


def check_record(job: RecordCheck) -> list[tuple[str, str]]:
    """Inflate and hash each member once (its CRC checked on the way): (name, real hash) for
    every member whose RECORD line lies. A verbatim copy keeps the bytes, so the outputs'
    RECORD must carry what they really hash to; a stream that does not inflate is an
    InvalidWheel naming the member, before any output is written."""
    from wheel_size.wheel.record import StreamingHash

    lies = []
    for name, raw, claimed in job.members:
        hasher = StreamingHash()
        for chunk in iter_raw_content(raw):
            hasher.update(chunk)
        if hasher.value != claimed:
            lies.append((name, hasher.value))
    return lies


@dataclass(frozen=True)
class WheelJob:
    """One output wheel (or unpacked tree) to write."""

    dest: Path
    dist_info: str
    entries: tuple[WheelEntry, ...]
    directory: bool
    deflate_level: int
    threads: int = 1  # zlib's blocks of a kpack worth deflating on this many threads
    # Staged kernels only this wheel's archives hold: deleted once the last is written, so
    # their pages are free again for the rest of the wave's writes (docs/benchmarks.md).
    release: tuple[Path, ...] = ()


@dataclass(frozen=True)
class _Releasing:
    """A kpack stream that deletes each of ``paths`` as soon as its last blob has been
    written: the pages it held are free again for the next blob's writes, which then reuse
    them instead of taking fresh ones (``docs/benchmarks.md``, "Split, sixth pass")."""

    stream: StreamedKpack
    paths: frozenset[Path]

    @property
    def size(self) -> int:
        return self.stream.size

    def chunks(self) -> Iterator[bytes]:
        yield from self.stream.chunks(done=self._done)
        _unlink(sorted(self.paths))  # any the stream did not read (none, as planned)

    def _done(self, path: Path) -> None:
        if path in self.paths:
            path.unlink(missing_ok=True)


def _unlink(paths: Sequence[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def write_output_wheel(job: WheelJob) -> WrittenWheel:
    """Write one output wheel or tree; a stored zstd kpack is settled first
    (:func:`settle_kpack`), its deflated stream in a scratch file next to the wheel,
    removed once the wheel is written."""
    from wheel_size.rocm.kpack import StreamedKpack

    release_scratch()
    if job.directory:
        return write_tree(job.dest, job.entries, dist_info=job.dist_info)
    entries = list(job.entries)
    scratch: list[Path] = []
    kpacks = [i for i, e in enumerate(entries) if isinstance(e.stream, StreamedKpack)]
    try:
        for i in kpacks:
            entry = entries[i]
            assert isinstance(entry.stream, StreamedKpack)
            if not entry.compress:
                scratch.append(job.dest.with_name(f".{job.dest.name}.{i}.kpack.deflate"))
                entries[i] = settle_kpack(
                    entry.path, entry.stream, job.deflate_level, scratch[-1], job.threads
                ).entry
        # Each staged file only this wheel reads is deleted as soon as the last archive
        # reading it (members go in path order) has written its last blob from it; when
        # every archive went through its deflated scratch copy, nothing reads them.
        streamed = sorted(
            (i for i in kpacks if entries[i].stream is not None), key=lambda i: entries[i].path
        )
        owner: dict[Path, int] = {}
        for i in streamed:
            stream = entries[i].stream
            assert isinstance(stream, StreamedKpack)
            owner.update(dict.fromkeys((b.path for b in stream.blobs), i))
        _unlink([p for p in job.release if p not in owner])
        for i in streamed:
            mine = frozenset(p for p in job.release if owner.get(p) == i)
            stream = entries[i].stream
            if mine:
                assert isinstance(stream, StreamedKpack)
                entries[i] = dataclasses.replace(entries[i], stream=_Releasing(stream, mine))
        return write_wheel(job.dest, entries, dist_info=job.dist_info, level=job.deflate_level)
    finally:
        for path in scratch:
            path.unlink(missing_ok=True)
