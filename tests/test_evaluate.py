"""picolite.evaluate and Interpreter.invoke_batch: the same outputs as invoke() in a loop,
in input order, whatever the workers, chunks and executors."""

import concurrent.futures
import sys

import numpy as np
import pytest

import picolite
from conftest import ZOO, in_ci, require
from picolite.testing import random_inputs

CNN = ZOO / "net_cnn_int8.tflite"
ADD = ZOO / "add_bcast_4d_float32.tflite"  # two inputs
LSTM = ZOO / "net_lstm_float32.tflite"  # variable tensors: state between invokes


def samples(path, n, seed=0):
    it = picolite.Interpreter(str(path))
    it.allocate_tensors()
    details = it.get_input_details()
    per_input = [[] for _ in details]
    for k in range(n):
        for i, x in enumerate(random_inputs(details, seed=seed + k)):
            per_input[i].append(x)
    return [np.concatenate(xs) for xs in per_input]  # (n, *shape[1:]) when batch is 1


def one_by_one(path, arrays, reset=True):
    it = picolite.Interpreter(str(path))
    it.allocate_tensors()
    outs = [[] for _ in it.get_output_details()]
    for k in range(len(arrays[0])):
        if reset:
            it.reset()
        for d, a in zip(it.get_input_details(), arrays):
            it.set_tensor(d["index"], a[k:k + 1].reshape(d["shape"]))
        it.invoke()
        for o, d in zip(outs, it.get_output_details()):
            o.append(it.get_tensor(d["index"]))
    return [np.concatenate(o) for o in outs]


@pytest.mark.parametrize("workers", [1, 2])
def test_evaluate_equals_invoke_in_a_loop(workers):
    x = samples(CNN, 37)
    got = picolite.evaluate(str(CNN), x[0], workers=workers, chunk_size=5)
    want = one_by_one(CNN, x)
    assert len(got) == 1 and got[0].shape == want[0].shape
    assert got[0].tobytes() == want[0].tobytes()


def test_evaluate_keeps_the_batch_dimension_when_given():
    x = samples(CNN, 6)[0]
    full = picolite.evaluate(str(CNN), x[:, None], workers=2, chunk_size=2)[0]
    squeezed = picolite.evaluate(str(CNN), x, workers=1)[0]
    assert full.shape == (6, 1) + squeezed.shape[1:]
    assert full.tobytes() == squeezed.tobytes()


def test_evaluate_takes_inputs_as_list_or_dict():
    x = samples(ADD, 9)
    names = [d["name"] for d in picolite.Interpreter(str(ADD)).get_input_details()]
    by_list = picolite.evaluate(str(ADD), x, workers=2, chunk_size=4)[0]
    by_dict = picolite.evaluate(str(ADD), dict(zip(names, x)), workers=1)[0]
    np.testing.assert_array_equal(by_list, by_dict)
    np.testing.assert_array_equal(by_list, one_by_one(ADD, x)[0])


def test_evaluate_treats_samples_of_a_stateful_model_as_independent():
    x = samples(LSTM, 8)
    got = picolite.evaluate(str(LSTM), x, workers=2, chunk_size=3)[0]
    np.testing.assert_array_equal(got, one_by_one(LSTM, x, reset=True)[0])


def test_invoke_batch_carries_state_like_invoke_in_a_loop():
    x = samples(LSTM, 5)
    it = picolite.Interpreter(str(LSTM))
    it.allocate_tensors()
    got = it.invoke_batch(x)[0]
    np.testing.assert_array_equal(got, one_by_one(LSTM, x, reset=False)[0])


def test_evaluate_runs_on_a_callers_executor():
    x = samples(CNN, 11)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        got = picolite.evaluate(str(CNN), x, executor=pool, chunk_size=2)[0]
    assert got.tobytes() == one_by_one(CNN, x)[0].tobytes()


def test_evaluate_keeps_a_few_interpreters_per_thread():
    """The kept pool's threads live on: each keeps only its most recent interpreters (closed
    when dropped), so a session evaluating many models does not hold them all."""
    module = sys.modules["picolite.evaluate"]  # the package's name is the function

    arrays = samples(CNN, 4)
    want = one_by_one(CNN, arrays)
    variants = [dict(planner=p, kernels=k) for p in ("greedy", "linear", "bestfit")
                for k in ("auto", "portable")]
    for options in variants:  # workers=1 runs in this thread
        got = picolite.evaluate(str(CNN), arrays, workers=1, **options)
        assert np.array_equal(got[0], want[0])
    kept = module._local.interpreters
    assert len(kept) == module._KEPT_INTERPRETERS < len(variants)
    assert all(not it._c.closed for it in kept.values())


def test_evaluate_of_no_samples_is_empty():
    x = samples(CNN, 1)[0][:0]
    out = picolite.evaluate(str(CNN), x)[0]
    assert out.shape[0] == 0


@pytest.mark.parametrize("bad, message", [
    (lambda x: x.astype(np.float32), "expects int8"),
    (lambda x: x[:, :5], "fit neither"),
])
def test_evaluate_refuses_wrong_samples(bad, message):
    x = samples(CNN, 3)[0]
    with pytest.raises(ValueError, match=message):
        picolite.evaluate(str(CNN), bad(x))


def test_invoke_batch_refuses_inputs_of_different_lengths():
    a, b = samples(ADD, 4)
    it = picolite.Interpreter(str(ADD))
    it.allocate_tensors()
    with pytest.raises(ValueError, match="samples"):
        it.invoke_batch([a, b[:3]])


def test_invoke_batch_is_refused_while_a_view_is_alive():
    x = samples(CNN, 2)[0]
    it = picolite.Interpreter(str(CNN))
    it.allocate_tensors()
    view = it.tensor(it.get_input_details()[0]["index"])()
    with pytest.raises(picolite.StateError):
        it.invoke_batch(x)
    del view
    assert it.invoke_batch(x)[0].shape[0] == 2


def test_evaluate_on_a_dask_local_cluster():
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        if in_ci():
            pytest.fail("dask[distributed] is not installed (pip install '.[test]')")
        pytest.skip("dask[distributed] is not installed (pip install 'picolite[dask]')")
    x = samples(CNN, 20)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        got = picolite.evaluate(str(CNN), x, executor=client.get_executor(), chunk_size=3)[0]
    assert got.tobytes() == one_by_one(CNN, x)[0].tobytes()


def test_evaluate_shows_progress_with_tqdm(capsys):
    require("tqdm")
    x = samples(CNN, 12)
    picolite.evaluate(str(CNN), x, workers=2, chunk_size=4, progress=True)
    assert "12/12" in capsys.readouterr().err


def test_evaluate_takes_python_custom_operators():
    """custom_ops={name: op} is a dict: it raised TypeError: unhashable type: 'dict'."""
    from test_python_custom_ops import TimesTwo, custom_then_add

    x = np.arange(24, dtype=np.float32).reshape(6, 1, 4)
    ops = {"TimesTwo": TimesTwo()}
    for workers in (1, 2):
        y, = picolite.evaluate(custom_then_add(), x, workers=workers, custom_ops=ops)
        assert (y == x * 4).all()
