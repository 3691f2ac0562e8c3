"""Which member of the old wheel is which member of the new one, when names moved.

Four keys, tried in order on the members still unpaired, each pairing only names that are
unique on both sides under that key (which of two candidates became which would be a guess):

1. the path with the ``{dist}-{version}.dist-info`` / ``.data`` version dropped;
2. a grafted library's repair hash taken out of its file name (:mod:`.grafted`);
3. every content-hash component taken out: a run of 16 or more hex digits that is a whole
   path component or a whole ``-``/``_``/``.``-separated part of one (``flashinfer-cubin``'s
   ``cubins/<40 hex>/…``: 12,401 "removed" and 15,278 "added" files become 10,721 pairs);
4. the path below its top-level directory (a distribution renamed, same layout:
   ``foo_cu12/lib/x.so`` is ``foo_cu13/lib/x.so``).

Linear in the number of members: dictionaries, no pairwise comparison.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from wheel_size.diff.grafted import grafted_key

__all__ = ["content_hash_key", "normalise_path", "pair_members"]

_META_DIR = re.compile(r"^([^/]+?)-[^/-]+\.(dist-info|data)(/|$)")
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])")


def normalise_path(path: str) -> str:
    """Drop the version from ``{dist}-{version}.dist-info`` / ``.data`` so nights line up."""
    return _META_DIR.sub(lambda m: f"{m.group(1)}.{m.group(2)}{m.group(3)}", path, count=1)


def content_hash_key(path: str) -> str | None:
    """``path`` with each content-hash run (16+ hex digits, delimited) replaced by ``#``;
    None when it has none."""
    key, count = _HEX_RUN.subn("#", normalise_path(path))
    return key if count else None


def _below_top(path: str) -> str | None:
    top, sep, rest = normalise_path(path).partition("/")
    if not sep or not rest:
        return None
    # a dist-info directory keeps its kind: METADATA pairs with METADATA
    return rest if not top.endswith((".dist-info", ".data")) else f"{top.rsplit('.', 1)[1]}/{rest}"


def _pair_by(olds: list[str], news: list[str], key: Callable[[str], str | None]) -> dict[str, str]:
    by_old: dict[str, list[str]] = {}
    by_new: dict[str, list[str]] = {}
    for names, into in ((olds, by_old), (news, by_new)):
        for name in names:
            k = key(name)
            if k is not None:
                into.setdefault(k, []).append(name)
    return {
        by_old[k][0]: by_new[k][0]
        for k in by_old.keys() & by_new.keys()
        if len(by_old[k]) == 1 and len(by_new[k]) == 1
    }


def pair_members(
    old_names: Iterable[str], new_names: Iterable[str]
) -> list[tuple[str | None, str | None]]:
    """(old, new) for every member: paired, or with None on the side that lacks it."""
    olds, news = list(old_names), list(new_names)
    pairs: list[tuple[str | None, str | None]] = []
    for key in (normalise_path, grafted_key, content_hash_key, _below_top):
        found = _pair_by(olds, news, key)
        if found:
            pairs += found.items()
            taken = set(found.values())
            olds = [n for n in olds if n not in found]
            news = [n for n in news if n not in taken]
    pairs += [(n, None) for n in olds]
    pairs += [(None, n) for n in news]
    return pairs
