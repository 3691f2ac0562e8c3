"""The bracket of a step from a sparse size series (issue 28 item 2): plain data in, plain
data out."""

from __future__ import annotations

from wheel_size.regressions.builds.bracket import BASE, BuildPoint, bracket_steps

MB = 1 << 20
SHAS = [f"{i:x}" * 40 for i in range(1, 11)]


def point(i: int, size: float | None, conclusion: str = "success") -> BuildPoint:
    sha = "0" * 40 if i == BASE else SHAS[i]
    return BuildPoint(sha, None if size is None else int(size * MB), conclusion, i, "", f"b{i}")


def test_drift_below_the_noise_that_adds_up_is_one_step() -> None:
    builds = [point(1, 100.1), point(3, 100.2), point(5, 100.3), point(7, 100.4)]
    result = bracket_steps(SHAS, builds, noise_bytes=int(0.25 * MB), base=point(BASE, 100.0))
    assert [(b.first_index, b.last_index) for b in result.brackets] == [(4, 5)]


def test_a_step_back_is_its_own_bracket_with_its_sign() -> None:
    builds = [point(2, 100.0), point(3, 105.0), point(6, 105.0), point(7, 101.0)]
    result = bracket_steps(SHAS, builds, noise_bytes=MB // 10)
    assert [(b.first_index, b.last_index, round(b.delta / MB)) for b in result.brackets] == [
        (3, 3, 5),
        (7, 7, -4),
    ]
    # Commits before the first build and after the last have only one side.
    assert result.coverage[0].before is None and result.coverage[9].after is None


def test_log_sizes_are_not_compared_with_artifact_sizes() -> None:
    log = BuildPoint(SHAS[4], 200 * MB, "success", 9, "", "log", kind="wheel")
    builds = [point(2, 100.0), log, point(6, 100.0)]
    result = bracket_steps(SHAS, builds, noise_bytes=MB // 10)
    assert result.brackets == ()
    assert result.of(SHAS[4]) is not None and result.of(SHAS[4]).before_index == 2  # type: ignore[union-attr]


def test_a_window_of_one_commit_between_the_nightlies_is_a_one_commit_bracket() -> None:
    result = bracket_steps(
        SHAS[:1], [], noise_bytes=MB // 10, base=point(BASE, 100.0), head=point(0, 104.0)
    )
    assert len(result.brackets) == 1 and result.brackets[0].single


def test_an_empty_window_has_no_bracket() -> None:
    result = bracket_steps([], [point(BASE, 1.0)], noise_bytes=0, base=point(BASE, 1.0))
    assert result.brackets == () and result.coverage == ()
