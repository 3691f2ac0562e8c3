"""Plan a split, then carry the frozen plan out: rewrite libraries, build kpacks, write wheels,
move them into place.

The library wave plans each candidate completely
(:func:`wheel_size.split.work.read_and_plan_library` parses it once) and, in the same job,
carries that plan out (code objects staged, the planned host rewrite written and verified,
nothing parsed again); the job's plans are frozen
into one :class:`~wheel_size.split.plan.SplitPlan` (layout, names, warnings) before any kpack
or wheel is written, and those are built from it alone. :func:`plan_only` runs only the
planning (``--dry-run``) and writes nothing outside a temporary directory it removes again.

All outputs are built in a staging directory next to the output directory and moved in only
when every wheel is complete; any failure removes the staging directory and leaves the output
directory as it was (directories this run created are removed again). Work is spread over
at most ``--jobs`` processes in two waves (libraries, wheels): how many is decided before
any work, from the library candidates' sizes (:func:`wheel_size.split.jobs.pool_workers`:
a pool only where it takes more wall time off than it costs; otherwise every job runs in
this process, with the same outputs). The kpack archives are laid out in
between from the staged code objects and stream into their device wheels as those are
written; unchanged members are copied as raw compressed bytes.

Every output name is composed from validated parts (``wheel_filename``: PEP 508 name, PEP 440
version, PEP 425 tags; bundle keys and target-ids of a strict character set) and resolved
inside its directory (``path_inside``) before anything is written. A write the file system
refuses (full, read-only, a file in the way) is one OutputError naming the output directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from wheel_size.errors import InputError, OutputError
from wheel_size.fileio import (
    is_write_failure,
    make_dirs,
    output_error,
    path_inside,
    remove_dirs,
)
from wheel_size.progress import Progress
from wheel_size.rocm.kpack_layout import plan_archives
from wheel_size.split.extras import install_chains
from wheel_size.split.metadata import (
    DeviceBundle,
    device_metadata,
    device_wheel_file,
    host_metadata,
    variant_json,
)
from wheel_size.split.names import (
    check_bundle_key,
    check_device_prefix,
    check_target_id,
    device_dist_name,
    hierarchy,
    normalize_arch,
    wheel_escape,
)
from wheel_size.split.plan import (
    DbFile,
    SplitOptions,
    SplitPlan,
    WheelScan,
    find_dist_info,
    freeze_plan,
    host_filename,
    library_jobs,
    regenerated,
    scan_wheel,
)
from wheel_size.split.pool import Timed
from wheel_size.split.pool import pool as _pool
from wheel_size.split.pool import run_jobs as _run
from wheel_size.split.work import (
    CodeObjectRef,
    KpackResult,
    LibraryJob,
    LibraryPlan,
    LibraryResult,
    RecordCheck,
    WheelJob,
    check_record,
    kpack_entry,
    kpack_result,
    library_job,
    write_output_wheel,
)
from wheel_size.units import format_size
from wheel_size.wheel.archive import Member, RawData, WheelSource, open_source
from wheel_size.wheel.deflate import block_threads
from wheel_size.wheel.filename import wheel_filename
from wheel_size.wheel.writer import WheelEntry, WrittenWheel

__all__ = [
    "DeviceOutput",
    "SplitResult",
    "growth_warning",
    "plan_only",
    "remove_outputs",
    "split_wheel",
]


@dataclass
class DeviceOutput:
    """One device wheel and what went into it."""

    bundle: DeviceBundle
    kpacks: list[KpackResult]
    db_files: list[DbFile]
    wheel: WrittenWheel


@dataclass
class SplitResult:
    """Everything the report needs."""

    plan: SplitPlan
    input_size: int
    host: WrittenWheel
    variant: WrittenWheel | None
    devices: list[DeviceOutput]
    libraries: list[LibraryResult]
    warnings: list[str] = field(default_factory=list)
    # Wall-clock seconds per phase (scan, libraries, kpacks, wheels, move, total) and worker
    # seconds spent writing the host, variant and device wheels: the report's timing table.
    timings: dict[str, float] = field(default_factory=dict)
    options: SplitOptions | None = None  # what the report's notes describe
    workers: int = 1  # processes the waves ran on (1: no pool; at most ``options.jobs``)
    input_metadata: bytes | None = None  # the input's METADATA, as the split read it
    # Directories this run created (outermost first): removed again if a later step fails.
    created: list[Path] = field(default_factory=list)

    @property
    def wheels(self) -> list[WrittenWheel]:
        """Every output: host, variant, device wheels."""
        return [
            self.host,
            *([self.variant] if self.variant else []),
            *(d.wheel for d in self.devices),
        ]


def remove_outputs(result: SplitResult) -> None:
    """Undo a finished split (a later step such as writing its report failed): remove its
    wheels or trees, then the directories it created if they are empty."""
    for wheel in result.wheels:
        with contextlib.suppress(OSError):
            if wheel.path.is_dir() and not wheel.path.is_symlink():
                shutil.rmtree(wheel.path)
            else:
                wheel.path.unlink(missing_ok=True)
    remove_dirs(result.created)


def _check_output_dir(
    output_dir: Path, names: Sequence[str], device_prefix: str, tail: str
) -> None:
    """Refuse an output directory that already holds this split (the same host wheel, or device
    wheels of the same prefix, version and tags); splits of other wheels may share it."""
    if not output_dir.exists():
        return
    if not output_dir.is_dir():
        raise InputError(f"{output_dir}: exists and is not a directory")
    prefix = wheel_escape(device_prefix) + "_"
    for entry in sorted(output_dir.iterdir()):
        name = entry.name
        ours = name.startswith(prefix) and name.removesuffix(".whl").endswith(tail)
        if name in names or ours:
            raise InputError(
                f"{output_dir}: already holds a split ({name}); use an empty output directory"
            )


def _staging_error(
    exc: OSError | OutputError, stage: Path, output_dir: Path, tmp_dir: Path | None
) -> OutputError:
    """A refused write, named by the place the user chose (the output directory, or
    ``--tmp-dir``), not by a staging file that is removed on the way out."""
    if isinstance(exc, OSError):
        where = Path(str(exc.filename)) if exc.filename else stage
        error = output_error(where, exc)
    else:
        error = exc
    path, sep, reason = str(error).partition(": cannot write: ")
    if not sep:
        return error
    staged = stage / "out"
    if path == str(staged) or path.startswith(f"{staged}/"):
        return OutputError(f"{output_dir}{path[len(str(staged)) :]}: cannot write: {reason}")
    if tmp_dir is not None and (path == str(tmp_dir) or path.startswith(f"{tmp_dir}/")):
        return OutputError(f"{tmp_dir}: cannot write: {reason}")
    if path == str(stage) or path.startswith(f"{stage}/"):
        return OutputError(f"{output_dir}: cannot write: {reason}")
    return error


@contextmanager
def _scanned(
    input_path: Path, output_dir: Path, options: SplitOptions
) -> Iterator[tuple[WheelSource, WheelScan, str, str]]:
    """The opened input, its header scan, the host wheel's name and the name tail of this
    split's wheels, with the output directory checked (read only) as the split needs it."""
    check_device_prefix(options.device_package_prefix)
    source = open_source(input_path)
    try:
        dist_info = find_dist_info(source)
        scan = scan_wheel(source, options, dist_info=dist_info)
        host_name = host_filename(input_path, scan.identity)
        path_inside(output_dir, host_name)
        tail = f"-{scan.identity.version}-{scan.identity.tag_string}"
        _check_output_dir(
            output_dir, [host_name, host_name[:-4]], options.device_package_prefix, tail
        )
        yield source, scan, host_name, tail
    finally:
        source.close()


