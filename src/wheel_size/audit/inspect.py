"""One wheel, classified: name parts, tags, local label, native files, RECORD check.

Every member is streamed once: hashed (to check RECORD and to key identical contents) and
sniffed for native magic; native members are copied to a temporary file on the way so their
ELF headers can be read afterwards. Nothing is installed or held whole in memory.

Inflating and hashing is nearly all of an audit's time (flashinfer-cubin: 1.8 GB in 15,558
members), and both run outside the GIL, so members are streamed by worker threads, a few
ahead of the loop that reads their results in member order (the report is the same whatever
the number of workers); the wheel file's own hash runs beside them.
"""

from __future__ import annotations

import contextlib
import email.parser
import hashlib
import os
import re
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.tags import parse_tag

from wheel_size.audit.arch_coverage import arch_order
from wheel_size.audit.binary_facts import BinaryFacts, elf_facts, macho_facts, pe_facts
from wheel_size.audit.document import NativeRow, WheelRow
from wheel_size.audit.gpu import (
    COPIED_GPU_KINDS,
    GpuFile,
    inspect_gpu_file,
    kpack_reference,
    sniff_gpu,
)
from wheel_size.audit.native import ArchScanner, NativeInfo, inspect_elf, native_format
from wheel_size.audit.stable_abi import (
    abi3_baseline,
    newer_imports,
    non_stable_imports,
    python_imports,
)
from wheel_size.cpus import usable_cpus
from wheel_size.errors import InvalidWheel, WheelSizeError
from wheel_size.native.debuginfo import StripSavings, strip_savings
from wheel_size.native.pe import read_pe_facts
from wheel_size.oneline import one_line
from wheel_size.variants import other_accelerator, variant_key
from wheel_size.wheel.archive import DirectorySource, ZipSource, open_regular, open_source
from wheel_size.wheel.filename import WheelName, parse_wheel_name
from wheel_size.wheel.record import StreamingHash

__all__ = ["NativeFile", "WheelInfo", "accelerator", "glibc_floor", "inspect_wheel"]

_CHUNK = 1 << 20
# Batches streamed ahead of the loop per worker: enough to keep the workers busy while the loop
# reads a result. A batch is about 4 MB of members (or 256 small ones): what each member keeps
# for the loop is at most its first MB (``head``), so a few batches stay bounded in memory.
_AHEAD_PER_WORKER = 2
_BATCH_BYTES = 4 << 20
_BATCH_MEMBERS = 256
_EXTENSION = re.compile(r"(\.abi3\.so|\.cpython-\d+[a-z]*-[^/]*\.so|\.pyd|\.so)$")
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_META_DIR = re.compile(r"^([^/]+?)-([^/-]+)\.(dist-info|data)(/|$)")


def accelerator(label: str | None) -> str | None:
    """The accelerator a local or variant label names, as its wheels' local version label
    spells it (``cu128`` and ``cuda12_8`` -> ``cu128``, ``rocm6.4``, ``xpu``), else None.

    Read through :func:`wheel_size.variants.variant_key`, the one reading of variant names
    (issue 28 item 5): a regex of its own read ``cuda12_8`` as ``cuda12``."""
    if not label:
        return None
    key = variant_key(label)
    if key.kind in ("cuda", "rocm", "xpu"):
        return key.local_tag
    return other_accelerator(label)


def glibc_floor(platform_tags: list[str]) -> str | None:
    """Lowest glibc the platform tags promise to run on (PEP 600 and the legacy aliases)."""
    floors: list[tuple[int, int]] = []
    for tag in platform_tags:
        match = re.match(r"^manylinux_(\d+)_(\d+)_", tag)
        if match:
            floors.append((int(match.group(1)), int(match.group(2))))
            continue
        for alias, version in _LEGACY_MANYLINUX.items():
            if tag.startswith(alias + "_"):
                floors.append(version)
    if not floors:
        return None
    low = min(floors)
    return f"{low[0]}.{low[1]}"


