"""The project quota in the audit of a matrix (issue 34, point 4), against a package index on
127.0.0.1 in PyPI's JSON shape: the stored total is the sum of the fixture index's files (as
the file system counts them), the release set is the wheels the audit keeps, and an index
that times out is one line with the rest of the report intact."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from pypi_fixture import FixtureIndex
from wheel_factory import make_wheel

GIB = 1 << 30


@pytest.fixture
def index_root(tmp_path: Path) -> Path:
    """Three releases of ``demo`` on the index (wheels and an sdist of random bytes)."""
    root = tmp_path / "index"
    root.mkdir()
    rnd = random.Random(5)
    for version in ("0.1.0", "0.2.0", "0.3.0"):
        for name in (f"demo-{version}-py3-none-any.whl", f"demo-{version}.tar.gz"):
            (root / name).write_bytes(rnd.randbytes(rnd.randrange(20_000, 90_000)))
    return root


def _matrix(tmp_path: Path) -> list[Path]:
    out = tmp_path / "matrix"
    return [
        make_wheel(out / "cpu", "demo", "0.4.0", "py3-none-any", {"demo/a.py": b"x = 1\n" * 999}),
        make_wheel(out / "linux", "demo", "0.4.0", "cp312-cp312-linux_x86_64",
                   {"demo/_c.so": random.Random(1).randbytes(30_000)}),
    ]  # fmt: skip


def _audit(tmp_path: Path, url: str, *extra: str) -> tuple[int, dict[str, object], str, str]:
    base = ["audit", str(tmp_path / "matrix"), "--quota-project", "demo", "--quota-index", url]
    done = run_main([*base, "--format", "json", *extra])
    markdown = run_main([*base, *extra])
    return done.returncode, json.loads(done.stdout or "{}"), markdown.stdout, done.stderr


def test_quota_is_the_index_total_plus_the_kept_wheels(index_root: Path, tmp_path: Path) -> None:
    wheels = _matrix(tmp_path)
    with FixtureIndex(index_root).serving() as url:
        status, data, markdown, stderr = _audit(tmp_path, url, "--quota-limit-gb", "0.0002")
    assert status == 0, stderr
    quota = data["quota"]
    assert isinstance(quota, dict)
    stored = sum(p.stat().st_size for p in index_root.iterdir())  # the independent sum
    assert quota["stored_bytes"] == stored
    assert quota["stored_files"] == 6 and quota["releases"] == 3
    kept = [v["wheel"] for v in data["verdicts"] if v["verdict"] == "keep"]  # type: ignore[attr-defined]
    assert kept and set(kept) <= {str(w) for w in wheels}
    assert quota["new_bytes"] == sum(Path(k).stat().st_size for k in kept)  # the kept set
    limit = round(0.0002 * GIB)
    assert quota["headroom_bytes"] == limit - stored - quota["new_bytes"]
    assert "### Project quota" in markdown and "`demo` holds" in markdown
    assert quota["headroom_bytes"] < 0  # 0.0002 GiB is about 215 KB: the set does not fit
    assert "the upload would fail" in markdown
    schema = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
    jsonschema.validate(data, schema)  # the quota as the audit's schema describes it


def test_a_file_already_on_the_index_is_not_counted_twice(index_root: Path, tmp_path: Path) -> None:
    _matrix(tmp_path)
    with FixtureIndex(index_root).serving() as url:
        _, first, _, _ = _audit(tmp_path, url)
        kept = [Path(v["wheel"]) for v in first["verdicts"] if v["verdict"] == "keep"]  # type: ignore[attr-defined]
        shutil.copy(kept[0], index_root / kept[0].name)  # already uploaded
        status, data, _, stderr = _audit(tmp_path, url)
    assert status == 0, stderr
    quota = data["quota"]
    assert isinstance(quota, dict)
    assert quota["already_uploaded"] == [kept[0].name]
    assert quota["new_bytes"] == sum(k.stat().st_size for k in kept[1:])
    assert quota["stored_bytes"] == sum(p.stat().st_size for p in index_root.iterdir())
    assert quota["limit_bytes"] == 10 * GIB  # PyPI's default


def test_an_index_that_times_out_is_one_line(index_root: Path, tmp_path: Path) -> None:
    _matrix(tmp_path)
    with FixtureIndex(index_root, delay=1.5).serving() as url:
        status, data, markdown, stderr = _audit(tmp_path, url, "--quota-timeout", "0.3")
    assert status == 0
    assert data["quota"] is None
    assert data["quota_error"] == f"{url}/pypi/demo/json: no answer within 0.3 s"
    assert "Quota unknown:" in markdown and "no answer within 0.3 s" in markdown
    assert "### Project quota" in markdown and data["wheels"]  # the rest of the report intact
    (line,) = [x for x in stderr.splitlines() if "quota" in x]
    assert "no answer within 0.3 s" in line


def test_an_unknown_project_is_one_line(index_root: Path, tmp_path: Path) -> None:
    _matrix(tmp_path)
    with FixtureIndex(index_root).serving() as url:
        result = run_main(
            ["audit", str(tmp_path / "matrix"), "--quota-project", "nothere",
             "--quota-index", url, "--format", "json"]
        )  # fmt: skip
    assert result.returncode == 0
    assert json.loads(result.stdout)["quota_error"].endswith("no such project")


def test_without_releases_the_simple_json_api_gives_the_files(
    index_root: Path, tmp_path: Path
) -> None:
    """PyPI calls the JSON API's ``releases`` deprecated: the simple API as JSON (PEP 691,
    sizes from PEP 700) gives the same total."""
    _matrix(tmp_path)
    fixture = FixtureIndex(index_root, releases=False)
    with fixture.serving() as url:
        status, data, _, stderr = _audit(tmp_path, url)
    assert status == 0, stderr
    quota = data["quota"]
    assert isinstance(quota, dict)
    assert quota["stored_bytes"] == sum(p.stat().st_size for p in index_root.iterdir())
    assert quota["releases"] == 3 and quota["stored_files"] == 6
    assert any(r.startswith("/simple/demo") for r in fixture.requests)