# What the library jobs import (kpack writing, the deflate probe; the host rewrite with its
# tables and checks for an ELF library, its PE twin for a DLL): ~40 CPU-ms a worker when each
# forked worker imports them itself.
_WORKER_MODULES = (
    "wheel_size.rocm.kpack",
    "wheel_size.split.deflate_probe",
    "wheel_size.split.window_gate",
)
_ELF_MODULES = ("wheel_size.rocm.elf_tables", "wheel_size.rocm.host_rewrite")
_PE_MODULES = ("wheel_size.rocm.pe_rewrite", "wheel_size.rocm.pe_verify")


def _import_for_workers(jobs: int, scan: WheelScan) -> None:
    """Import here, once, what the split's workers would each import, before the pool forks
    them (by name, through the import statement's own ``__import__``, so ``-X importtime``
    shows them: an unused ``import`` in a function is what linters remove). A library's
    kind is told by its bytes; its name only decides what is worth importing early."""
    if jobs <= 1 or not scan.candidates:
        return
    dll = [m.name.lower().endswith(".dll") for m in scan.candidates]
    names = (
        _WORKER_MODULES + (_ELF_MODULES if not all(dll) else ()) + (_PE_MODULES if any(dll) else ())
    )
    for name in names:
        __import__(name)


def _workers(
    options: SplitOptions,
    scan: WheelScan,
    records: Sequence[RecordCheck],
    workers: int | None,
) -> tuple[SplitOptions, int]:
    """The options with ``--jobs`` settled, and the processes this split runs on
    (:func:`wheel_size.split.jobs.pool_workers`, or ``workers`` where the caller fixed it),
    their modules imported before any fork. For ``--jobs auto`` the load is sampled (a
    fifth of a second) only when a pool could pay on every usable core; otherwise the
    usable cores stay the count (the zlib block threads of one process may use them)."""
    from wheel_size.split.jobs import auto_jobs, pool_workers

    checks = [sum(raw.size for _, raw, _ in r.members) for r in records]
    sizes = [m.size for m in scan.candidates]
    count = pool_workers(options.jobs, sizes, checks)
    if options.jobs_auto:
        jobs = options.jobs if count == 1 else auto_jobs(cpus=options.jobs)
        options = dataclasses.replace(options, jobs=jobs, jobs_auto=False)
        count = pool_workers(jobs, sizes, checks)
    count = count if workers is None else workers
    _import_for_workers(count, scan)
    return options, count


