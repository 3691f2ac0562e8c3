"""A line-by-line model of rocm-kpack's runtime loader, ``kpack_load_code_object``
(ROCm/rocm-kpack ``runtime/src/loader.cpp`` at e348328, ``isa_target_match.h``,
``toc_parser.cpp``, ``kpack.cpp``), for tests of the archive layout a split writes.

Rules modelled exactly:

1. lookup key = ``kernel_name + "#" + co_index``;
2. archive paths: ``ROCM_KPACK_PATH`` replaces everything; else ``ROCM_KPACK_PATH_PREFIX``
   entries first, then each embedded search path resolved against the directory of the
   binary (``weakly_canonical``); a path holding ``@GFXARCH@`` is expanded, for every ISA
   of ``arch_list`` in order, to every candidate of that ISA (prefix
   ``amdgcn-amd-amdhsa--`` stripped; the processor with each subset of the features,
   mask counted down, feature *i* = bit ``n-1-i``);
3. every path that is an existing regular file is opened (once per canonical path); its
   architecture set is its TOC's ``gfx_arches``; no archive at all: ARCHIVE_NOT_FOUND;
4. per ISA of ``arch_list``: walk its candidates; the first (candidate, archive in path
   order) whose architecture set holds the candidate wins; no archive for any candidate:
   next ISA;
5. with a winner: ``toc[key][candidate]``, decompressed; a missing key or arch is
   KERNEL_NOT_FOUND, returned at once (no other candidate or ISA is tried);
6. no ISA matched any archive: ARCH_NOT_FOUND.

The TOC is read with msgpack directly, as leniently as ``toc_parser.cpp`` (not with
wheel_size's validating reader), so the model does not share code with what it checks.
The CLR side is modelled as ``arch_list = [agent ISA, its generic ISA]`` (the generic after
the agent ISA, as the rocm-kpack CI log in commit e348328 shows).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import msgpack
import zstandard

from wheel_size.rocm.target_id import GENERIC_COVERS, compatible, generic_of, parse_target_id

PREFIX = "amdgcn-amd-amdhsa--"
PLACEHOLDER = "@GFXARCH@"


def candidates(isa: str) -> list[str]:
    """``for_each_compatible_target``, written out again here (not imported) on purpose."""
    text = isa[len(PREFIX) :] if isa.startswith(PREFIX) and len(isa) > len(PREFIX) else isa
    if not text:
        return []
    processor, *rest = text.split(":")
    features = [f for f in rest if f]
    if not processor:
        return []
    n = len(features)
    out = []
    for mask in range((1 << n) - 1, -1, -1):
        kept = [features[i] for i in range(n) if mask & (1 << (n - 1 - i))]
        out.append(":".join([processor, *kept]))
    return out


def arch_list(agent_isa: str) -> list[str]:
    """What CLR passes for an agent: its full ISA, then its generic ISA (same features)."""
    target = parse_target_id(agent_isa)
    out = [PREFIX + agent_isa]
    generic = generic_of(target.processor)
    if generic is not None:
        out.append(PREFIX + agent_isa.replace(target.processor, generic, 1))
    return out


def served(target: str, agent: str) -> bool:
    """Would the fat binary's code object ``target`` run on ``agent`` (LLVM's
    target-ID rule, a generic ISA standing for each processor it covers)?  The test oracle:
    what the loader must find is what the fat binary served."""
    code, isa = parse_target_id(target), parse_target_id(agent)
    if code.processor in GENERIC_COVERS and isa.processor in GENERIC_COVERS[code.processor]:
        isa = parse_target_id(agent.replace(isa.processor, code.processor, 1))
    return compatible(code, isa)


@dataclass
class _Archive:
    path: str
    arches: set[str]
    toc: dict[str, dict[str, dict[str, object]]]
    scheme: str
    raw: bytes
    blobs: list[dict[str, int]]
    zstd_offset: int


def _open(path: str) -> _Archive | None:
    raw = Path(path).read_bytes()
    if raw[:4] != b"KPAK":
        return None
    (toc_offset,) = struct.unpack_from("<Q", raw, 8)
    toc = msgpack.unpackb(raw[toc_offset:], raw=False)
    return _Archive(
        path,
        {a for a in toc.get("gfx_arches", []) if isinstance(a, str)},
        toc.get("toc", {}),
        toc.get("compression_scheme", ""),
        raw,
        toc.get("blobs", []),
        toc.get("zstd_offset", 0),
    )


def _kernel(archive: _Archive, ordinal: int, size: int) -> bytes:
    if archive.scheme == "none":
        blob = archive.blobs[ordinal]
        return archive.raw[blob["offset"] : blob["offset"] + blob["size"]]
    pos = archive.zstd_offset + 4
    for _ in range(ordinal):
        (length,) = struct.unpack_from("<I", archive.raw, pos)
        pos += 4 + length
    (length,) = struct.unpack_from("<I", archive.raw, pos)
    frame = archive.raw[pos + 4 : pos + 4 + length]
    data: bytes = zstandard.ZstdDecompressor().decompress(frame, max_output_size=size)
    return data


@dataclass(frozen=True)
class LoadResult:
    status: str  # SUCCESS, KERNEL_NOT_FOUND, ARCH_NOT_FOUND, ARCHIVE_NOT_FOUND
    data: bytes | None = None
    archive: str | None = None
    matched_arch: str | None = None


def load_code_object(
    metadata: dict[str, object],
    binary_path: Path,
    co_index: int,
    isas: list[str],
    env: dict[str, str] | None = None,
) -> LoadResult:
    """``kpack_load_code_object`` for the HIPK metadata of a binary at ``binary_path``."""
    env = env or {}
    sep = ":"
    key = f"{metadata['kernel_name']}#{co_index}"
    search = [p for p in metadata["kpack_search_paths"] if isinstance(p, str)]  # type: ignore[attr-defined]
    paths: list[str] = []
    override = [p for p in env.get("ROCM_KPACK_PATH", "").split(sep) if p]
    if override:
        paths = override
    else:
        paths += [p for p in env.get("ROCM_KPACK_PATH_PREFIX", "").split(sep) if p]
        for rel in search:
            resolved = rel if Path(rel).is_absolute() else str((binary_path.parent / rel).resolve())
            if PLACEHOLDER in resolved:
                for isa in isas:
                    for target in candidates(isa):
                        paths.append(resolved.replace(PLACEHOLDER, target, 1))
            else:
                paths.append(resolved)
    cache: dict[str, _Archive] = {}
    valid: list[str] = []
    for path in paths:
        canonical = str(Path(path).resolve())
        if canonical in cache:
            valid.append(canonical)
            continue
        if not Path(path).is_file():
            continue
        archive = _open(path)
        if archive is None:
            continue
        cache[canonical] = archive
        valid.append(canonical)
    if not valid:
        return LoadResult("ARCHIVE_NOT_FOUND")
    for isa in isas:
        found: tuple[_Archive, str] | None = None
        for target in candidates(isa):
            for canonical in valid:
                if target in cache[canonical].arches:
                    found = (cache[canonical], target)
                    break
            if found:
                break
        if found is None:
            continue
        archive, matched = found
        entry = archive.toc.get(key, {}).get(matched)
        if entry is None:
            return LoadResult("KERNEL_NOT_FOUND", archive=archive.path, matched_arch=matched)
        data = _kernel(archive, int(entry["ordinal"]), int(entry["original_size"]))  # type: ignore[call-overload]
        return LoadResult("SUCCESS", data, archive.path, matched)
    return LoadResult("ARCH_NOT_FOUND")
