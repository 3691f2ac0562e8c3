"""Regression issues: from a size jump to the commits that could have caused it.

Small modules, one job each: ``nightly`` reads nightly commit messages, ``window`` lists
the commits between two nightlies, ``reverts`` drops net-zero pairs, ``classify`` ranks
what is left, ``evidence`` reads the other variants, ``events`` and ``creep`` decide what
is an event, ``investigation`` puts it together, ``issue_body`` renders it and
``issue_sync`` keeps one GitHub issue per event.
"""