def plan_only(
    input_path: Path,
    output_dir: Path,
    options: SplitOptions,
    *,
    tmp_dir: Path | None = None,
    log: TextIO | None = None,
    workers: int | None = None,
) -> SplitPlan:
    """The complete plan of a split (``--dry-run``), with the same checks and refusals as a
    real one. Libraries in a zip are inflated into a temporary directory (under ``tmp_dir``)
    to be parsed, one scratch file per process overwritten by each library, the directory
    removed on the way out; nothing else is written, not even the output directory."""
    log = log or sys.stderr
    output_dir = output_dir.resolve()
    with _scanned(input_path, output_dir, options) as (source, scan, host_name, _tail):
        work = Path(tempfile.mkdtemp(prefix="wheel-size-dry-run-", dir=tmp_dir))
        try:
            options, count = _workers(options, scan, (), workers)
            with _pool(count) as executor:
                jobs = library_jobs(source, scan, options, work, apply=False)
                libraries, _, _ = _library_wave(executor, scan, jobs, "scanning libraries", log)
            plan = freeze_plan(scan, libraries, options, host_name)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    _announce(plan, options, log)
    return plan


def split_wheel(
    input_path: Path,
    output_dir: Path,
    options: SplitOptions,
    *,
    tmp_dir: Path | None = None,
    log: TextIO | None = None,
    workers: int | None = None,
) -> SplitResult:
    """Split one fat wheel; outputs appear in ``output_dir`` only if everything succeeded.
    ``workers`` overrides the number of processes the rule picks (1: none but this one),
    for measuring a pool against no pool."""
    log = log or sys.stderr
    started = time.perf_counter()
    output_dir = output_dir.resolve()
    with _scanned(input_path, output_dir, options) as (source, scan, host_name, tail):
        scanned = time.perf_counter()
        made = make_dirs(output_dir.parent, naming=output_dir)
        try:
            stage = Path(
                tempfile.mkdtemp(prefix=f".{output_dir.name}.split-", dir=output_dir.parent)
            )
        except OSError as exc:
            remove_dirs(made)
            raise output_error(output_dir, exc) from None
        try:
            result: SplitResult | None = None
            try:
                result = _split(source, scan, options, stage, tmp_dir, host_name, log, workers)
                moving = time.perf_counter()
                created = _move_into_place(stage / "out", output_dir, options, tail)
                result.timings["move"] = time.perf_counter() - moving
            finally:
                cleaning = time.perf_counter()
                shutil.rmtree(stage, ignore_errors=True)
                if result is not None:  # deleting the staged kernels is part of the wall time
                    result.timings["cleanup"] = time.perf_counter() - cleaning
        except OutputError as exc:
            remove_dirs(made)
            raise _staging_error(exc, stage, output_dir, tmp_dir) from None
        except OSError as exc:
            remove_dirs(made)
            if not is_write_failure(exc):
                raise
            raise _staging_error(exc, stage, output_dir, tmp_dir) from None
        except BaseException:
            remove_dirs(made)
            raise
    _relocate(result, stage / "out", output_dir)
    result.created = [*made, *([output_dir] if created else [])]
    result.timings["scan"] = scanned - started
    result.timings["total"] = time.perf_counter() - started
    return result


