"""num_threads: the host fast paths split an invoke's large CONV_2D, DEPTHWISE_CONV_2D,
FULLY_CONNECTED, ADD, SUB, MUL and float PRELU, LOGISTIC and TANH over worker threads
(csrc/fast/threads.c). Each output is computed as on one thread, so every
byte equals the single-threaded run's and the portable kernels'; the arena figures are the
target's, whatever the threads. The C tests (test_fast, test_fast_depthwise) split every job
of random cases; here, whole models."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import picolite
from picolite import interpreter as tfl
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]
NETS = sorted((ROOT / "tests" / "models").glob("net_*.tflite"))
FAST_SETS = [k for k in picolite.kernel_sets() if k != "portable"]
needs_fast = pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")


def outputs(it, inputs, runs=2):
    details = it.get_input_details()
    for _ in range(runs):  # state (variables) steps the same in every interpreter
        for d, x in zip(details, inputs):
            it.set_tensor(d["index"], x)
        it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


@needs_fast
@pytest.mark.parametrize("kernels", FAST_SETS)
@pytest.mark.parametrize("path", NETS, ids=lambda p: p.stem)
def test_threads_give_one_threads_bytes(path, kernels):
    one = picolite.Interpreter(model_path=str(path), kernels=kernels)
    three = picolite.Interpreter(model_path=str(path), kernels=kernels, num_threads=3)
    portable = picolite.Interpreter(model_path=str(path), kernels="portable")
    for it in (one, three, portable):
        it.allocate_tensors()
    inputs = random_inputs(one.get_input_details(), seed=7)
    want = outputs(portable, inputs)
    assert three.num_threads == 3
    for got in (outputs(one, inputs), outputs(three, inputs)):
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    assert three.arena_used_bytes() == one.arena_used_bytes() == portable.arena_used_bytes()


@needs_fast
def test_a_large_model_splits_its_convolutions():
    """ResNet-like (32x32 convolutions): its CONV_2D jobs are large enough to split, so the
    threads did run (the byte test above would pass on one thread too)."""
    path = ROOT / "tests" / "models" / "net_resnet_like_int8.tflite"
    it = picolite.Interpreter(model_path=str(path), num_threads=2)
    it.allocate_tensors()
    assert it._c.parallel_jobs == 0
    outputs(it, random_inputs(it.get_input_details(), seed=1), runs=1)
    assert it._c.parallel_jobs > 0
    single = picolite.Interpreter(model_path=str(path))
    single.allocate_tensors()
    outputs(single, random_inputs(single.get_input_details(), seed=1), runs=1)
    assert single._c.parallel_jobs == 0


def test_portable_kernels_run_on_one_thread():
    it = picolite.Interpreter(model_path=str(NETS[0]), kernels="portable", num_threads=4)
    assert it.num_threads == 1


@pytest.mark.parametrize("value,error", [(0, ValueError), (65, ValueError), (-1, ValueError),
                                         (2.0, TypeError), (True, TypeError), ("2", TypeError)])
def test_num_threads_is_checked(value, error):
    with pytest.raises(error, match="num_threads"):
        picolite.Interpreter(model_path=str(NETS[0]), num_threads=value)


@needs_fast
def test_litert_surface_passes_num_threads():
    """LiteRT's keyword: None is one thread; a count above picolite's 64 runs on 64."""
    path = str(NETS[0])
    assert tfl.Interpreter(model_path=path).num_threads == 1
    assert tfl.Interpreter(model_path=path, num_threads=2).num_threads == 2
    assert tfl.Interpreter(model_path=path, num_threads=200).num_threads == 64


@needs_fast
def test_resize_keeps_the_threads():
    path = ROOT / "tests" / "models" / "net_resnet_like_int8.tflite"
    it = picolite.Interpreter(model_path=str(path), num_threads=2)
    shape = it.get_input_details()[0]["shape"].copy()
    shape[0] = 2
    it.resize_tensor_input(0, shape)
    it.allocate_tensors()
    assert it.num_threads == 2


@needs_fast
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_runs_on_its_own_thread():
    """A forked child has no workers (fork copies one thread): its jobs run on the caller,
    instead of waiting for threads that do not exist."""
    script = textwrap.dedent(f"""
        import os, sys, numpy as np, picolite
        from picolite.testing import random_inputs
        it = picolite.Interpreter(model_path={str(NETS[-1])!r}, num_threads=2)
        it.allocate_tensors()
        d = it.get_input_details()
        x = random_inputs(d, seed=3)
        def run():
            for di, xi in zip(d, x):
                it.set_tensor(di["index"], xi)
            it.invoke()
            return it.get_tensor(it.get_output_details()[0]["index"]).tobytes()
        parent = run()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if run() == parent else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
