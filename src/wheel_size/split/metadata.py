"""METADATA, WHEEL and variant.json of the split's host, variant and device wheels.

The host wheel keeps every original header byte for byte and gains ``Requires-Dist:
rocm-bootstrap``, one extra per target (pulling the target wheel and its emitted sub-family
and family wheels) and an ``all`` extra. PEP 825 variant markers go only into the separate
variant wheel: installers that do not know them refuse the requirement, so a plain wheel
carrying them would not install. Device wheels pin the host version and, unlike AMD's tool
(rocm-systems#10685), a target wheel also requires its emitted sub-family and family wheels.

The input's METADATA and WHEEL are hostile until checked: ``Name`` must be a PEP 508 name,
``Version`` a PEP 440 version (used in its normal form from then on), every ``Tag`` a PEP 425
tag. Every header line we write goes through :func:`_header`, which refuses a line break or
control character, so no value can add a header of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from email.parser import BytesHeaderParser

from packaging.requirements import InvalidRequirement, Requirement

from wheel_size import __version__
from wheel_size.errors import InputError, InvalidWheel
from wheel_size.split.extras import install_chains
from wheel_size.split.names import Hierarchy
from wheel_size.wheel.filename import normalized_version, valid_name, valid_tag

__all__ = [
    "VARIANT_SCHEMA",
    "DeviceBundle",
    "HostIdentity",
    "check_requirement",
    "device_metadata",
    "device_wheel_file",
    "extra_name",
    "host_metadata",
    "parse_identity",
    "variant_json",
]

VARIANT_SCHEMA = "https://variants-schema.wheelnext.dev/v0.0.3.json"
_VARIANT_LABEL = re.compile(r"^[0-9a-z_.]{1,16}\Z")
# PEP 685 normalised extra name.
_EXTRA = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def _header(name: str, value: str) -> str:
    """One ``Name: value`` line; a value that could start another header is a bug or an
    attack, never written."""
    if _CONTROL.search(value):
        raise InputError(f"{name} {value!r}: line break or control character in a header value")
    return f"{name}: {value}"


@dataclass(frozen=True)
class HostIdentity:
    """Name, version and tags of the fat wheel, from its METADATA and WHEEL."""

    name: str
    version: str
    tags: tuple[str, ...]  # every ``Tag:`` of WHEEL, e.g. ("cp313-cp313-manylinux_2_28_x86_64",)
    # WHEEL's Root-Is-Purelib: where an installer puts the wheel's root (purelib or platlib).
    purelib: bool = False

    @property
    def group(self) -> str:
        """The kpack group name: ``torch`` (lowercase, ``-`` as ``_``)."""
        return self.name.lower().replace("-", "_")

    @property
    def tag_string(self) -> str:
        """The compressed tag triple of a wheel file name (``py3.py2-none-any``)."""
        parts = [t.split("-") for t in self.tags]
        return "-".join(".".join(dict.fromkeys(p[i] for p in parts)) for i in range(3))


@dataclass(frozen=True)
class DeviceBundle:
    """One device wheel: its bundle key, level and distribution name."""

    key: str
    level: str
    dist: str


def extra_name(key: str, naming: str) -> str:
    """``plain``: ``gfx1100``/``all`` (the reference split, TheRock#5289); ``device``:
    ``device-gfx1100``/``device-all`` (newer ROCm indexes)."""
    name = key.replace("_", "-")
    extra = f"device-{name}" if naming == "device" else name
    if not _EXTRA.match(extra):
        raise InputError(f"extra {extra!r} (from GPU architecture {key!r}) is not a PEP 685 name")
    return extra


def check_requirement(requirement: str) -> str:
    """A ``--device-requires-dist`` value if it is one PEP 508 requirement on one line."""
    probe = requirement.replace("@GFXARCH@", "gfx942")
    try:
        if _CONTROL.search(requirement):
            raise InvalidRequirement("line break or control character")
        Requirement(probe)
    except InvalidRequirement as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid"
        raise InputError(
            f"--device-requires-dist {requirement!r}: not a PEP 508 requirement: {first}"
        ) from None
    return requirement


def _one(headers: list[str], field: str, source: str) -> str:
    values = [str(v).strip() for v in headers]
    if len(values) != 1 or not values[0]:
        found = "no" if not values or not values[0] else f"{len(values)}"
        raise InvalidWheel(f"{source}: METADATA has {found} {field} header(s), want one")
    return values[0]


def parse_identity(metadata: bytes, wheel: bytes, *, source: str) -> HostIdentity:
    """Read Name/Version from METADATA and the tags from WHEEL, each checked against its PEP
    (the version is kept in its PEP 440 normal form)."""
    for label, data in (("METADATA", metadata), ("WHEEL", wheel)):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidWheel(f"{source}: {label} is not UTF-8 (byte {exc.start})") from None
    headers = BytesHeaderParser().parsebytes(metadata)
    name = _one(headers.get_all("Name") or [], "Name", source)
    raw_version = _one(headers.get_all("Version") or [], "Version", source)
    if not valid_name(name):
        raise InvalidWheel(f"{source}: METADATA Name {name!r} is not a PEP 508 distribution name")
    version = normalized_version(raw_version)
    if version is None:
        raise InvalidWheel(f"{source}: METADATA Version {raw_version!r} is not a PEP 440 version")
    tags = tuple(str(v).strip() for v in BytesHeaderParser().parsebytes(wheel).get_all("Tag") or [])
    if not tags:
        raise InvalidWheel(f"{source}: WHEEL has no Tag line")
    for tag in tags:
        if not valid_tag(tag):
            raise InvalidWheel(
                f"{source}: WHEEL Tag {tag!r} is not a PEP 425 python-abi-platform tag"
            )
    return HostIdentity(name, version, tags)


def _insert_headers(metadata: bytes, lines: Iterable[str]) -> bytes:
    """Add header lines before the blank line that starts the description, or at the end."""
    try:
        text = metadata.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidWheel(f"METADATA is not UTF-8 (byte {exc.start})") from None
    newline = "\r\n" if "\r\n" in text else "\n"
    added = "".join(line + newline for line in lines)
    match = re.search(r"\r?\n\r?\n", text)
    if match is None:
        if text and not text.endswith("\n"):
            text += newline
        return (text + added).encode("utf-8")
    cut = match.start() + len(newline)
    return (text[:cut] + added + text[cut:]).encode("utf-8")


def _existing_extras(metadata: bytes) -> set[str]:
    headers = BytesHeaderParser().parsebytes(metadata)
    return {str(v).strip() for v in headers.get_all("Provides-Extra") or []}


def host_metadata(
    metadata: bytes,
    identity: HostIdentity,
    bundles: Sequence[DeviceBundle],
    table: Hierarchy,
    *,
    naming: str,
    variant: bool = False,
    install_all: bool = False,
    chains: Mapping[str, Sequence[str]] | None = None,
) -> bytes:
    """The host (or, with ``variant``, the variant wheel's) METADATA.

    ``chains`` (:func:`~wheel_size.split.extras.install_chains`) names one extra per GPU
    target and the device wheels it pulls; by default every target-level bundle and its
    emitted chain.

    With ``install_all`` the host also requires every device wheel without a marker, so a
    plain ``pip install torch`` from an index that must stay backwards compatible still gets
    working kernels for every GPU (the fat wheel's behaviour, and its download size); the
    per-GPU extras remain for indexes that serve only the lean host.
    """
    emitted = {b.key: b for b in bundles}
    if chains is None:
        chains = install_chains({b.key: b.level for b in bundles}, (), table)
    all_extra = extra_name("all", naming)
    clash = _existing_extras(metadata) & {all_extra, *(extra_name(t, naming) for t in chains)}
    if clash:
        raise InputError(
            f"{identity.name}: METADATA already declares extra(s) {', '.join(sorted(clash))}; "
            "choose another --extra-naming"
        )
    pin = f"== {identity.version}"
    lines = [_header("Requires-Dist", "rocm-bootstrap")]
    for target, chain in chains.items():
        extra = extra_name(target, naming)
        lines.append(_header("Provides-Extra", extra))
        for key in chain:
            requirement = f"{emitted[key].dist} {pin}"
            lines.append(_header("Requires-Dist", f'{requirement}; extra == "{extra}"'))
            if variant:
                marker = f'"amd :: gfx_arch :: {target}" in variant_properties'
                lines.append(_header("Requires-Dist", f"{requirement}; {marker}"))
    lines.append(_header("Provides-Extra", all_extra))
    lines.extend(
        _header("Requires-Dist", f'{b.dist} {pin}; extra == "{all_extra}"') for b in bundles
    )
    if install_all:
        lines.extend(_header("Requires-Dist", f"{b.dist} {pin}") for b in bundles)
    return _insert_headers(metadata, lines)


def device_metadata(
    bundle: DeviceBundle,
    identity: HostIdentity,
    emitted: dict[str, DeviceBundle],
    table: Hierarchy,
    extra_requires: Sequence[str] = (),
) -> bytes:
    """A device wheel's whole METADATA."""
    if not valid_name(bundle.dist):
        raise InputError(f"device package name {bundle.dist!r} is not a PEP 508 name")
    lines = [
        _header("Metadata-Version", "2.1"),
        _header("Name", bundle.dist),
        _header("Version", identity.version),
        _header(
            "Summary", f"AMD GPU device code ({bundle.key}, {bundle.level}) for {identity.name}"
        ),
        _header("Requires-Dist", f"{identity.name} == {identity.version}"),
    ]
    for parent in table.chain(bundle.key)[1:]:
        if parent in emitted:
            lines.append(_header("Requires-Dist", f"{emitted[parent].dist} == {identity.version}"))
    for requirement in extra_requires:
        check_requirement(requirement)
        if "@GFXARCH@" in requirement:
            if bundle.level not in ("target", "unknown"):
                continue
            requirement = requirement.replace("@GFXARCH@", bundle.key)
        lines.append(_header("Requires-Dist", requirement))
    return ("\n".join(lines) + "\n").encode("utf-8")


def device_wheel_file(identity: HostIdentity) -> bytes:
    """A device wheel's WHEEL: the host's exact tags and the host's ``Root-Is-Purelib``.

    The kpacks must land in the same tree as the host libraries whose load reference
    points at them (``../.kpack/`` relative to the library): where purelib and platlib
    differ (``lib`` and ``lib64`` on Fedora and RHEL), a platlib device wheel beside a
    purelib host (jax-rocm7-pjrt is one) would install its archives where no loader looks.
    """
    for tag in identity.tags:
        if not valid_tag(tag):
            raise InputError(f"WHEEL Tag {tag!r} is not a PEP 425 tag")
    lines = [
        "Wheel-Version: 1.0",
        f"Generator: wheel-size {__version__}",
        f"Root-Is-Purelib: {'true' if identity.purelib else 'false'}",
        *(_header("Tag", tag) for tag in identity.tags),
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def check_variant_label(label: str) -> str:
    if not _VARIANT_LABEL.match(label) or label == "null":
        raise InputError(
            f"--variant-label {label!r}: a PEP 825 label is 1-16 characters of [0-9a-z_.] "
            "and not 'null'"
        )
    return label


def variant_json(label: str, targets: Sequence[str]) -> bytes:
    """``*.dist-info/variant.json`` (PEP 825): this wheel's own label and properties only."""
    document = {
        "$schema": VARIANT_SCHEMA,
        "default-priorities": {"namespace": ["amd"]},
        "variants": {label: {"amd": {"gfx_arch": sorted(targets)}}},
    }
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8")