def _announce(plan: SplitPlan, options: SplitOptions, log: TextIO) -> None:
    """Print the plan's warnings (and, with ``--verbose``, its outline) once."""
    for warning in plan.warnings:
        print(f"wheel-size: warning: {warning}", file=log)
    if options.verbose:
        fat = plan.fat_libraries
        print(
            f"split: {plan.source_path.name}: {len(plan.members)} files, "
            f"{len(plan.candidates)} library file(s) under {plan.overlay or '.'}/ examined, "
            f"{len(fat)} with device code, {sum(len(lib.code_objects) for lib in fat)} code "
            f"object(s), {len(plan.db_files)} database file(s) to move, "
            f"{len(plan.devices)} device wheel(s)",
            file=log,
        )


def _move_into_place(staged: Path, output_dir: Path, options: SplitOptions, tail: str) -> bool:
    """Move the staged outputs in; True when ``output_dir`` itself was created. A failure
    part way moves back what was moved, so the output directory is as it was."""
    names = sorted(p.name for p in staged.iterdir())
    targets = [path_inside(output_dir, name) for name in names]
    _check_output_dir(output_dir, names, options.device_package_prefix, tail)
    if not output_dir.exists():
        staged.rename(output_dir)
        return True
    moved: list[str] = []
    try:
        for name, target in zip(names, targets, strict=True):
            (staged / name).rename(target)
            moved.append(name)
    except BaseException:
        for name in moved:
            with contextlib.suppress(OSError):
                (output_dir / name).rename(staged / name)
        raise
    return False


def _relocate(result: SplitResult, staged: Path, output_dir: Path) -> None:
    """Point the result's paths at their final place."""
    wheels = [result.host, *([result.variant] if result.variant else [])]
    wheels += [d.wheel for d in result.devices]
    for wheel in wheels:
        wheel.path = output_dir / wheel.path.relative_to(staged)


@dataclass
class _BundleInputs:
    """What ``_bundles`` reads of the plan. Its warnings about unknown keys are already in the
    frozen plan (``layout.plan_layout``) and were printed; its copies go to a scratch list."""

    source_path: Path
    db_files: Sequence[DbFile]
    warnings: list[str] = field(default_factory=list)


