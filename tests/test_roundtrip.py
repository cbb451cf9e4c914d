"""set_tensor / get_tensor through the C path of src/tensor_io.c behave as the full path does:
same values, dtypes, shapes, copies and errors; anything the fast path does not take falls
back to the full path (issue 13)."""

import pathlib

import numpy as np
import pytest

import picolite
from picolite import interpreter as tfl

MODELS = pathlib.Path(__file__).resolve().parent / "models"
ONE_OP = str(MODELS / "pad_2d_int8.tflite")
NETS = ["net_mlp_int8.tflite", "net_mlp_float32.tflite", "net_cnn_int16x8.tflite",
        "softmax_1x10_float32.tflite", "add_same_int8.tflite"]


def interp(path=ONE_OP, **kw):
    it = tfl.Interpreter(model_path=path, **kw)
    it.allocate_tensors()
    return it


def sample(d, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(d["dtype"])
    if dt.kind == "f":
        return rng.standard_normal(d["shape"]).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, d["shape"], endpoint=True).astype(dt)


@pytest.mark.parametrize("name", NETS)
def test_fast_round_trip_equals_the_full_path(name):
    fast, full = interp(str(MODELS / name)), interp(str(MODELS / name))
    for k, d in enumerate(fast.get_input_details()):
        x = sample(d, k)
        assert fast._c.set_tensor(d["index"], x) is None  # the fast path took it
        full._set(d["index"], x)
    fast.invoke()
    full.invoke()
    for d in fast.get_output_details():
        got = fast.get_tensor(d["index"])
        want = full._get(d["index"])
        assert got.dtype == want.dtype == np.dtype(d["dtype"])
        assert got.shape == want.shape == tuple(d["shape"])
        np.testing.assert_array_equal(got, want)


def test_get_tensor_returns_a_writable_copy():
    it = interp()
    d, o = it.get_input_details()[0], it.get_output_details()[0]["index"]
    it.set_tensor(d["index"], np.ones(d["shape"], np.int8))
    it.invoke()
    a = it.get_tensor(o)
    assert a.flags.writeable and a.flags.c_contiguous and a.flags.owndata
    before = a.copy()
    a[...] = 7
    np.testing.assert_array_equal(it.get_tensor(o), before)


def test_set_tensor_copies_the_value():
    it = interp()
    d = it.get_input_details()[0]
    x = np.full(d["shape"], 3, np.int8)
    it.set_tensor(d["index"], x)
    x[...] = 5
    np.testing.assert_array_equal(it.get_tensor(d["index"]), np.full(d["shape"], 3, np.int8))


def test_set_tensor_from_a_view_of_the_same_tensor():
    it = interp()
    i = it.get_input_details()[0]["index"]
    it.set_tensor(i, np.arange(10, dtype=np.int8).reshape(it.get_tensor(i).shape))
    view = it.tensor(i)()
    it.set_tensor(i, view)
    np.testing.assert_array_equal(view.ravel(), np.arange(10, dtype=np.int8))


def test_values_the_fast_path_declines_take_the_full_path():
    it = interp()
    d = it.get_input_details()[0]
    i, shape = d["index"], tuple(d["shape"])
    # non-contiguous and Fortran-ordered arrays
    wide = np.arange(2 * int(np.prod(shape)), dtype=np.int8).reshape(shape[:-1] + (-1,))
    assert it._c.set_tensor(i, wide[..., ::2]) is NotImplemented
    it.set_tensor(i, wide[..., ::2])
    np.testing.assert_array_equal(it.get_tensor(i), wide[..., ::2])
    it.set_tensor(i, np.asfortranarray(np.ones(shape, np.int8)))
    np.testing.assert_array_equal(it.get_tensor(i), np.ones(shape, np.int8))
    # a numpy integer index
    it.set_tensor(np.int64(i), np.zeros(shape, np.int8))
    np.testing.assert_array_equal(it.get_tensor(np.int64(i)), np.zeros(shape, np.int8))


def test_wrong_dtype_and_shape_keep_litert_messages():
    it = interp()
    d = it.get_input_details()[0]
    with pytest.raises(ValueError, match="Got value of type FLOAT32 but expected type INT8"):
        it.set_tensor(d["index"], np.zeros(d["shape"], np.float32))
    with pytest.raises(ValueError, match="Cannot set tensor: Dimension mismatch"):
        it.set_tensor(d["index"], np.zeros((1, 99), np.int8))
    big_endian = np.zeros(d["shape"], ">i2")
    with pytest.raises(ValueError, match="Cannot set tensor: Got value of type"):
        it.set_tensor(d["index"], big_endian)
    with pytest.raises(ValueError, match="Invalid tensor index 999"):
        it.set_tensor(999, np.zeros(d["shape"], np.int8))
    with pytest.raises(ValueError, match="Invalid tensor index -1"):
        it.get_tensor(-1)
    with pytest.raises(TypeError, match="must be an integer"):
        it.get_tensor(1.0)


def test_constants_are_refused_and_shared_intermediates_unreadable():
    it = interp(str(MODELS / "net_mlp_int8.tflite"))
    infos = [it._c.tensor_info(k) for k in range(len(it.get_tensor_details()))]
    const = next(t for t in infos if t["is_constant"])
    with pytest.raises(ValueError, match="is a constant of the model"):
        it.set_tensor(const["index"], it.get_tensor(const["index"]))
    shared = [t for t in infos if t["shared"]]
    if shared:
        with pytest.raises(ValueError, match="memory is shared with other tensors"):
            it.get_tensor(shared[0]["index"])
    kept = interp(str(MODELS / "net_mlp_int8.tflite"), experimental_preserve_all_tensors=True)
    kept.invoke()
    for t in shared:
        assert kept.get_tensor(t["index"]).shape == tuple(t["shape"])


def test_closed_interpreter_refuses_the_round_trip():
    it = interp()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.zeros(d["shape"], np.int8))  # the table is built
    it.close()
    with pytest.raises(picolite.StateError, match="closed"):
        it.set_tensor(d["index"], np.zeros(d["shape"], np.int8))
    with pytest.raises(picolite.StateError, match="closed"):
        it.get_tensor(d["index"])


def test_before_allocate_the_full_path_answers():
    it = tfl.Interpreter(model_path=ONE_OP)
    d = it.get_input_details()[0]
    assert it._c.get_tensor(d["index"]) is NotImplemented
    with pytest.raises(ValueError, match="Tensor data is null. Run allocate_tensors"):
        it.get_tensor(d["index"])


def test_resize_makes_a_new_table():
    it = tfl.Interpreter(model_path=str(MODELS / "expand_dims_axis1_dynbatch_int8.tflite"))
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.ones(d["shape"], np.int8))
    shape = list(d["shape"])
    shape[0] = 3
    it.resize_tensor_input(d["index"], shape)
    it.allocate_tensors()
    x = np.arange(np.prod(shape), dtype=np.int8).reshape(shape)
    it.set_tensor(d["index"], x)
    it.invoke()
    out = it.get_output_details()[0]
    assert it.get_tensor(out["index"]).shape == tuple(out["shape"])
    np.testing.assert_array_equal(it.get_tensor(out["index"]).ravel(), x.ravel())
