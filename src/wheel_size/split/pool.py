"""The process pool the split's waves run on (libraries, wheels).

One process (``--jobs 1``, or work too small to pay for a pool: :func:`wheel_size.split.jobs.
pool_workers`) runs every job here, one after the other, progress counted after each; more
forks a pool once for the whole split. Jobs and results are small picklable descriptions
(:mod:`wheel_size.split.work`); the first failing job cancels the others (in one process:
the jobs after it never start) and its error is raised as it is. ``multiprocessing`` is
imported only for a pool.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Executor, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from wheel_size.progress import Progress

__all__ = ["Timed", "pool", "run_jobs"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Timed(Generic[T, R]):
    """``fn`` that also returns the seconds it took in the worker (picklable for the pool)."""

    fn: Callable[[T], R]

    def __call__(self, job: T) -> tuple[R, float]:
        start = time.perf_counter()
        result = self.fn(job)
        return result, time.perf_counter() - start


class _Inline(Executor):
    """One process: run here (simpler tracebacks, no fork). An interrupt (Ctrl-C, SIGTERM's
    SystemExit) is not kept for later: it ends the split at once, as in a pool."""

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        future: Future[R] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


@contextmanager
def pool(jobs: int) -> Iterator[Executor]:
    """An executor of ``jobs`` processes (inline for one)."""
    if jobs <= 1:
        yield _Inline()
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method)) as executor:
        try:
            yield executor
        except BaseException:
            executor.shutdown(cancel_futures=True)
            raise


def run_jobs(
    executor: Executor,
    fn: Callable[[T], R],
    jobs: Sequence[T],
    progress: Progress,
    weight: Callable[[T], float],
    then: Callable[[], object] | None = None,
    order: Callable[[T], float] | None = None,
) -> list[R]:
    """Run ``fn`` over ``jobs``; results in job order; the first failure is raised. ``then``
    runs once every job is submitted (to queue more work behind them); in one process, once
    every job has run. With ``order``, a pool is handed the jobs largest first by it (ties
    in job order), so the wave does not end on one large job with the other workers idle;
    one process runs them in job order (its first failing job is the first in order)."""
    if isinstance(executor, _Inline):
        results = []
        for job in jobs:
            results.append(fn(job))
            progress.advance(weight(job))
        if then is not None:
            then()
        return results
    queue = list(range(len(jobs)))
    if order is not None:
        sizes = [order(job) for job in jobs]
        queue.sort(key=lambda i: -sizes[i])
    submitted = {i: executor.submit(fn, jobs[i]) for i in queue}
    futures = [submitted[i] for i in range(len(jobs))]
    if then is not None:
        then()
    weights = {id(f): weight(j) for f, j in zip(futures, jobs, strict=True)}
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_EXCEPTION)
        for future in done:
            if future.exception() is None:
                progress.advance(weights[id(future)])
            else:
                for other in pending:
                    other.cancel()
                raise future.exception()  # type: ignore[misc]
    return [f.result() for f in futures]