def _split(
    source: WheelSource,
    scan: WheelScan,
    options: SplitOptions,
    stage: Path,
    tmp_dir: Path | None,
    host_name: str,
    log: TextIO,
    workers: int | None = None,
) -> SplitResult:
    work = Path(tempfile.mkdtemp(prefix="wheel-size-split-", dir=tmp_dir or stage))
    out = stage / "out"
    out.mkdir()
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    records = _record_jobs(scan) if options.record_check == "all" else []
    options, count = _workers(options, scan, records, workers)
    try:
        with _pool(count) as pool:
            try:  # these waves write only into the work directory
                jobs = library_jobs(source, scan, options, work, apply=True)
                planned, libraries, found = _library_wave(
                    pool, scan, jobs, "shared libraries and RECORD", log, records
                )
                plan = freeze_plan(scan, planned, options, host_name)
                if not options.trust_record:
                    plan = _record_lies(plan, planned, found)
                _announce(plan, options, log)
                timings["libraries"], clock = time.perf_counter() - clock, time.perf_counter()
                kpacks = _build_kpacks(plan, options, libraries)
                timings["kpacks"], clock = time.perf_counter() - clock, time.perf_counter()
            except OSError as exc:
                if not is_write_failure(exc):
                    raise
                raise output_error(tmp_dir if tmp_dir is not None else work, exc) from None
            bundles, kpacks_by_key, dbs_by_key = _bundles(
                _BundleInputs(plan.source_path, plan.db_files),
                options,
                kpacks,
                io.StringIO(),
            )
            original_metadata = source.read(f"{plan.dist_info}/METADATA")
            wheel_jobs = _wheel_jobs(
                source,
                plan,
                options,
                bundles,
                kpacks_by_key,
                dbs_by_key,
                libraries,
                out,
                original_metadata,
            )
            with Progress("split: writing wheels", len(wheel_jobs), stream=log) as progress:
                timed = _run(
                    pool,
                    Timed(write_output_wheel),
                    wheel_jobs,
                    progress,
                    lambda j: 1,
                    order=_written_bytes,
                )
            timings["wheels"] = time.perf_counter() - clock
            written = [wheel for wheel, _ in timed]
            seconds = [took for _, took in timed]
            timings["host_wheel"] = seconds.pop(0)
            if options.variant_label:
                timings["variant_wheel"] = seconds.pop(0)
            timings["device_wheels"] = sum(seconds)
    finally:
        if tmp_dir is not None:
            shutil.rmtree(work, ignore_errors=True)
    host, rest = written[0], written[1:]
    variant = rest.pop(0) if options.variant_label else None
    devices = [
        DeviceOutput(b, kpacks_by_key.get(b.key, []), dbs_by_key.get(b.key, []), w)
        for b, w in zip(bundles, rest, strict=True)
    ]
    input_size = (
        plan.source_path.stat().st_size
        if plan.source_path.is_file()
        else sum(m.size for m in plan.members)
    )
    warnings = list(plan.warnings)
    grown = growth_warning(plan, libraries, host, input_size)
    if grown is not None:
        warnings.append(grown)
        print(f"wheel-size: warning: {grown}", file=log)
    return SplitResult(
        plan,
        input_size,
        host,
        variant,
        devices,
        libraries,
        warnings,
        timings=timings,
        options=options,
        workers=max(1, count),
        input_metadata=original_metadata,
    )


def growth_warning(
    plan: SplitPlan, libraries: Sequence[LibraryResult], host: WrittenWheel, input_size: int
) -> str | None:
    """ "host wheel larger than the input", naming the rewritten members whose deflated bytes
    grew (largest growth first), or None when the host is no larger. Every rewritten member
    is already no larger than its input member where it was spliced from it
    (``split.reuse``), and otherwise no larger than zlib at ``--deflate-level`` would make
    it; what remains is the input's own compression being better than that (a higher
    level, or another tool)."""
    if not plan.source_path.is_file() or host.size <= input_size:
        return None
    grown: list[tuple[int, str]] = []
    for lib in libraries:
        member = plan.candidates[lib.number]
        if not lib.fat or lib.stripped_raw is None or member.raw is None:
            continue
        before, after = member.raw.compressed_size, lib.stripped_raw.compressed_size
        if after > before:
            grown.append(
                (after - before, f"{member.name} ({format_size(before)} -> {format_size(after)})")
            )
    grown.sort(key=lambda item: (-item[0], item[1]))
    where = ", ".join(text for _, text in grown[:5]) + (
        f" and {len(grown) - 5} more" if len(grown) > 5 else ""
    )
    return (
        f"{plan.source_path}: host wheel larger than the input ({format_size(host.size)} > "
        f"{format_size(input_size)}): "
        + (f"rewritten members that grew: {where}" if grown else "its added metadata")
    )