@dataclass
class NativeFile:
    path: str
    format: str
    kind: str  # extension or library
    size: int
    needed: list[str] = field(default_factory=list)
    gpu_archs: list[str] = field(default_factory=list)
    glibc_required: str | None = None
    non_stable_symbols: list[str] = field(default_factory=list)
    # abi3 wheels: imported C-API symbols, and the stable-ABI ones newer than the wheel's tag
    python_api_imports: int = 0
    newer_symbols: dict[str, str] = field(default_factory=dict)  # symbol -> "3.10"
    facts: BinaryFacts = field(default_factory=BinaryFacts)
    kpack_kernel: str | None = None  # a split host library: its GPU code is in .kpack files
    strip: StripSavings | None = None  # ELF: what strip would save (native/debuginfo.py)

    @property
    def stable_abi_minimum(self) -> str | None:
        """The oldest Python the stable-ABI symbols it imports run on, when that is newer than
        the wheel's abi3 tag (else None)."""
        if not self.newer_symbols:
            return None
        return max(self.newer_symbols.values(), key=lambda v: tuple(map(int, v.split("."))))

    def to_json(self) -> NativeRow:
        return {
            "path": self.path,
            "format": self.format,
            "kind": self.kind,
            "size": self.size,
            "needed": self.needed,
            "gpu_archs": self.gpu_archs,
            "glibc_required": self.glibc_required,
            "non_stable_symbols": self.non_stable_symbols,
            "python_api_imports": self.python_api_imports,
            "stable_abi_minimum": self.stable_abi_minimum,
            "newer_stable_abi_symbols": self.newer_symbols,
            "machines": self.facts.machines,
            "macos_minimum": {
                cpu: ".".join(map(str, v)) for cpu, v in sorted(self.facts.macos_minimum.items())
            },
            "kpack_reference": self.kpack_kernel,
        }


@dataclass
class WheelInfo:
    """What one wheel is. ``name`` is None when the file name does not parse."""

    path: str
    filename: str
    sha256: str
    size: int
    name: WheelName | None
    root_is_purelib: bool | None = None
    wheel_tags: list[str] = field(default_factory=list)
    native: list[NativeFile] = field(default_factory=list)
    gpu_files: list[GpuFile] = field(default_factory=list)
    content_key: str = ""
    record_problems: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    installed_size: int = 0

    @property
    def local_label(self) -> str | None:
        return self.name.local_label if self.name else None

    @property
    def variant_label(self) -> str | None:
        return self.name.variant_label if self.name else None

    @property
    def accelerator(self) -> str | None:
        return accelerator(self.local_label) or accelerator(self.variant_label)

    @property
    def pure(self) -> bool:
        tags = self.name.tags if self.name else frozenset()
        return bool(tags) and all(t.abi == "none" and t.platform == "any" for t in tags)

    @property
    def abi3(self) -> bool:
        tags = self.name.tags if self.name else frozenset()
        return any(t.abi == "abi3" for t in tags)

    @property
    def abi3_baseline(self) -> tuple[int, int] | None:
        """The Python version an abi3 wheel's tags promise (``cp39-abi3`` -> (3, 9)); None for
        a wheel that is not abi3 (``cp32`` is assumed for an abi3 tag without a version)."""
        tags = self.name.tags if self.name else frozenset()
        interpreters = [t.interpreter for t in tags if t.abi == "abi3"]
        if not interpreters:
            return None
        return abi3_baseline(interpreters) or (3, 2)

    @property
    def glibc_floor(self) -> str | None:
        return glibc_floor(self.name.platform_tags) if self.name else None

    def to_json(self) -> WheelRow:
        name = self.name
        return {
            "path": self.path,
            "filename": self.filename,
            "distribution": name.distribution if name else None,
            "version": str(name.version) if name else None,
            "public_version": name.version.public if name else None,
            "local_label": self.local_label,
            "variant_label": self.variant_label,
            "accelerator": self.accelerator,
            "build_tag": "".join(str(p) for p in name.build) if name and name.build else None,
            "python_tags": name.python_tags if name else [],
            "abi_tags": name.abi_tags if name else [],
            "platform_tags": name.platform_tags if name else [],
            "wheel_tags": self.wheel_tags,
            "root_is_purelib": self.root_is_purelib,
            "pure": self.pure,
            "abi3": self.abi3,
            "glibc_floor": self.glibc_floor,
            "size": self.size,
            "installed_size": self.installed_size,
            "sha256": self.sha256,
            "native_extensions": [n.to_json() for n in self.native],
            "gpu_files": [g.to_json() for g in self.gpu_files],
            "problems": self.problems + self.record_problems,
        }


