#!/usr/bin/env python3
"""Extract the response schemas of the GitHub REST operations our fake server serves.

GitHub's OpenAPI description is 13 MB; the tests need the schemas of a few dozen
operations. This script takes ``generated/api.github.com.json`` from the npm package
``@octokit/openapi`` and writes ``tests/data/openapi/schemas.json``: for every operation the
JSON response schemas per status, with ``$ref``s pointing into a shared ``$defs`` table and
OpenAPI 3.0 ``nullable`` turned into JSON Schema (``type: [..., "null"]``), so ``jsonschema``
can validate the fake's answers against what GitHub documents.

    cd /tmp && npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
    python scripts/extract_openapi_schemas.py /tmp/package/generated/api.github.com.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# (method, path template) of every operation the fake answers.
OPERATIONS = [
    ("get", "/rate_limit"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/actions/workflows"),
    ("get", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}"),
    ("get", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"),
    ("get", "/repos/{owner}/{repo}/actions/runs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}"),
    ("get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("get", "/repos/{owner}/{repo}/issues"),
    ("post", "/repos/{owner}/{repo}/issues"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("patch", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/issues/comments"),
    ("get", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("get", "/repos/{owner}/{repo}/labels"),
    ("post", "/repos/{owner}/{repo}/labels"),
    ("get", "/repos/{owner}/{repo}/labels/{name}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("delete", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"),
    ("get", "/search/issues"),
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
]

# Keywords that document rather than constrain; dropping them keeps the fixture small.
_DROP = {
    "description",
    "example",
    "examples",
    "externalDocs",
    "title",
    "readOnly",
    "writeOnly",
    "deprecated",
    "xml",
}


class Extractor:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.defs: dict[str, Any] = {}

    def ref(self, pointer: str) -> Any:
        node: Any = self.spec
        for part in pointer.lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def schema(self, node: Any) -> Any:
        """Convert one schema node (recursively), registering referenced schemas in $defs."""
        if isinstance(node, list):
            return [self.schema(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            pointer = node["$ref"]
            name = pointer.rsplit("/", 1)[-1]
            if name not in self.defs:
                self.defs[name] = {}  # placeholder: breaks cycles
                self.defs[name] = self.schema(self.ref(pointer))
            return {"$ref": f"#/$defs/{name}"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROP or key.startswith("x-") or key == "nullable":
                continue
            if key == "properties":
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key in ("items", "additionalProperties", "not"):
                out[key] = self.schema(value)
            elif key in ("allOf", "anyOf", "oneOf"):
                out[key] = [self.schema(sub) for sub in value]
            else:
                out[key] = value
        if node.get("nullable"):
            out = self.nullable(out)
        return out

    @staticmethod
    def nullable(schema: dict[str, Any]) -> dict[str, Any]:
        """OpenAPI 3.0 ``nullable: true`` as JSON Schema."""
        if "type" in schema and not any(k in schema for k in ("allOf", "anyOf", "oneOf")):
            kind = schema["type"]
            kinds = kind if isinstance(kind, list) else [kind]
            schema = {**schema, "type": [*kinds, "null"] if "null" not in kinds else kinds}
            if "enum" in schema and None not in schema["enum"]:
                schema["enum"] = [*schema["enum"], None]
            return schema
        return {"anyOf": [schema, {"type": "null"}]}

    def operation(self, method: str, path: str) -> dict[str, Any]:
        op = self.spec["paths"][path][method]
        responses: dict[str, Any] = {}
        for status, response in op["responses"].items():
            if "$ref" in response:
                response = self.ref(response["$ref"])
            content = response.get("content", {}).get("application/json")
            responses[status] = None if content is None else self.schema(content.get("schema", {}))
        return {"operationId": op["operationId"], "responses": responses}


def extract(spec: dict[str, Any], version: str | None) -> dict[str, Any]:
    extractor = Extractor(spec)
    operations = {
        f"{method.upper()} {path}": extractor.operation(method, path) for method, path in OPERATIONS
    }
    return {
        "source": {
            "package": "@octokit/openapi",
            "version": version,
            "file": "generated/api.github.com.json",
            "openapi": spec.get("openapi"),
            "info_version": spec.get("info", {}).get("version"),
        },
        "operations": operations,
        "$defs": dict(sorted(extractor.defs.items())),
    }


def dump(result: dict[str, Any]) -> str:
    """Compact JSON with one operation or schema per line: small, yet diffs stay readable."""

    def table(mapping: dict[str, Any]) -> str:
        rows = [
            f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in mapping.items()
        ]
        return "{\n" + ",\n".join(rows) + "\n}"

    return (
        "{\n"
        f'"source":{json.dumps(result["source"], separators=(",", ":"))},\n'
        f'"operations":{table(result["operations"])},\n'
        f'"$defs":{table(result["$defs"])}\n'
        "}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("description", type=Path, help="path to generated/api.github.com.json")
    parser.add_argument(
        "--output",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "tests" / "data" / "openapi" / "schemas.json",
    )
    args = parser.parse_args(argv)
    try:
        spec = json.loads(args.description.read_bytes())
    except (OSError, ValueError) as exc:
        print(f"extract_openapi_schemas: cannot read {args.description}: {exc}", file=sys.stderr)
        return 2
    package_json = args.description.resolve().parent.parent / "package.json"
    version = None
    if package_json.is_file():
        version = json.loads(package_json.read_text()).get("version")
    try:
        result = extract(spec, version)
    except KeyError as exc:
        print(f"extract_openapi_schemas: {args.description} has no {exc}", file=sys.stderr)
        return 2
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".tmp")
    tmp.write_text(dump(result))
    tmp.replace(args.output)
    print(f"{args.output}: {len(result['operations'])} operations, {len(result['$defs'])} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