_RECORD_BATCH = 64 << 20  # compressed bytes per RECORD-check job


def _record_jobs(scan: WheelScan) -> list[RecordCheck]:
    """RECORD checks of the members the library wave does not inflate anyway (everything but
    the library candidates, whose hashes their jobs compute), in batches largest first."""
    candidates = {m.name for m in scan.candidates}
    batches: list[list[tuple[str, RawData, str]]] = [[]]
    held = 0
    for member in sorted(scan.members, key=lambda m: (-m.compressed_size, m.name)):
        claimed = scan.record_hashes.get(member.name)
        if member.raw is None or claimed is None or member.name in candidates:
            continue
        if held >= _RECORD_BATCH:
            batches.append([])
            held = 0
        batches[-1].append((member.name, member.raw, claimed))
        held += member.compressed_size
    return [RecordCheck(tuple(batch)) for batch in batches if batch]


def _record_lies(
    plan: SplitPlan, planned: Sequence[LibraryPlan], found: Sequence[list[tuple[str, str]]]
) -> SplitPlan:
    """The plan with the RECORD hash of every member copied verbatim checked: a line that
    lies is one warning naming the wheel and member, and the outputs' RECORD carries the
    contents' real hash. ``found`` is what the RECORD-check jobs found; the libraries left
    unchanged are checked against the hash their job computed while inflating them."""
    lies = dict(pair for batch in found for pair in batch)
    for lib in planned:
        name = plan.candidates[lib.number].name
        claimed = plan.record_hashes.get(name)
        if not lib.fat and lib.content_hash and claimed and lib.content_hash != claimed:
            lies[name] = lib.content_hash
    if not lies:
        return plan
    names = sorted(lies)
    message = (
        f"{plan.source_path}: RECORD lies about {names[0]}"
        + (f" and {len(names) - 1} more member(s)" if len(names) > 1 else "")
        + f" (it says {plan.record_hashes[names[0]]}, the contents hash to {lies[names[0]]}); "
        "the outputs' RECORD carries the contents' hashes"
    )
    hashes = {**plan.record_hashes, **lies}
    return dataclasses.replace(plan, record_hashes=hashes, warnings=(*plan.warnings, message))


def _written_bytes(job: WheelJob) -> int:
    """About how many bytes writing ``job`` moves (what a member's copy or stream writes):
    the wheel wave starts the largest first, so no worker is left with a large wheel while
    the other has nothing to do."""
    return sum(e.raw.compressed_size if e.raw is not None else e.size for e in job.entries)


def _library_wave(
    pool: Executor,
    scan: WheelScan,
    jobs: Sequence[LibraryJob],
    what: str,
    log: TextIO,
    records: Sequence[RecordCheck] = (),
) -> tuple[list[LibraryPlan], list[LibraryResult], list[list[tuple[str, str]]]]:
    """Every candidate's plan (candidate order) and, when the jobs apply, the fat libraries'
    results; ``seconds`` of each is its job's worker time. The RECORD checks ``records`` are
    queued behind the library jobs (largest first), so they fill the workers the last
    libraries leave idle; their findings come third."""
    total = sum(m.size for m in scan.candidates)
    with Progress(f"split: {what}", total, unit="bytes", stream=log) as progress:
        futures: list[Future[list[tuple[str, str]]]] = []
        timed = _run(
            pool,
            Timed(library_job),
            jobs,
            progress,
            lambda j: scan.candidates[j.number].size,
            order=lambda j: scan.candidates[j.number].size,
            then=lambda: futures.extend(pool.submit(check_record, r) for r in records),
        )
        found = [future.result() for future in futures]
    plans = [dataclasses.replace(plan, seconds=took) for (plan, _), took in timed]
    results = []
    for (_, result), took in timed:
        if result is not None:
            result.seconds = took
            results.append(result)
    return plans, results, found