def _file_sha256(path: Path) -> str:
    """Hash the file; opened through :func:`open_regular`, so a FIFO is refused, not waited on."""
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _normalise_member(path: str, local: str | None) -> str:
    """Strip the local label from the dist-info / data directory name."""
    if not local:
        return path

    def strip(match: re.Match[str]) -> str:
        version = match.group(2).split("+", 1)[0]
        return f"{match.group(1)}-{version}.{match.group(3)}{match.group(4)}"

    return _META_DIR.sub(strip, path, count=1)


def _metadata_hash(text: bytes, local: str | None) -> str:
    """METADATA hashed with ``+label`` dropped from its Version line."""
    if local:
        text = re.sub(rb"(?m)^(Version:\s*[^+\s]+)\+\S+", rb"\1", text)
    return "sha256:" + hashlib.sha256(text).hexdigest()


def _native_file(
    name: str, fmt: str, size: int, tmp: Path | None, label: str,
    abi3: tuple[int, int] | None, scanners: tuple[ArchScanner, ...], problems: list[str],
) -> NativeFile:  # fmt: skip
    kind = (
        "extension"
        if _EXTENSION.search(name) and not name.split("/")[-1].startswith("lib")
        else "library"
    )
    item = NativeFile(name, fmt, kind, size)
    if tmp is None:
        return item
    source = f"{label}:{name}"
    if fmt != "elf":
        item.facts = (macho_facts if fmt == "mach-o" else pe_facts)(tmp, source)
        problems.extend(item.facts.problems)
        if fmt == "pe":  # a Windows DLL's .hip_fat / .nv_fatb device code, as split reads it
            pe = read_pe_facts(tmp, source=source)
            item.gpu_archs = sorted(pe.gpu_archs, key=arch_order)
            if not item.facts.problems:  # an unreadable image is reported once
                problems.extend(pe.gpu_problems)
        return item
    info: NativeInfo = inspect_elf(tmp, source=source, scanners=scanners)
    item.facts = elf_facts(tmp, source)
    try:
        item.kpack_kernel = kpack_reference(tmp, source)
    except WheelSizeError as exc:
        item.facts.problems.append(str(exc))
    if not info.problems:  # an unreadable ELF is reported once
        problems.extend(item.facts.problems)
    problems.extend(info.problems)
    item.needed = sorted(info.needed)
    item.strip = strip_savings(info.sections) if info.sections else None
    item.gpu_archs = sorted(info.gpu_archs, key=arch_order)
    if info.glibc_required:
        item.glibc_required = ".".join(map(str, info.glibc_required))
    if abi3 is not None:
        # abi3audit's checks, on every ELF file that imports the C-API (an extension by what
        # it links, not by its name): symbols outside the stable ABI, and stable ones newer
        # than the Python the wheel's tag promises.
        item.python_api_imports = len(python_imports(info.imports, info.defined))
        item.non_stable_symbols = non_stable_imports(info.imports, info.defined)
        newer = newer_imports(info.imports, info.defined, abi3)
        item.newer_symbols = {k: f"{v[0]}.{v[1]}" for k, v in newer.items()}
    return item


def _wheel_tags(lines: list[str], label: str, wheel_name: str) -> list[str]:
    """Every tag of WHEEL's ``Tag:`` lines; a line that is no tag refuses the wheel in one
    line naming it (packaging's InvalidTag would end the audit as an internal error)."""
    tags: list[str] = []
    for line in lines:
        try:
            tags += [str(t) for t in parse_tag(str(line).strip())]
        except ValueError:  # packaging >= 26 raises InvalidTag, a ValueError; older ones ValueError
            raise InvalidWheel(
                f"{label}: {wheel_name}: Tag {one_line(line, 120)!r} is not a wheel tag "
                "(python-abi-platform)"
            ) from None
    return tags


