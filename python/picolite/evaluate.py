"""Dataset evaluation: many samples through one interpreter per worker, in input order.

    outputs = picolite.evaluate("model.tflite", x_test)          # x_test: (N, 28, 28, 1)
    accuracy = (outputs[0].argmax(-1) == y_test).mean()

Each worker owns an interpreter with its own arena and runs its chunk of samples in one C
call with the GIL released (``Interpreter.invoke_batch``), so threads scale with the cores.
Any ``concurrent.futures.Executor`` can run the chunks, a Dask ``Client`` too (its tasks
build their interpreter once per worker process), so a data set spreads over a cluster.
"""

from __future__ import annotations

import collections
import hashlib
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from picolite._errors import Error
from picolite._model import ModelLike, read_model
from picolite._unified import Interpreter
from picolite._batch import as_input_list, run_batch, sample_layout, stacked_shape

# (model digest, options) -> Interpreter, per thread: an interpreter is never shared.
_local = threading.local()

# One thread pool per worker count, kept: its threads keep their interpreters (weights
# verified and packed once), so evaluating again, or a model in epochs, pays no set-up.
_pools: Dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()

_KEPT_INTERPRETERS = 4  # per thread
_CHUNKS_PER_WORKER = 8  # enough chunks to balance uneven workers and to show progress
_MAX_CHUNK = 512


def _cpu_count() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _pool(workers: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix="picolite-evaluate")
        return pool


def _options_key(options: Dict[str, Any]) -> Tuple:
    """The options as a cache key: values by equality where they are hashable, by identity
    where not (custom_ops={name: op}: the cached interpreter holds the operators, so an
    identity stays theirs while it is cached)."""
    def part(value: Any) -> Any:
        if isinstance(value, dict):
            return ("dict", tuple(sorted((repr(k), part(v)) for k, v in value.items())))
        try:
            hash(value)
        except TypeError:
            return ("id", id(value))
        return value

    return tuple(sorted((k, part(v)) for k, v in options.items()))


def _interpreter(key: Tuple[str, Tuple], content: bytes, options: Dict[str, Any]):
    """This thread's interpreter for the model and options: the most recent few are kept
    (the pool's threads live on, so an unbounded cache would hold every model evaluated)."""
    cache = getattr(_local, "interpreters", None)
    if cache is None:
        cache = _local.interpreters = collections.OrderedDict()
    it = cache.get(key)
    if it is None:
        it = Interpreter(model_content=content, **options)
        it.allocate_tensors()
        cache[key] = it
        while len(cache) > _KEPT_INTERPRETERS:
            cache.popitem(last=False)[1].close()
    cache.move_to_end(key)
    return it


def _run_chunk(key, content, options, start, arrays):
    """One worker's task: the outputs of samples start.. of arrays (picklable for process
    and cluster executors). A runtime error names the failing sample in the whole set."""
    it = _interpreter(key, content, options)
    try:
        return run_batch(it, arrays, independent=True)
    except Error as e:
        if hasattr(e, "sample"):
            e.sample += start
        raise


def _progress_bar(progress: Optional[bool], total: int, chunks: int):
    if progress is False or (progress is None and (chunks < 2 or total < 1000)):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            raise ImportError("progress=True needs tqdm: pip install tqdm") from None
        return None
    return tqdm(total=total, unit="sample", desc="picolite.evaluate")


def evaluate(model: ModelLike, inputs: Any, *, workers: Optional[int] = None,
             executor: Any = None, chunk_size: Optional[int] = None,
             progress: Optional[bool] = None, **options: Any) -> List[np.ndarray]:
    """Runs every sample of ``inputs`` through ``model`` and returns one stacked array per
    model output, in input order.

    ``inputs``: an array (one-input models), a list of arrays in input order, or a dict by
    input name; each holds N samples, as ``(N, *shape)`` or, for a batch dimension of 1,
    ``(N, *shape[1:])`` (outputs then drop theirs too). dtypes must match the model's.
    ``workers``: interpreters run at once (default: the usable cores); ``executor``: any
    ``concurrent.futures.Executor`` or Dask ``Client`` to run the chunks on instead of a
    thread pool. ``progress``: a tqdm bar (None: on long runs when tqdm is installed).
    Other keywords (``planner``, ``arena_size``, ...) go to each worker's Interpreter.
    Samples are independent: a stateful model is reset before each one, so the result does
    not depend on chunks or workers (run a stream through ``Interpreter.invoke_batch``).
    A runtime error is raised with ``.sample``, the index of the sample that failed.
    """
    content = read_model(model)
    probe = Interpreter(model_content=content, **options)
    probe.allocate_tensors()
    in_details, out_details = probe.get_input_details(), probe.get_output_details()
    arrays = as_input_list(inputs, in_details)
    n, squeezed = sample_layout(in_details, arrays)
    workers = _cpu_count() if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if chunk_size is None:
        chunk_size = min(_MAX_CHUNK, max(1, math.ceil(n / (workers * _CHUNKS_PER_WORKER))))
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    outputs = [np.empty((n,) + stacked_shape(d, squeezed), dtype=d["dtype"])
               for d in out_details]
    key = (hashlib.sha256(content).hexdigest(), _options_key(options))
    starts = list(range(0, n, chunk_size))
    bar = _progress_bar(progress, n, len(starts))
    if executor is None and workers > 1 and len(starts) > 1:
        executor = _pool(workers)
    futures = None
    try:
        if executor is None:
            results = (_run_chunk(key, content, options, s, [a[s:s + chunk_size]
                                                              for a in arrays])
                       for s in starts)
        else:
            futures = [executor.submit(_run_chunk, key, content, options, s,
                                       [np.ascontiguousarray(a[s:s + chunk_size])
                                        for a in arrays]) for s in starts]
            results = (f.result() for f in futures)
        for s, chunk in zip(starts, results):
            for out, part in zip(outputs, chunk):
                out[s:s + len(part)] = part
            if bar is not None:
                bar.update(len(chunk[0]) if chunk else 0)
    finally:
        if bar is not None:
            bar.close()
        for f in futures or ():  # after an error: the chunks not started yet do not run
            f.cancel()
    return outputs