def _build_kpacks(
    plan: SplitPlan, options: SplitOptions, libraries: list[LibraryResult]
) -> list[KpackResult]:
    """Every archive, laid out from the staged kernels (nothing is written here: each streams
    into its device wheel). One archive per processor, laid out for rocm-kpack's loader
    rules (every agent ISA finds a compatible kernel for every library; docs/split.md,
    "Archive layout")."""
    objects: dict[str, dict[str, CodeObjectRef]] = defaultdict(dict)
    for lib in sorted((r for r in libraries if r.fat), key=lambda r: r.rel):
        for ref in sorted(lib.code_objects, key=lambda c: c.index):
            where = f"{plan.source_path}:{plan.overlay + '/' if plan.overlay else ''}{lib.rel}"
            arch = check_target_id(normalize_arch(ref.target), where)  # a name-safe target
            objects[f"{lib.rel}#{ref.index}"].setdefault(arch, ref)
    return [
        kpack_result(
            arch=archive.name,
            group=plan.identity.group,
            compression=options.compression,
            items=[(key, objects[key][target], arches) for key, target, arches in archive.entries],
            arches=archive.arches,
        )
        for archive in plan_archives(
            {k: list(v) for k, v in sorted(objects.items())}, layout=options.kpack_layout
        )
    ]


def _bundles(
    plan: _BundleInputs, options: SplitOptions, kpacks: list[KpackResult], log: TextIO
) -> tuple[list[DeviceBundle], dict[str, list[KpackResult]], dict[str, list[DbFile]]]:
    table = hierarchy()
    kpacks_by_key: dict[str, list[KpackResult]] = defaultdict(list)
    for kpack in kpacks:
        kpacks_by_key[table.bundle_key(kpack.arch)].append(kpack)
    dbs_by_key: dict[str, list[DbFile]] = defaultdict(list)
    for db in plan.db_files:
        dbs_by_key[db.key].append(db)
    keys = sorted(set(kpacks_by_key) | set(dbs_by_key), key=table.sort_key)
    for key in keys:
        if not table.is_known(key) and key in kpacks_by_key:
            message = (
                f"{plan.source_path}: code objects for {key!r}, an architecture not in the "
                "pinned hierarchy; routed to its own device wheel"
            )
            plan.warnings.append(message)
            print(f"wheel-size: warning: {message}", file=log)
    for key in keys:
        check_bundle_key(key, str(plan.source_path))
    bundles = [
        DeviceBundle(key, table.level(key), device_dist_name(options.device_package_prefix, key))
        for key in keys
    ]
    return bundles, dict(kpacks_by_key), dict(dbs_by_key)


def _member_entry(
    source: WheelSource, plan: SplitPlan, member: Member, path: str | None = None
) -> WheelEntry:
    if member.raw is not None:
        return WheelEntry(
            path or member.name,
            raw=member.raw,
            record_hash=plan.record_hashes.get(member.name),
            mode=member.mode,
        )
    return WheelEntry(path or member.name, file=source.path / member.name, mode=member.mode)