def inspect_wheel(
    path: Path,
    label: str | None = None,
    *,
    filename: str | None = None,
    trust_record: bool = False,
    scanners: tuple[ArchScanner, ...] = (),
    jobs: int | None = None,
    source: ZipSource | DirectorySource | None = None,
) -> WheelInfo:
    """Classify one wheel file. Raises :class:`InvalidWheel` if it cannot be read at all.

    ``jobs``: threads that inflate and hash members (default: the usable CPUs, at most 2).
    ``source``: ``path`` already opened (and checked), read from and closed here."""
    label = label or str(path)
    filename = filename or path.name
    workers = max(1, min(2, usable_cpus())) if jobs is None else max(1, jobs)
    with contextlib.ExitStack() as stack:
        if source is not None:
            stack.callback(source.close)  # closed whatever happens
        if not path.is_file():
            _file_sha256(path)  # refuses a directory or a FIFO in one line, before any work
        if workers == 1:
            info = _inspect(path, label, filename, trust_record, scanners, None, 1, source)
            info.sha256 = _file_sha256(path)
            return info
        with ThreadPoolExecutor(workers, thread_name_prefix="wheel-size-audit") as pool:
            wheel_hash = pool.submit(_file_sha256, path)
            try:
                info = _inspect(
                    path, label, filename, trust_record, scanners, pool, workers, source
                )
            finally:
                sha256 = wheel_hash.result()
        info.sha256 = sha256
        return info


