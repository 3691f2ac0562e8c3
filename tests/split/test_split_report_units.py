"""The split's savings report speaks the project's units: MB = 1,048,576 bytes, as every other
report (it used 10**6 before), and the savings percentages are ratios of bytes, untouched by
the unit.  The report here has the sizes of the seed's reference split (AMD's torch 2.10
ROCm 7.1 wheel), in bytes, and is validated against the documented JSON format."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

from conftest import REPO_ROOT
from wheel_size.markers import comment_marker as marker
from wheel_size.split.comment import render_comment
from wheel_size.split.report import render_split_report
from wheel_size.units import MB

SCHEMA = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())


def _report() -> Any:  # a report as the JSON holds it; the test validates it
    host = 431 * MB
    gfx900 = 54 * MB + 123_456
    gfx1100, gfx11 = 241 * MB, 453 * MB
    fat = 5_222 * MB + 524_288  # 5,222.5 MB: a half MB shows as .5 only with MB = 2**20

    def device(key: str, level: str, size: int) -> dict[str, Any]:
        return {
            "key": key, "level": level, "dist": f"amd-torch-device-{key}",
            "file": f"amd_torch_device_{key}-2.10.0-py3-none-any.whl", "size": size,
            "kernels": 685, "kpack_size": size - MB, "db_files": 5, "db_size": 3 * MB,
            "kpacks": [{"arch": key, "file": f"torch_{key}.kpack", "size": size - MB,
                        "kernels": 685}], "db_dirs": [],
        }  # fmt: skip

    sizes = {"host": host, "gfx900": gfx900, "gfx1100": gfx1100, "gfx11": gfx11}

    def download(target: str, wheels: list[str], size: int) -> dict[str, Any]:
        pct = round(100.0 * (fat - size) / fat, 1)
        parts = [{"wheel": w, "level": "family" if w == "gfx11" else ("host" if w == "host"
                  else "target"), "size": sizes[w]} for w in wheels]  # fmt: skip
        return {"target": target, "wheels": wheels, "size": size, "savings_pct": pct,
                "parts": parts, "kernels": 685, "extra": target,
                "also_downloads": 0}  # fmt: skip

    # the sections beyond the size tables (key result, timings, METADATA, layout) come from
    # the seed's saved report; this test is about the units of the size tables
    seed = json.loads((REPO_ROOT / "tests" / "data" / "split" / "seed-report.json").read_text())
    extra = {k: seed[k] for k in ("key_results", "database_only", "host_metadata", "layout",
                                  "options", "timings", "installs", "costlier")}  # fmt: skip
    return {
        **extra,
        "version": 2,
        "name": "torch",
        "package_version": "2.10.0+rocm7.1",
        "input": {"file": "torch-2.10.0+rocm7.1-cp312-cp312-linux_x86_64.whl", "size": fat},
        "host": {"file": "torch-2.10.0+rocm7.1-cp312-cp312-linux_x86_64.whl", "size": host},
        "variant": None,
        "device_total": gfx900 + gfx1100 + gfx11,
        "summary": {
            "fat_binaries": 9,
            "db_files": 2_522,
            "raw_archs": 14,
            "device_wheels": 3,
            "kernels": 12_345,
            "kernel_archs": 2,
            "db_only_archs": 0,
        },
        "devices": [
            device("gfx900", "target", gfx900),
            device("gfx1100", "target", gfx1100),
            device("gfx11", "family", gfx11),
        ],
        "downloads": [
            download("gfx900", ["host", "gfx900"], host + gfx900),
            download("gfx1100", ["host", "gfx1100", "gfx11"], host + gfx1100 + gfx11),
        ],
        "libraries": [
            {
                "path": "lib/libmagma.so",
                "original": 1_249 * MB,
                "stripped": 53 * MB,
                "saved": 1_196 * MB,
                "saved_pct": 95.8,
                "kernels": 1_738,
                "targets": ["gfx900", "gfx1100"],
                "code_objects": {"gfx900": 869, "gfx1100": 869},
                "device_bytes": 1_196 * MB,
                "kpack_bytes": 400 * MB,
                "seconds": 12.0,
            }
        ],
        "databases": [
            {"handler": "miopen", "files": 62, "size": 744 * MB, "keys": ["gfx900", "gfx11"]}
        ],
        "warnings": [],
    }


def test_markdown_sizes_are_mebibyte_mb_and_savings_are_byte_ratios() -> None:
    report = _report()
    jsonschema.validate(report, SCHEMA)
    text = render_split_report(report)
    assert "| Input wheel | 5,222.5 MB |" in text
    assert "| Host wheel | 431.0 MB |" in text
    assert "| Device wheels (3) | 748.1 MB total |" in text  # 54.1 + 241 + 453
    assert "| gfx900 | host + gfx900 | 485.1 MB | 91% |" in text
    assert "| gfx1100 | host + gfx1100 + gfx11 | 1,125.0 MB | 78% |" in text
    assert "| `lib/libmagma.so` | 1,249.0 MB | 53.0 MB | 1,196.0 MB | 95.8% | 1,738 |" in text
    assert "| miopen | 62 | 744.0 MB | gfx900, gfx11 |" in text
    assert "| Kernels extracted | 12,345 |" in text
    assert "| Database files relocated | 2,522 |" in text
    # every MB figure is bytes / 1,048,576: none reads as 10**6-byte MB
    for row in report["downloads"]:
        assert f"{row['size'] / MB:,.1f} MB" in text
        assert f"{row['size'] / 1e6:,.1f} MB" not in text
    # the percentages are the JSON's, which are ratios of bytes
    shown = [int(p) for p in re.findall(r"\| (\d+)% \|\n", text)]
    assert shown == [round(r["savings_pct"]) for r in report["downloads"]]


def test_comment_is_the_report_under_its_marker() -> None:
    report = _report()
    body = render_comment(report)
    assert body.startswith(marker("split") + "\n")
    assert render_split_report(report) in body
