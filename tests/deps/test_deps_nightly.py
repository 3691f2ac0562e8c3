"""The whole download per night (issue 34, point 5: ``track --deps``), against the fake GitHub
and a fixture index on 127.0.0.1: each new night's wheel is resolved and stored under
``deps/``; when only a dependency's pin moves (the wheel is the same file), the night is its
own event naming the dependency, both versions and the bytes."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from pathlib import Path

from fakegithub import FakeGitHub
from installed_fixtures import unzip_total
from nightly_world import WORKFLOW_ID, add_world
from pypi_fixture import FixtureIndex, dep_wheel
from wheel_size.collect import WorkflowSource
from wheel_size.collect.installed import InstalledOptions
from wheel_size.dates import DateRange
from wheel_size.deps.nightly import NightlyDeps
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore
from wheel_size.track import TrackOptions, track

SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")
D1, D2 = dt.date(2025, 10, 1), dt.date(2025, 10, 2)


def _artifact(wheel: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(wheel, wheel.name)
    return buffer.getvalue()


def test_a_pin_that_moves_the_download_is_its_own_event(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    dep_wheel(index, "blob", "1.0.0", payload=10_000)
    wheel = dep_wheel(tmp_path / "dist", "torch", "2.10.0", requires=("blob>=1",), payload=5_000)
    wf = add_world(fake_github)
    for day in (D1, D2):
        run = wf.add_run(
            created_at=f"{day}T07:30:00Z", head_sha=f"{day.day:040x}", head_branch="nightly",
            message=f"{day} nightly release ({'b' * 40})", conclusion="success",
        )  # fmt: skip
        run.add_artifact("manywheel-py3_12-cpu", content=_artifact(wheel))
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=RetryPolicy(total=0)))
    store = DirectoryStore(tmp_path / "h")
    with FixtureIndex(index).serving() as url:
        deps = NightlyDeps(index_url=f"{url}/simple")
        first = TrackOptions(
            SOURCE, periods=[DateRange(D1, D1)], variants=("cpu",), deps=deps,
            installed=InstalledOptions(),
        )  # fmt: skip
        assert track(store, first, github=gh, today=D1).deps_events == []
        # installed size came from the download --deps made: one blob request, no ranged read
        assert fake_github.count(path_regex=r"/_blobs/") == 1
        (record,) = (store.root / "runs").rglob("*.json")
        (artifact,) = json.loads(record.read_text())["artifacts"]
        assert artifact["installed_bytes"] == unzip_total(wheel)
        dep_wheel(index, "blob", "2.0.0", payload=3_000_000)  # released overnight: +2.9 MB
        second = TrackOptions(SOURCE, periods=[DateRange(D2, D2)], variants=("cpu",), deps=deps)
        result = track(store, second, github=gh, today=D2)

    stored = {p.name: json.loads(p.read_text()) for p in (store.root / "deps" / "cpu").iterdir()}
    assert sorted(stored) == ["2025-10-01.json", "2025-10-02.json"]
    one, two = stored["2025-10-01.json"]["set"], stored["2025-10-02.json"]["set"]
    blob1 = (index / "blob-1.0.0-py3-none-any.whl").stat().st_size
    blob2 = (index / "blob-2.0.0-py3-none-any.whl").stat().st_size
    assert one["total_bytes"] == wheel.stat().st_size + blob1
    assert two["total_bytes"] == wheel.stat().st_size + blob2
    (event,) = result.deps_events
    assert event.startswith("the whole download of cpu moved +")
    assert "blob 1.0.0 → 2.0.0" in event and str(D1) in event
    assert event in result.warnings