def _inspect(
    path: Path,
    label: str,
    filename: str,
    trust_record: bool,
    scanners: tuple[ArchScanner, ...],
    pool: ThreadPoolExecutor | None,
    workers: int,
    opened: ZipSource | DirectorySource | None,
) -> WheelInfo:
    info = WheelInfo(label, filename, "", path.stat().st_size, None)
    try:
        info.name = parse_wheel_name(filename)
    except WheelSizeError as exc:
        info.problems.append(str(exc))
    local = info.local_label
    with (
        tempfile.TemporaryDirectory(prefix="wheel-size-audit-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        source = opened if opened is not None else open_source(path)
        stack.callback(source.close)
        dist_info = source.dist_info()
        try:
            record = source.record()
        except InvalidWheel as exc:
            info.record_problems.append(str(exc))
            record = {}
        if not record:
            info.record_problems.append(f"{label}: no RECORD in {dist_info}")
        wheel_name = f"{dist_info}/WHEEL"
        if any(m.name == wheel_name for m in source.members):
            meta = email.parser.BytesParser().parsebytes(source.read(wheel_name), headersonly=True)
            info.wheel_tags = _wheel_tags(meta.get_all("Tag") or [], label, wheel_name)
            purelib = meta.get("Root-Is-Purelib")
            info.root_is_purelib = None if purelib is None else purelib.strip().lower() == "true"
        else:
            info.problems.append(f"{label}: no {wheel_name}")
        key_parts: list[str] = []
        seen: set[str] = set()
        streamed = _streamed(
            source.members,
            lambda name: _stream_member(source, name, Path(tmp)),
            pool,
            workers * _AHEAD_PER_WORKER,
        )
        stack.enter_context(contextlib.closing(streamed))  # no worker left writing to tmp
        for member, (fmt, gpu, digest, tmp_path, head) in streamed:
            seen.add(member.name)
            info.installed_size += member.size
            rec = record.get(member.name)
            hashed = digest.value
            if rec is None and member.name != f"{dist_info}/RECORD" and record:
                info.record_problems.append(f"{label}: {member.name} is not listed in RECORD")
            elif rec is not None and rec.hash is not None:
                where = f"{label}: {member.name}: RECORD says"
                if not trust_record and rec.hash != hashed:
                    info.record_problems.append(
                        f"{where} {rec.hash}, the contents hash to {hashed}"
                    )
                if rec.size is not None and rec.size != member.size:
                    info.record_problems.append(
                        f"{where} {rec.size} bytes, the wheel holds {member.size}"
                    )
            normalised = _normalise_member(member.name, local)
            if member.name.endswith((".dist-info/RECORD", ".dist-info/WHEEL")):
                pass
            elif member.name == f"{dist_info}/METADATA":
                key_parts.append(f"{normalised},{_metadata_hash(source.read(member.name), local)}")
            else:
                value = rec.hash if trust_record and rec is not None and rec.hash else hashed
                key_parts.append(f"{normalised},{value}")
            if gpu is not None:
                where = f"{label}:{member.name}"
                gpu_file, problem = inspect_gpu_file(
                    tmp_path, member.name, gpu, member.size, where, head
                )
                info.gpu_files.append(gpu_file)
                if problem:
                    info.problems.append(problem)
                if tmp_path is not None:
                    tmp_path.unlink()
            elif fmt is not None:
                info.native.append(
                    _native_file(
                        member.name,
                        fmt,
                        member.size,
                        tmp_path,
                        label,
                        info.abi3_baseline,
                        scanners,
                        info.problems,
                    )
                )
                if tmp_path is not None:
                    tmp_path.unlink()
        for missing in sorted(set(record) - seen):
            info.record_problems.append(
                f"{label}: RECORD lists {missing}, which is not in the wheel"
            )
    info.content_key = hashlib.sha256("\n".join(sorted(key_parts)).encode()).hexdigest()
    return info


_Streamed = tuple[str | None, str | None, StreamingHash, Path | None, bytes]


def _batches(members: Sequence[Any]) -> Iterator[list[Any]]:
    """Consecutive members in groups of about ``_BATCH_BYTES`` (at most ``_BATCH_MEMBERS``):
    handing a thread one member at a time costs more than streaming a small one."""
    batch: list[Any] = []
    size = 0
    for member in members:
        batch.append(member)
        size += member.size
        if size >= _BATCH_BYTES or len(batch) >= _BATCH_MEMBERS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _streamed(
    members: Sequence[Any],
    stream: Callable[[str], _Streamed],
    pool: ThreadPoolExecutor | None,
    ahead: int,
) -> Generator[tuple[Any, _Streamed], None, None]:
    """Each member with what :func:`_stream_member` found, in member order, while up to
    ``ahead`` batches of members are streamed by the pool's threads (without a pool, each
    in its turn). A member that cannot be read raises here, in its turn; on the way out
    nothing is left running (the temporary copies live in a directory about to be
    removed)."""
    if pool is None:
        for member in members:
            yield member, stream(member.name)
        return

    def run(batch: list[Any]) -> list[_Streamed]:
        return [stream(member.name) for member in batch]

    pending: deque[tuple[list[Any], Future[list[_Streamed]]]] = deque()
    todo = _batches(members)
    try:
        for batch in todo:
            pending.append((batch, pool.submit(run, batch)))
            if len(pending) >= ahead:
                break
        while pending:
            batch, future = pending.popleft()
            results = future.result()
            for more in todo:
                pending.append((more, pool.submit(run, more)))
                break
            yield from zip(batch, results, strict=True)
    finally:
        for _, future in pending:
            future.cancel()
        wait([future for _, future in pending])  # a running one finishes; errors are dropped


def _stream_member(
    source: Any, name: str, tmp_dir: Path
) -> tuple[str | None, str | None, StreamingHash, Path | None, bytes]:
    """Hash one member; if it is native host code or a GPU archive, also copy it to a
    temporary file for inspection (a standalone code object is read from its header).
    Returns (native format, GPU kind, digest, copy, its first MB)."""
    digest = StreamingHash()
    tmp_path: Path | None = None
    with source.open(name) as stream:
        head = stream.read(_CHUNK)
        fmt = native_format(head)
        gpu = sniff_gpu(name, head)
        out = None
        if (fmt is not None and gpu is None) or gpu in COPIED_GPU_KINDS:
            fd, tmp_name = tempfile.mkstemp(dir=tmp_dir)
            tmp_path = Path(tmp_name)
            out = os.fdopen(fd, "wb")
        try:
            chunk = head
            while chunk:
                digest.update(chunk)
                if out is not None:
                    out.write(chunk)
                chunk = stream.read(_CHUNK)
        finally:
            if out is not None:
                out.close()
    return fmt, gpu, digest, tmp_path, head
