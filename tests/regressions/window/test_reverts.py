from __future__ import annotations

from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.reverts import remove_revert_pairs, revert_target


def c(sha: str, message: str) -> Commit:
    return Commit(sha=sha * 40 if len(sha) == 1 else sha, message=message)


def test_pair_by_subject_is_removed() -> None:
    a = c("a", "Add fused kernel (#10)")
    b = c("b", "Unrelated (#11)")
    r = c("c", 'Revert "Add fused kernel (#10)"\n\nReverted on behalf of someone')
    kept, pairs = remove_revert_pairs([a, b, r])
    assert kept == [b]
    assert [(p.original, p.revert) for p in pairs] == [(a, r)]


def test_pair_by_body_sha_is_removed_even_with_another_title() -> None:
    a = c("a", "Add fused kernel (#10)")
    r = c("c", f"Back out the kernel\n\nThis reverts commit {'a' * 12}.")
    kept, pairs = remove_revert_pairs([a, r])
    assert kept == []
    assert pairs[0].original is a


def test_revert_of_commit_outside_the_window_stays() -> None:
    b = c("b", "Unrelated")
    r = c("c", f'Revert "Old change"\n\nThis reverts commit {"9" * 40}.')
    kept, pairs = remove_revert_pairs([b, r])
    assert kept == [b, r]
    assert pairs == []


def test_sha_outside_window_does_not_fall_back_to_a_reland_with_the_same_title() -> None:
    reland = c("a", "Add kernel")
    r = c("c", f'Revert "Add kernel"\n\nThis reverts commit {"9" * 40}.')
    kept, pairs = remove_revert_pairs([reland, r])
    assert kept == [reland, r] and pairs == []


def test_revert_of_revert_reland_stays() -> None:
    a = c("a", "Add kernel")
    r1 = c("b", f'Revert "Add kernel"\n\nThis reverts commit {"a" * 40}.')
    r2 = c("c", f'Revert "Revert "Add kernel""\n\nThis reverts commit {"b" * 40}.')
    kept, pairs = remove_revert_pairs([a, r1, r2])
    assert [(p.original, p.revert) for p in pairs] == [(a, r1)]
    assert kept == [r2]


def test_a_revert_before_its_original_is_not_paired() -> None:
    r = c("c", 'Revert "Add kernel"')
    a = c("a", "Add kernel")
    kept, pairs = remove_revert_pairs([r, a])
    assert pairs == [] and kept == [r, a]


def test_two_landings_two_reverts() -> None:
    a1 = c("a", "Add kernel")
    r1 = c("b", 'Revert "Add kernel"')
    a2 = c("d", "Add kernel")
    r2 = c("e", 'Revert "Add kernel"')
    kept, pairs = remove_revert_pairs([a1, r1, a2, r2])
    assert kept == []
    assert [(p.original, p.revert) for p in pairs] == [(a1, r1), (a2, r2)]


def test_revert_target() -> None:
    assert revert_target(c("a", "Add kernel")) is None
    target = revert_target(c("a", 'Revert "X (#1)"\n\nThis reverts commit ABCDEF1.'))
    assert target is not None
    assert target.title == "X (#1)" and target.sha == "abcdef1"