def _wheel_jobs(
    source: WheelSource,
    plan: SplitPlan,
    options: SplitOptions,
    bundles: list[DeviceBundle],
    kpacks_by_key: dict[str, list[KpackResult]],
    dbs_by_key: dict[str, list[DbFile]],
    libraries: list[LibraryResult],
    out: Path,
    original_metadata: bytes,
) -> list[WheelJob]:
    table = hierarchy()
    identity = plan.identity
    directory = options.output_format == "directory"
    stripped = {plan.candidates[r.number].name: r for r in libraries if r.fat}
    moved = {db.member.name for db in plan.db_files}
    metadata_name = f"{plan.dist_info}/METADATA"
    host_entries: list[WheelEntry] = []
    for member in plan.members:
        name = member.name
        if name in moved or name == metadata_name or regenerated(name, plan.dist_info):
            continue
        lib = stripped.get(name)
        if lib is None:
            host_entries.append(_member_entry(source, plan, member))
        elif lib.stripped_raw is not None:
            host_entries.append(
                WheelEntry(
                    name, raw=lib.stripped_raw, record_hash=lib.stripped_hash, mode=member.mode
                )
            )
        else:
            assert lib.stripped is not None
            host_entries.append(WheelEntry(name, file=lib.stripped, mode=member.mode))

    def dest(filename: str) -> Path:
        return path_inside(out, filename[:-4] if directory else filename)

    def job(filename: str, dist_info: str, entries: list[WheelEntry]) -> WheelJob:
        return WheelJob(
            dest(filename),
            dist_info,
            tuple(entries),
            directory,
            options.deflate_level,
            threads=block_threads(options.jobs),
        )

    chains = install_chains(
        {b.key: b.level for b in bundles},
        (k.arch for ks in kpacks_by_key.values() for k in ks),
        table,
    )
    meta = host_metadata(
        original_metadata,
        identity,
        bundles,
        table,
        naming=options.extra_naming,
        install_all=options.host_installs == "all",
        chains=chains,
    )
    host_entries.append(WheelEntry(f"{plan.dist_info}/WHEEL", data=plan.host_wheel))
    jobs = [
        job(plan.host_name, plan.dist_info, [*host_entries, WheelEntry(metadata_name, data=meta)])
    ]
    if plan.variant_name:
        variant_meta = host_metadata(
            original_metadata,
            identity,
            bundles,
            table,
            naming=options.extra_naming,
            variant=True,
            chains=chains,
        )
        targets = list(chains)
        jobs.append(
            job(
                plan.variant_name,
                plan.dist_info,
                [
                    *host_entries,
                    WheelEntry(metadata_name, data=variant_meta),
                    WheelEntry(
                        f"{plan.dist_info}/variant.json",
                        data=variant_json(options.variant_label or "", targets),
                    ),
                ],
            )
        )
    emitted = {b.key: b for b in bundles}
    prefix = f"{plan.overlay}/" if plan.overlay else ""
    holders: dict[Path, set[str]] = defaultdict(set)  # staged file -> bundles reading it
    for key, kpacks in kpacks_by_key.items():
        for kpack in kpacks:
            for blob in kpack.stream.blobs:
                holders[blob.path].add(key)
    for bundle in bundles:
        escaped = wheel_escape(bundle.dist)
        dist_info = f"{escaped}-{identity.version}.dist-info"
        entries = [
            kpack_entry(f"{prefix}.kpack/{k.name}", k, options.compression, options.deflate_level)
            for k in kpacks_by_key.get(bundle.key, [])
        ]
        entries += [_member_entry(source, plan, db.member) for db in dbs_by_key.get(bundle.key, [])]
        entries += [
            WheelEntry(
                f"{dist_info}/METADATA",
                data=device_metadata(
                    bundle, identity, emitted, table, options.device_requires_dist
                ),
            ),
            WheelEntry(f"{dist_info}/WHEEL", data=device_wheel_file(identity)),
            WheelEntry(
                f"{dist_info}/top_level.txt",
                data=(plan.overlay.split("/")[0] + "\n").encode() if plan.overlay else b"",
            ),
        ]
        filename = wheel_filename(bundle.dist, identity.version, identity.tag_string)
        mine = tuple(sorted(p for p, keys in holders.items() if keys == {bundle.key}))
        jobs.append(dataclasses.replace(job(filename, dist_info, entries), release=mine))
    return jobs
