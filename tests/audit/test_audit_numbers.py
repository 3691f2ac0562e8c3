"""Debug information and vendored libraries in the audit (issue 34, point 3): a library
built by a real compiler with ``-g`` inside a wheel is priced at what ``strip`` really
removes from the extracted copy; grafted and known runtimes are listed with their bytes, and
a library shipped in two distributions of one install set is named, while the same library in
two variants of one distribution (alternatives) is not."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel


@pytest.fixture(scope="module")
def debug_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("clang-19") or shutil.which("gcc")
    if cc is None:
        pytest.skip("neither clang-19 nor gcc is installed: no library to strip")
    folder = tmp_path_factory.mktemp("lib")
    source = "\n".join(
        f"double f{i}(double *v, int n) {{ double s = {i}; for (int k = 0; k < n; k++) "
        f"s += v[k] * {i}; return s; }}"
        for i in range(150)
    )
    (folder / "a.c").write_text(source + "\n")
    out = folder / "libdemo.so"
    subprocess.run([cc, "-g", "-O1", "-fPIC", "-shared", "-o", str(out), str(folder / "a.c")],
                   check=True)  # fmt: skip
    return out


def _matrix(root: Path, lib: Path) -> None:
    tag = "cp312-cp312-linux_x86_64"
    make_wheel(
        root / "torch-cpu",
        "torch",
        "2.10.0+cpu",
        tag,
        {"torch/lib/libtorch_demo.so": lib, "torch/lib/libgomp-a34b3233.so.1": lib},
    )
    make_wheel(
        root / "torch-rocm",
        "torch",
        "2.10.0+rocm7.0",
        tag,
        {
            "torch/lib/libtorch_demo.so": lib,
            "torch/lib/libgomp-a34b3233.so.1": lib,
            "torch/lib/librocblas.so.4": lib,
        },
    )
    make_wheel(
        root / "vision",
        "torchvision",
        "0.25.0+cpu",
        tag,
        {"torchvision/_C.so": lib, "torchvision.libs/libgomp-0f1e2d3c.so.1": lib},
    )


def test_strip_savings_and_vendored_libraries(debug_library: Path, tmp_path: Path) -> None:
    _matrix(tmp_path / "m", debug_library)
    result = run_main(["audit", str(tmp_path / "m"), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    schema = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
    jsonschema.validate(data, schema)  # strip, vendored, shipped_twice as the schema says

    # strip: the estimate against strip run on the library extracted from the wheel
    torch_cpu = next((tmp_path / "m" / "torch-cpu").glob("*.whl"))
    with zipfile.ZipFile(torch_cpu) as z:
        extracted = tmp_path / "extracted.so"
        extracted.write_bytes(z.read("torch/lib/libtorch_demo.so"))
    rows = [r for r in data["strip"] if r["wheel"].endswith(torch_cpu.name)
            and r["member"] == "torch/lib/libtorch_demo.so"]  # fmt: skip
    (row,) = rows
    for mode, key in (("--strip-debug", "strip_debug_bytes"),
                      ("--strip-unneeded", "strip_unneeded_bytes")):  # fmt: skip
        copy = tmp_path / f"copy{mode}.so"
        shutil.copy(extracted, copy)
        subprocess.run([shutil.which("strip") or "strip", mode, str(copy)], check=True)
        real = extracted.stat().st_size - copy.stat().st_size
        assert abs(row[key] - real) <= max(512, real // 50), (mode, row[key], real)

    vendored = {(Path(v["wheel"]).parent.name, v["member"]): v for v in data["vendored"]}
    gomp = vendored[("vision", "torchvision.libs/libgomp-0f1e2d3c.so.1")]
    assert gomp["library"] == "gomp" and gomp["project"] == "GNU OpenMP" and gomp["grafted"]
    assert gomp["bytes"] == debug_library.stat().st_size
    rocblas = vendored[("torch-rocm", "torch/lib/librocblas.so.4")]
    assert rocblas["project"] == "rocBLAS" and not rocblas["grafted"]
    assert ("torch-cpu", "torch/lib/libtorch_demo.so") not in vendored  # the project's own

    # libgomp in torch and in torchvision: twice; in two torch variants only: not
    (group,) = data["shipped_twice"]
    assert {Path(c["wheel"]).parent.name for c in group} == {"torch-cpu", "torch-rocm", "vision"}

    markdown = run_main(["audit", str(tmp_path / "m")]).stdout
    assert "### Debug information and symbol tables" in markdown
    assert "### Vendored libraries" in markdown
    # torch+cpu and torch+rocm are alternatives: one install holds torch's copy and
    # torchvision's, not three (the sum of all three overstated what an install carries)
    size = debug_library.stat().st_size
    line = next(ln for ln in markdown.splitlines() if ln.startswith("- GNU OpenMP:"))
    assert line.startswith("- GNU OpenMP: 2 copies in one install (torch, torchvision), ")
    assert "found 3 times across these wheels" in line and "3 copies" not in line
    assert f"{2 * size / 1024:.1f} KB" in line and f"{3 * size / 1024:.1f} KB" not in line


def test_one_distribution_in_several_variants_ships_nothing_twice(
    debug_library: Path, tmp_path: Path
) -> None:
    tag = "cp312-cp312-linux_x86_64"
    for variant in ("cpu", "cu128"):
        make_wheel(tmp_path / "m" / variant, "torch", f"2.10.0+{variant}", tag,
                   {"torch/lib/libgomp-a34b3233.so.1": debug_library})  # fmt: skip
    data = json.loads(run_main(["audit", str(tmp_path / "m"), "--format", "json"]).stdout)
    assert len(data["vendored"]) == 2 and "shipped_twice" not in data


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        ("torch/lib/libgomp-a34b3233.so.1", ("gomp", True)),
        ("numpy.libs/libopenblas64_p-r0-0cf96a72.3.23.dev.so", ("openblas64_p-r0", True)),
        ("scipy.libs/libgfortran-040039e1.so.5.0.0", ("gfortran", True)),
        ("onnx.libs/msvcp140-1d6a6f5a6a1b4bd7a39bd9e3c3e3d2c4.dll", ("msvcp140", True)),
        ("torch/lib/librocblas.so.4", ("rocblas", False)),
        ("torch/lib/libiomp5md.dll", ("iomp5md", False)),
        ("pkg/.dylibs/libomp.dylib", ("omp", True)),
        ("torch/_C.cpython-312-x86_64-linux-gnu.so", ("_c", False)),
        ("torch/lib/libtorch_cuda.so", ("torch_cuda", False)),
        ("torch/__init__.py", None),
    ],
)
def test_canonical_names(member: str, expected: tuple[str, bool] | None) -> None:
    from wheel_size.audit.vendored import canonical

    assert canonical(member) == expected
