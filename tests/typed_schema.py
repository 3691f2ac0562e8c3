"""Check a typed document (TypedDicts) against its JSON schema, shape for shape.

Every TypedDict must name exactly the properties of its schema object, hold every key the
schema requires, and each value's type must be what the schema allows there (``X | None``
where the schema allows null, ``list`` for an array, ``dict[str, X]`` for
``additionalProperties``). A key added to one side only, or a type changed on one side only,
is a difference this reports.
"""

from __future__ import annotations

import types
import typing
from typing import Any

_SCALARS: dict[object, set[str]] = {
    str: {"string"},
    int: {"integer", "number"},
    float: {"number"},
    bool: {"boolean"},
}


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _schema_types(node: dict[str, Any]) -> set[str]:
    kind = node.get("type")
    if isinstance(kind, list):
        return set(kind)
    if isinstance(kind, str):
        return {kind}
    values = node.get("enum", [node["const"]] if "const" in node else [])
    names = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
    return {names.get(type(v).__name__, "null") for v in values}


def _options(node: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    node = _resolve(node, root)
    if "oneOf" in node or "anyOf" in node:
        subs: list[dict[str, Any]] = node.get("oneOf") or node.get("anyOf") or []
        return [o for sub in subs for o in _options(sub, root)]
    kinds = _schema_types(node)
    if len(kinds) > 1 and "null" in kinds:
        return [{**node, "type": sorted(kinds - {"null"})}, {"type": "null"}]
    return [node]


def differences(tp: Any, node: dict[str, Any], root: dict[str, Any], at: str = "$") -> list[str]:
    """Where the type ``tp`` and the schema ``node`` disagree (empty: they agree)."""
    options = _options(node, root)
    nullable = any(_schema_types(o) == {"null"} for o in options)
    rest = [o for o in options if _schema_types(o) != {"null"}]
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        optional = type(None) in args
        if optional != nullable:
            return [f"{at}: type allows None: {optional}, schema allows null: {nullable}"]
        (inner,) = [a for a in args if a is not type(None)]
        return differences(inner, {"oneOf": rest}, root, at)
    if nullable and not rest:
        return [f"{at}: schema allows only null, type is {tp}"]
    if nullable:
        return [f"{at}: schema allows null, type {tp} does not"]
    (one,) = rest if len(rest) == 1 else (rest[0],)
    if typing.is_typeddict(tp):
        if _schema_types(one) != {"object"} or "properties" not in one:
            return [f"{at}: {tp.__name__} is an object, schema is not"]
        hints = typing.get_type_hints(tp)
        props = one["properties"]
        found = [f"{at}: {tp.__name__} lacks {k}" for k in sorted(set(props) - set(hints))]
        found += [f"{at}: schema lacks {tp.__name__}.{k}" for k in sorted(set(hints) - set(props))]
        not_required = set(one.get("required", [])) - set(tp.__required_keys__)
        found += [
            f"{at}: {tp.__name__}.{k} is required by the schema" for k in sorted(not_required)
        ]
        for key in sorted(set(hints) & set(props)):
            found += differences(hints[key], props[key], root, f"{at}.{key}")
        return found
    origin = typing.get_origin(tp)
    if origin is list:
        if _schema_types(one) != {"array"}:
            return [f"{at}: list, schema is {sorted(_schema_types(one))}"]
        return differences(args[0], one.get("items", {}), root, f"{at}[]")
    if origin is dict:
        extra = one.get("additionalProperties")
        if _schema_types(one) != {"object"} or not isinstance(extra, dict):
            return [f"{at}: dict[str, ...], schema is no open object"]
        return differences(args[1], extra, root, f"{at}{{}}")
    if origin is typing.Literal:
        allowed = set(one.get("enum", [one["const"]] if "const" in one else []))
        return [] if set(args) <= allowed else [f"{at}: {args} not all in {sorted(allowed)}"]
    if tp in _SCALARS:
        kinds = _schema_types(one)
        return [] if kinds & _SCALARS[tp] else [f"{at}: {tp.__name__}, schema {sorted(kinds)}"]
    return [f"{at}: cannot check {tp!r}"]
