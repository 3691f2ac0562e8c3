"""``wheel-size audit`` on generated build matrices with real compiled extensions."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_1747_matrix, make_artifact, make_wheel

DATA = REPO_ROOT / "tests" / "data"
SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())


def _audit(*paths: Path, cwd: Path | None = None, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    result = run_main(["audit", *map(str, paths), "--format", "json", *extra], cwd=cwd)
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)  # docs/audit-format.schema.json describes what we print
    return data


@pytest.fixture(scope="module")
def matrix_1747(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("m1747")
    make_1747_matrix(out / "artifacts")
    return out


def test_1747_matrix_verdicts(matrix_1747: Path) -> None:
    data = _audit(Path("artifacts"), cwd=matrix_1747)
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    cuda = "artifacts/linux-cuda/torchao-0.8.0-cp39-abi3-linux_x86_64.whl"
    assert verdicts[cuda] == "keep"
    pure = [p for p in verdicts if p.endswith("torchao-0.8.0-py3-none-any.whl")]
    assert len(pure) == 4
    assert sorted(verdicts[p] for p in pure) == ["drop", "drop", "drop", "keep"]
    assert verdicts["artifacts/linux-rocm/torchao-0.8.0+rocm6.3-py3-none-any.whl"] == "drop"
    assert verdicts["artifacts/linux-xpu/torchao-0.8.0+xpu-py3-none-any.whl"] == "drop"
    (group,) = data["redundant_groups"]
    assert len(group["members"]) == 6 and group["keep"] in pure
    kinds = sorted((f["kind"], f["wheels"][0].split("/")[1]) for f in data["findings"])
    assert kinds == [
        ("label-without-native-code", "linux-rocm"),
        ("label-without-native-code", "linux-xpu"),
        ("platform-tag-not-on-pypi", "linux-cuda"),  # informational: the verdict stays keep
    ]
    # the unlabelled, most general job is kept (not the first path, linux-aarch64) and every
    # other job of the pure wheel is one to disable: the answer pytorch/ao#1747 wanted
    assert group["keep"] == "artifacts/linux-cpu/torchao-0.8.0-py3-none-any.whl"
    assert data["jobs_to_disable"] == [
        "artifacts/linux-aarch64",
        "artifacts/linux-rocm",
        "artifacts/linux-xpu",
        "artifacts/macos-m1",
        "artifacts/windows",
    ]
    assert data["summary"]["jobs_to_disable"] == 5
    jobs = {j["job"]: j["action"] for j in data["jobs"]}
    assert jobs["artifacts/linux-cpu"] == jobs["artifacts/linux-cuda"] == "keep"
    wheels = {w["path"]: w for w in data["wheels"]}
    cw = wheels[cuda]
    assert cw["abi3"] is True and cw["pure"] is False
    assert cw["python_tags"] == ["cp39"] and cw["abi_tags"] == ["abi3"]
    assert cw["platform_tags"] == ["linux_x86_64"] and cw["glibc_floor"] is None
    (ext,) = cw["native_extensions"]
    assert ext["path"] == "torchao/_C.abi3.so" and ext["gpu_archs"] == ["sm_80", "sm_90"]
    assert ext["non_stable_symbols"] == []
    assert "libcudart.so.13" in ext["needed"]
    if shutil.which("readelf"):
        out = subprocess.run(
            ["readelf", "-V", str(DATA / "cuda" / "_C.abi3.so")], capture_output=True, text=True
        ).stdout
        versions = {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_([\d.]+\d)", out)}
        assert ext["glibc_required"] == ".".join(map(str, max(versions)))
    rocm = wheels["artifacts/linux-rocm/torchao-0.8.0+rocm6.3-py3-none-any.whl"]
    assert rocm["local_label"] == "rocm6.3" and rocm["version"] == "0.8.0+rocm6.3"
    assert rocm["pure"] is True and rocm["native_extensions"] == []


def test_1747_markdown(matrix_1747: Path) -> None:
    result = run_main(["audit", "artifacts"], cwd=matrix_1747)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "**7 wheels: keep 2, drop 5, fix 0; 1 group of identical builds; 5 of 7 jobs to disable.**"
    )
    assert "### Jobs to disable\n" in result.stdout
    assert "| `artifacts/linux-rocm` | `artifacts/linux-rocm/torchao-0.8.0+rocm6.3" in result.stdout
    assert (
        "| **drop** | `artifacts/linux-xpu/torchao-0.8.0+xpu-py3-none-any.whl` |" in result.stdout
    )


def test_strict_exit_code(matrix_1747: Path) -> None:
    result = run_main(["audit", "artifacts", "--strict"], cwd=matrix_1747)
    assert result.returncode == 1


def test_abi3_violation_from_real_extensions(tmp_path: Path) -> None:
    tag = "cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clean = make_wheel(
        tmp_path / "a",
        "clean",
        "1.0",
        tag,
        {"clean/_clean.abi3.so": DATA / "abi3" / "clean.abi3.so"},
    )
    leaky = make_wheel(
        tmp_path / "b",
        "leaky",
        "1.0",
        tag,
        {"leaky/_leaky.abi3.so": DATA / "abi3" / "leaky.abi3.so"},
    )
    data = _audit(clean, leaky)
    findings = [f for f in data["findings"] if f["kind"] == "abi3-violation"]
    assert [f["wheels"] for f in findings] == [[str(leaky)]]
    assert "_PyBytes_Resize" in findings[0]["detail"] and "PyCode_NewEmpty" in findings[0]["detail"]
    assert "PyInit_leaky" not in findings[0]["detail"]
    wheels = {w["path"]: w for w in data["wheels"]}
    assert wheels[str(clean)]["glibc_floor"] == "2.17"
    assert wheels[str(clean)]["native_extensions"][0]["non_stable_symbols"] == []
    assert wheels[str(leaky)]["native_extensions"][0]["non_stable_symbols"] == [
        "PyCode_NewEmpty",
        "_PyBytes_Resize",
    ]
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts == {str(clean): "keep", str(leaky): "fix"}


def test_same_name_different_bytes_and_variant_label(tmp_path: Path) -> None:
    (tmp_path / "py310").mkdir()
    (tmp_path / "py312").mkdir()
    tag = "cp310-abi3-manylinux_2_28_aarch64"
    so = DATA / "abi3" / "clean.abi3.so"
    a = make_wheel(tmp_path / "py310", "ao", "1.0", tag, {"ao/_C.abi3.so": so, "ao/v.py": b"310"})
    b = make_wheel(tmp_path / "py312", "ao", "1.0", tag, {"ao/_C.abi3.so": so, "ao/v.py": b"312"})
    variant = make_wheel(
        tmp_path, "ao", "1.0", "py3-none-any", {"ao/v.py": b"x"}, variant="cu129_x86"
    )
    data = _audit(tmp_path)
    (finding,) = [f for f in data["findings"] if f["kind"] == "same-name-different-bytes"]
    assert sorted(finding["wheels"]) == sorted([str(a), str(b)])
    wheels = {w["path"]: w for w in data["wheels"]}
    assert wheels[str(variant)]["variant_label"] == "cu129_x86"
    assert wheels[str(a)]["glibc_floor"] == "2.28"
    assert any(
        f["kind"] == "label-without-native-code" and f["wheels"] == [str(variant)]
        for f in data["findings"]
    )


def _rewrite_record(wheel: Path, member: str, new_hash: str) -> None:
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("/RECORD"):
                lines = [
                    f"{member},{new_hash},{line.rsplit(',', 1)[1]}"
                    if line.startswith(member + ",")
                    else line
                    for line in data.decode().splitlines()
                ]
                data = ("\n".join(lines) + "\n").encode()
            dst.writestr(info, data)
    tmp.replace(wheel)


def test_record_mismatch_and_platform_tag_without_native_code(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "p", "1.0", "cp311-cp311-linux_x86_64", {"p/a.py": b"a = 1\n"})
    wrong = (
        "sha256="
        + base64.urlsafe_b64encode(hashlib.sha256(b"other").digest()).rstrip(b"=").decode()
    )
    _rewrite_record(wheel, "p/a.py", wrong)
    data = _audit(wheel)
    kinds = {f["kind"]: f for f in data["findings"]}
    assert "p/a.py: RECORD says " + wrong in kinds["record-mismatch"]["detail"]
    assert "platform-tag-without-native-code" in kinds
    assert data["verdicts"][0]["verdict"] == "fix"
    # --trust-record skips the hash check
    trusted = _audit(wheel, extra=("--trust-record",))
    assert "record-mismatch" not in {f["kind"] for f in trusted["findings"]}


def test_artifact_zip_and_unreadable_inputs(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "p", "1.0", files={"p/a.py": b"a"})
    artifact = make_artifact(tmp_path / "wheels.zip", [wheel])
    junk = tmp_path / "junk.whl"
    junk.write_text("not a zip")
    result = run_main(["audit", str(artifact), str(junk), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [w["path"] for w in data["wheels"]] == [f"{artifact}!{wheel.name}"]
    assert {"kind": "unreadable", "wheels": [str(junk)]}.items() <= data["findings"][0].items()
    assert {v["wheel"]: v["verdict"] for v in data["verdicts"]}[str(junk)] == "fix"
    assert "not a zip archive" in result.stderr


def test_nothing_readable_is_an_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.whl"
    junk.write_text("x")
    result = run_main(["audit", str(junk)])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("wheel-size: error: nothing to audit:")


def test_abi3_fixtures_rebuild(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed: cannot rebuild the abi3 fixtures")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        pytest.skip(f"no Python.h in {include} (python3-dev): cannot rebuild the abi3 fixtures")
    subprocess.run(
        [str(REPO_ROOT / "scripts" / "build_abi3_fixtures.sh"), str(tmp_path), sys.executable],
        check=True,
        capture_output=True,
    )
    wheel = make_wheel(
        tmp_path,
        "leaky",
        "1.0",
        "cp310-abi3-linux_x86_64",
        {"leaky/_l.abi3.so": tmp_path / "leaky.abi3.so"},
    )
    data = _audit(wheel)
    assert data["wheels"][0]["native_extensions"][0]["non_stable_symbols"] == [
        "PyCode_NewEmpty",
        "_PyBytes_Resize",
    ]


def test_audit_a_workflow_runs_artifacts(fake_github: Any, tmp_path: Path) -> None:
    make_1747_matrix(tmp_path / "m")
    run = fake_github.add_repo("pytorch/ao").add_workflow(3, "build").add_run()
    for job in sorted((tmp_path / "m").iterdir()):
        zipped = make_artifact(tmp_path / f"{job.name}.zip", sorted(job.glob("*.whl")))
        run.add_artifact(f"wheels-{job.name}", content=zipped.read_bytes())
    run.add_artifact("wheels-expired", size_in_bytes=100, expired=True)
    result = run_main(
        ["audit", "--repo", "pytorch/ao", "--run-id", str(run.id), "--format", "json"],
        env=fake_github.env(),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    cuda = f"run {run.id}/wheels-linux-cuda!torchao-0.8.0-cp39-abi3-linux_x86_64.whl"
    assert verdicts[cuda] == "keep"
    assert sorted(verdicts.values()) == ["drop"] * 5 + ["keep"] * 2
    assert "wheels-expired" in result.stderr and "expired" in result.stderr


def test_readme_shows_the_real_output(matrix_1747: Path) -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    start = readme.index("wheel-size audit artifacts\n```\n\n") + len(
        "wheel-size audit artifacts\n```\n\n"
    )
    shown = readme[start : readme.index("\n## ", start)].strip()
    result = run_main(["audit", "artifacts"], cwd=matrix_1747)
    assert result.returncode == 0, result.stderr
    fresh = result.stdout.strip().replace("\n### ", "\n#### ")
    # wheel sizes depend on the zip writer's compression; everything else must match exactly
    size = re.compile(r"\| [\d.,]+ (B|KB|MB) \|$", re.MULTILINE)
    assert size.sub("| SIZE |", shown) == size.sub("| SIZE |", fresh)


def test_accelerator_mismatch_and_grafted_runtime(tmp_path: Path) -> None:
    ext = DATA / "cuda" / "_C.abi3.so"  # links libcudart.so.13
    tag = "cp310-abi3-manylinux_2_28_x86_64"
    for sub in ("a", "b", "c"):
        (tmp_path / sub).mkdir()
    cu12 = make_wheel(tmp_path / "a", "ao", "1.0+cu128", tag, {"ao/_C.abi3.so": ext})
    rocm = make_wheel(tmp_path / "b", "ao", "1.0+rocm6.4", tag, {"ao/_C.abi3.so": ext})
    grafted = make_wheel(
        tmp_path / "c", "ao", "1.0+cu130", tag,
        {"ao/_C.abi3.so": ext, "ao.libs/libcudart-1a2b3c4d.so.13": DATA / "cuda" / "libk_v1.so"},
    )  # fmt: skip
    data = _audit(tmp_path)
    found = {(f["kind"], f["wheels"][0]): f["detail"] for f in data["findings"]}
    assert "libcudart.so.13" in found[("accelerator-mismatch", str(cu12))]
    assert "rocm6.4" in found[("accelerator-mismatch", str(rocm))]
    assert ("accelerator-mismatch", str(grafted)) not in found
    assert "ao.libs/libcudart-1a2b3c4d.so.13" in found[("grafted-runtime", str(grafted))]
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts[str(grafted)] == "fix"
    # the +cu128 and +rocm6.4 wheels hold the same bytes: one of them is redundant
    assert sorted([verdicts[str(cu12)], verdicts[str(rocm)]]) == ["drop", "fix"]


def _manifest_archs(lib: str) -> set[str]:
    """GPU architectures nvcc was asked for (tests/data/cuda/manifest.json), not our output."""
    manifest = json.loads((DATA / "cuda" / "manifest.json").read_text())
    return {
        image["arch"]
        for fatbin in manifest["libraries"][lib]["fatbinary"]
        for image in fatbin["images"]
    }


def test_arch_coverage_inside_a_wheel(tmp_path: Path) -> None:
    """libk_v1.so (sm_75, sm_80) next to libk_v2.so (sm_75 … sm_100): v1 lacks what v2 has.
    Informational: the verdict stays keep."""
    tag = "cp310-abi3-manylinux_2_28_x86_64"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    v1, v2 = DATA / "cuda" / "libk_v1.so", DATA / "cuda" / "libk_v2.so"
    uneven = make_wheel(
        tmp_path / "a", "ao", "1.0+cu130", tag, {"ao/libk_v1.so": v1, "ao/libk_v2.so": v2}
    )
    even = make_wheel(
        tmp_path / "b", "bo", "1.0+cu130", tag, {"bo/libk_v2.so": v2, "bo/libk_w2.so": v2}
    )
    data = _audit(tmp_path)
    coverage = [f for f in data["findings"] if f["kind"] == "arch-coverage"]
    assert [f["wheels"] for f in coverage] == [[str(uneven)]]
    missing = sorted(_manifest_archs("libk_v2.so") - _manifest_archs("libk_v1.so"))
    assert missing  # the fixtures differ
    assert coverage[0]["detail"].startswith("ao/libk_v1.so has no code for ")
    for arch in missing:
        assert arch in coverage[0]["detail"]
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts == {str(uneven): "keep", str(even): "keep"}
