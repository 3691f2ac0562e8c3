"""Real-wheel regression run: diff, audit and split of pinned PyPI wheels against
independent tools.

The wheels (``pypi_wheels.PINNED``: name, version, file, sha256) are downloaded from PyPI at
run time with pip, into ``--cache``; nothing is committed. Each check compares our answer
with a tool that does not share our code, where that tool is installed (a missing tool is
reported as "skipped", never as a pass):

* **diff** (amd-mori 1.2.3.post1 -> 1.2.4): every ELF section delta of every changed library
  against ``readelf -SW`` of both sides; every ``.hip_fatbin`` target set against
  ``clang-offload-bundler-19 -list`` of the section dumped by ``objcopy``.
* **audit** (every pinned wheel): abi3 verdicts against ``abi3audit --report`` (symbols
  outside the stable ABI; the Python version the stable-ABI symbols need).
* **split** (the HIP-carrying wheels): no member the split wrote (rewritten libraries,
  kpacks, metadata; not the members copied verbatim) larger than zlib level 6 would make it,
  so no output wheel, host or device, larger than its members at zlib 6 (those copied
  verbatim as published),
  the host no larger than the input, every output tagged like the input's file name and
  accepted by ``pip install --dry-run --no-deps --platform <input platform>
  --only-binary=:all:``, ``auditwheel show`` of the host wheel when installed.

    python benchmarks/bench_real_wheels.py [--cache DIR] [--abi3audit PATH] [--auditwheel PATH]

Prints one Markdown table (``docs/real-wheels.md`` keeps the last run's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]

from pypi_wheels import PINNED, Pinned, fetch  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
SPLITS = {  # distribution -> (device prefix, overlay root, extra naming)
    "amd-mori": ("amd-mori-device", "mori/", "plain"),
    "cupy-rocm-7-0": ("cupy-rocm-device", "cupy/", "device"),
}


def wheel_size(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wheel_size", *args],
        env=ENV, capture_output=True, text=True, check=False,
    )  # fmt: skip


def tool(name: str, given: str | None) -> str | None:
    return given if given and Path(given).exists() else shutil.which(name)


# -- diff ---------------------------------------------------------------------------------
_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)")


def readelf_sections(path: Path) -> dict[str, int]:
    out = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True).stdout
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        match = _SECTION.match(line)
        if match and match.group(1) != "NULL":
            sizes[match.group(1)] = sizes.get(match.group(1), 0) + int(match.group(2), 16)
    return sizes


def bundler_targets(path: Path, work: Path) -> set[str]:
    """Targets clang-offload-bundler lists for the first bundle of ``.hip_fatbin``."""
    dump = work / "fatbin.bin"
    done = subprocess.run(
        ["objcopy", "-O", "binary", "--only-section=.hip_fatbin", str(path), str(dump)],
        capture_output=True, check=False,
    )  # fmt: skip
    if done.returncode or not dump.exists() or not dump.stat().st_size:
        return set()
    listed = subprocess.run(
        ["clang-offload-bundler-19", "-list", "-type=o", f"-input={dump}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return {line.split("--", 1)[1] for line in listed.stdout.split() if line.startswith("hip")}


def check_diff(old: Path, new: Path, work: Path) -> list[str]:
    result = wheel_size("diff", str(old), str(new), "--format", "json", "--limit", "100000")
    if result.returncode:
        return ["diff", "FAIL", result.stderr.strip().splitlines()[-1]]
    files = [f for f in json.loads(result.stdout)["files"] if f["sections"] or f["gpu"]]
    sides = {}
    for label, wheel in (("old", old), ("new", new)):
        sides[label] = work / label
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(sides[label], [f["path"] for f in files if f["path"] in zf.namelist()])
    checked = mismatched = targets_checked = targets_mismatched = 0
    for f in files:
        before = readelf_sections(sides["old"] / f["path"]) if f["old_bytes"] else {}
        after = readelf_sections(sides["new"] / f["path"]) if f["new_bytes"] else {}
        for row in f["sections"]:
            checked += 1
            truth = (before.get(row["name"], 0), after.get(row["name"], 0))
            mismatched += truth != (row["old_size"], row["new_size"])
        hip = {r["arch"] for r in f["gpu"] if r["kind"] == "hip" and r["new_entries"]}
        if hip and shutil.which("clang-offload-bundler-19"):
            targets_checked += 1
            listed = bundler_targets(sides["new"] / f["path"], work)
            targets_mismatched += bool(listed - hip)  # the bundler lists the first bundle
    verdict = "agrees" if not mismatched and not targets_mismatched else "DISAGREES"
    return [
        f"diff {old.name} -> {new.name}",
        verdict,
        f"{checked} section deltas vs readelf -SW ({mismatched} differ); "
        f"{targets_checked} .hip_fatbin target sets vs clang-offload-bundler-19 "
        f"({targets_mismatched} differ)",
    ]


# -- audit --------------------------------------------------------------------------------
def check_audit(wheel: Path, abi3audit: str | None) -> list[str]:
    result = wheel_size("audit", "--format", "json", str(wheel))
    if result.returncode:
        return [f"audit {wheel.name}", "FAIL", result.stderr.strip().splitlines()[-1]]
    ours = json.loads(result.stdout)
    (verdict,) = ours["verdicts"]
    kinds = sorted({f["kind"] for f in ours["findings"]})
    row = ours["wheels"][0]
    if not row["abi3"]:
        return [f"audit {wheel.name}", verdict["verdict"], f"not abi3; findings {kinds}"]
    if abi3audit is None:
        return [f"audit {wheel.name}", "skipped", "abi3audit not installed"]
    done = subprocess.run(
        [abi3audit, "--report", str(wheel)], capture_output=True, text=True, check=False
    )
    theirs = json.loads(done.stdout)["specs"][str(wheel)]["wheel"]
    by_name = {n["path"].rsplit("/", 1)[-1]: n for n in row["native_extensions"]}
    disagree = []
    for item in theirs:
        native = by_name.get(item["name"])
        result_ = item["result"]
        if native is None:
            disagree.append(f"{item['name']}: not inspected")
            continue
        mine_ok = not native["non_stable_symbols"]
        mine_version = native["stable_abi_minimum"] or result_["baseline"]
        if mine_ok != result_["is_abi3"] or mine_version != result_["computed"]:
            disagree.append(
                f"{item['name']}: ours abi3={mine_ok} needs {mine_version}, abi3audit "
                f"abi3={result_['is_abi3']} needs {result_['computed']}"
            )
    return [
        f"audit {wheel.name}",
        "agrees" if not disagree else "DISAGREES",
        f"verdict {verdict['verdict']}, findings {kinds}; {len(theirs)} shared objects vs "
        f"abi3audit" + (": " + "; ".join(disagree) if disagree else ""),
    ]


# -- split: code objects against clang-offload-bundler ------------------------------------
_PLAIN = b"__CLANG_OFFLOAD_BUNDLE__"


def _bundles(section: bytes) -> list[bytes]:
    """The plain bundles of a dumped ``.hip_fatbin``: CCOB payloads inflated by the ``zstd``
    tool (clang-offload-bundler-19 reads no CCOB v3), each bundle's end from its own header
    (CCOB total size; a plain bundle's furthest entry), the next one at the next magic."""
    out, pos = [], 0
    while True:
        starts = [i for i in (section.find(_PLAIN, pos), section.find(b"CCOB", pos)) if i >= 0]
        if not starts:
            return out
        pos = min(starts)
        if section.startswith(b"CCOB", pos):
            version = int.from_bytes(section[pos + 4 : pos + 6], "little")
            header, total = (
                (32, int.from_bytes(section[pos + 8 : pos + 16], "little"))
                if version == 3
                else (24, int.from_bytes(section[pos + 8 : pos + 12], "little"))
            )
            payload = section[pos + header : pos + total]
            plain = subprocess.run(
                ["zstd", "-d", "-c", "-q"], input=payload, capture_output=True, check=True
            ).stdout
            out.append(plain)
            pos += total
            continue
        count = int.from_bytes(section[pos + 24 : pos + 32], "little")
        at, end = pos + 32, pos
        for _ in range(count):
            offset, size, id_len = (
                int.from_bytes(section[at + i : at + i + 8], "little") for i in (0, 8, 16)
            )
            end = max(end, pos + offset + size)
            at += 24 + id_len
        out.append(section[pos:end])
        pos = max(end, pos + 1)


def _bundle_entries(plain: bytes, work: Path) -> dict[str, bytes]:
    """Target -> code object of one plain bundle: the targets as ``clang-offload-bundler-19
    -list`` names them, the bytes at the offsets its header gives (the bundler's own
    ``-unbundle`` hands out the wrong object for some generic ISAs, tests/hipfx.py)."""
    blob = work / "bundle.bin"
    blob.write_bytes(plain)
    listed = subprocess.run(
        ["clang-offload-bundler-19", "-list", "-type=o", f"-input={blob}"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    entries, at = {}, 32
    for _ in range(int.from_bytes(plain[24:32], "little")):
        offset, size, id_len = (int.from_bytes(plain[at + i : at + i + 8], "little") for i in (0, 8, 16))
        entry_id = plain[at + 24 : at + 24 + id_len].decode()
        at += 24 + id_len
        if entry_id.startswith("hip") and entry_id in listed:
            entries[entry_id.split("--", 1)[1]] = plain[offset : offset + size]
    return entries


def _kpack_blobs(data: bytes) -> list[bytes]:
    """Every code object stored in one ``.kpack`` (read with msgpack and zstandard, as
    rocm-kpack's ``toc_parser.cpp`` reads it, not with wheel_size's reader)."""
    import msgpack
    import zstandard

    toc = msgpack.unpackb(data[int.from_bytes(data[8:16], "little") :], raw=False)
    ordinals = sorted(
        {(e["ordinal"], e["original_size"]) for arches in toc["toc"].values() for e in arches.values()}
    )
    if toc.get("compression_scheme") == "none":
        return [data[b["offset"] : b["offset"] + b["size"]] for b in toc["blobs"]]
    frames, pos = [], toc["zstd_offset"] + 4
    while len(frames) < len(ordinals):
        length = int.from_bytes(data[pos : pos + 4], "little")
        frames.append(data[pos + 4 : pos + 4 + length])
        pos += 4 + length
    return [
        zstandard.ZstdDecompressor().decompress(frames[o], max_output_size=size)
        for o, size in ordinals
    ]


def check_code_objects(wheel: Path, outputs: list[Path], work: Path) -> str:
    """Every code object the bundler finds in a library the split rewrote is in a kpack,
    byte for byte, the kpacks hold no other, and no rewritten library keeps a
    ``.hip_fatbin`` with contents (readelf: absent or NOBITS)."""
    import hashlib

    if not shutil.which("clang-offload-bundler-19") or not shutil.which("zstd"):
        return "code objects: skipped (clang-offload-bundler-19 or zstd not installed)"
    work.mkdir(parents=True, exist_ok=True)
    host = next(p for p in outputs if p.name == wheel.name)
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(host) as after:
        old = {i.filename: i.CRC for i in before.infolist()}
        rewritten = [
            i.filename for i in after.infolist()
            if i.filename in old and old[i.filename] != i.CRC and ".dist-info/" not in i.filename
        ]  # fmt: skip
        before.extractall(work / "in", rewritten)
        after.extractall(work / "out", rewritten)
    wanted: dict[str, str] = {}
    for name in rewritten:
        section = work / "fatbin.bin"
        subprocess.run(
            ["objcopy", "-O", "binary", "--only-section=.hip_fatbin", str(work / "in" / name),
             str(section)], check=True, capture_output=True,
        )  # fmt: skip
        for plain in _bundles(section.read_bytes()):
            for target, data in _bundle_entries(plain, work).items():
                wanted[hashlib.sha256(data).hexdigest()] = target
    stored: set[str] = set()
    for path in outputs:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.filename.endswith(".kpack"):
                    stored |= {hashlib.sha256(b).hexdigest() for b in _kpack_blobs(zf.read(info))}
    kept = [
        name for name in rewritten
        if {"PROGBITS"} & set(re.findall(r"\.hip_fatbin\s+(\S+)", readelf_text(work / "out" / name)))
    ]  # fmt: skip
    problems = []
    if set(wanted) - stored:
        problems.append(f"{len(set(wanted) - stored)} code objects in no kpack")
    if stored - set(wanted):
        problems.append(f"{len(stored - set(wanted))} kpack code objects not in the input")
    if kept:
        problems.append(f"{', '.join(kept)} still hold(s) .hip_fatbin contents")
    verdict = "; ".join(problems) if problems else "all byte-identical"
    return (
        f"{len(wanted)} distinct code objects (clang-offload-bundler-19 -list) vs "
        f"{len(stored)} in the kpacks: {verdict}; {len(rewritten)} rewritten libraries "
        f"without device code (readelf)"
    ) + ("!" if problems else "")


def readelf_text(path: Path) -> str:
    return subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True).stdout


# -- split --------------------------------------------------------------------------------
def zlib6(data: bytes) -> int:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return len(compressor.compress(data) + compressor.flush())


def check_split(pin: Pinned, wheel: Path, work: Path, auditwheel: str | None) -> list[str]:
    prefix, overlay, naming = SPLITS[pin.name]
    out = work / "split"
    result = wheel_size(
        "split", "--input", str(wheel), "--output-dir", str(out), "--device-package-prefix",
        prefix, "--overlay-root", overlay, "--extra-naming", naming, "--jobs", "2",
    )  # fmt: skip
    if result.returncode:
        return [f"split {wheel.name}", "FAIL", result.stderr.strip().splitlines()[-1]]
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: warning")]
    outputs = sorted(out.glob("*.whl"))
    host = out / wheel.name
    problems = []
    tail = "-".join(wheel.name[:-4].split("-")[-3:])
    if host.stat().st_size > wheel.stat().st_size:
        problems.append("host larger than the input")
    with zipfile.ZipFile(wheel) as before:
        old = {i.filename: (i.CRC, i.compress_size) for i in before.infolist()}
    written = rewritten = 0
    kpacks = [0, 0, 0]  # kpack bytes, as written, and zlib 6 of the same bytes
    for path in outputs:
        ours = bound_total = 0  # members the split wrote: bytes in the wheel, zlib 6 of them
        with zipfile.ZipFile(path) as after:
            for info in after.infolist():
                if old.get(info.filename) == (info.CRC, info.compress_size):
                    continue  # copied verbatim: the publisher's compression, kept as it was
                written += 1
                if path == host and info.filename in old and ".dist-info/" not in info.filename:
                    rewritten += 1
                bound = zlib6(after.read(info))
                ours += info.compress_size
                bound_total += bound
                if info.filename.endswith(".kpack"):
                    kpacks[0] += info.file_size
                    kpacks[1] += info.compress_size
                    kpacks[2] += bound
                if info.compress_size > bound:
                    problems.append(
                        f"{path.name}:{info.filename} {info.compress_size:,} bytes, "
                        f"zlib 6 {bound:,}"
                    )
        if ours > bound_total:
            problems.append(f"{path.name}: written members {ours:,} bytes, zlib 6 {bound_total:,}")
    for path in outputs:
        if not path.name[:-4].endswith(tail):
            problems.append(f"{path.name}: tags differ from the input's {tail}")
    platform = tail.split("-")[-1].split(".")[0]
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index",
         "--platform", platform, "--python-version", pin.python, "--only-binary=:all:",
         "--target", str(work / "target"), "--disable-pip-version-check", "--quiet",
         *map(str, outputs)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if resolved.returncode:
        problems.append(f"pip --platform {platform} refuses: {resolved.stderr.strip()[-200:]}")
    code_objects = check_code_objects(wheel, outputs, work / "code")
    if code_objects.endswith("!"):
        problems.append(code_objects.rstrip("!"))
        code_objects = "code objects disagree"
    shown = "auditwheel not installed"
    if auditwheel is not None:
        show = subprocess.run([auditwheel, "show", str(host)], capture_output=True, text=True)
        text = " ".join(show.stdout.split())
        match = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
        shown = f"auditwheel: {match.group(1) if match else show.stdout.strip()[:80]}"
    return [
        f"split {wheel.name}",
        "agrees" if not problems else "DISAGREES",
        f"{len(outputs)} wheels, {written} members written ({rewritten} rewritten libraries, "
        f"kpacks included) each <= zlib 6 (kpacks {kpacks[0]:,} bytes, {kpacks[1]:,} in their "
        f"wheels, zlib 6 {kpacks[2]:,}), host "
        f"{host.stat().st_size:,} of {wheel.stat().st_size:,} bytes, pip --platform "
        f"{platform} installs all; {code_objects}; {shown}; {len(warnings)} warning(s)"
        + (": " + "; ".join(problems) if problems else ""),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "pypi-pins")
    parser.add_argument("--abi3audit", help="abi3audit executable (default: on PATH)")
    parser.add_argument("--auditwheel", help="auditwheel executable (default: on PATH)")
    args = parser.parse_args()
    wheels = {pin.filename: fetch(pin, args.cache) for pin in PINNED}
    rows = []
    with tempfile.TemporaryDirectory(prefix="real-wheels-") as tmp:
        work = Path(tmp)
        old, new = (wheels[p.filename] for p in PINNED[:2])
        rows.append(check_diff(old, new, work / "diff"))
        for pin in PINNED[1:]:
            rows.append(check_audit(wheels[pin.filename], tool("abi3audit", args.abi3audit)))
        for pin in PINNED:
            if pin.name in SPLITS and pin.version != "1.2.3.post1":
                place = work / pin.filename
                rows.append(
                    check_split(
                        pin, wheels[pin.filename], place, tool("auditwheel", args.auditwheel)
                    )
                )
    print("| check | result | detail |")
    print("|---|---|---|")
    for check, result, detail in rows:
        print(f"| {check} | {result} | {detail.replace('|', '/')} |")
    return 0 if all(r[1] not in ("FAIL", "DISAGREES") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
