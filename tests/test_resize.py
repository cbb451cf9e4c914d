"""resize_tensor_input: LiteRT's semantics on models with a dynamic batch.

The models (tests/models/resize/, made by make_resize.py) are Keras 2 and Keras 3 MLPs and
CNNs, float32 and int8, whose input shape_signature is [-1, ...]. Each is resized to a batch
of 1, 5 and 32 in picolite and in LiteRT (BUILTIN_REF) the same way: integer outputs must be
identical, float32 within 1e-5 relative. Then the rules LiteRT's own interpreter tests check
for resizing: strict refusal, invoke before re-allocation, what the details report, and
picolite's own: the arena is re-planned exactly, a shape the model cannot take names the op.
"""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import picolite
from conftest import ZOO, zoo_manifest
from picolite.testing import random_inputs

pytestmark = pytest.mark.usefixtures("litert")

RESIZE = ZOO / "resize"
MANIFEST = json.loads((RESIZE / "MANIFEST.json").read_text())
# "pending": models using an operator picolite lacked when they were made (SHAPE)
MODELS = MANIFEST["models"] + MANIFEST.get("pending", [])
BATCHES = (1, 5, 32)


def model_id(entry):
    return entry["file"].removesuffix(".tflite")


def path_of(name):
    return str(RESIZE / name)


MLP = path_of("keras2_mlp_float32.tflite")


def resized(path, shape, **kw):
    """A picolite interpreter with input 0 resized to shape and allocated; skips when the
    model needs an operator this build lacks (named in the reason)."""
    it = picolite.Interpreter(model_path=path, **kw)
    it.resize_tensor_input(it.get_input_details()[0]["index"], shape)
    try:
        it.allocate_tensors()
    except picolite.UnsupportedOpError as e:
        pytest.skip(f"picolite does not support {e.op_name} yet (node {e.node_index}), "
                    f"which this model computes its flattened shape with")
    return it


def litert_resized(path, shape):
    from reference import make_interpreter

    ref = make_interpreter(path)
    ref.resize_tensor_input(ref.get_input_details()[0]["index"], shape)
    ref.allocate_tensors()
    return ref


def batch_shape(entry, batch):
    return [batch, *entry["made"]["params"]["input_signature"][1:]]


def test_models_have_a_dynamic_batch():
    assert len(MODELS) >= 8
    keras = {e["made"]["params"]["keras"] for e in MODELS}
    types = {e["type"] for e in MODELS}
    assert keras == {2, 3} and types == {"float32", "int8"}
    for e in MODELS:
        it = picolite.Interpreter(model_path=path_of(e["file"]))
        assert it.get_input_details()[0]["shape_signature"][0] == -1


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("entry", MODELS, ids=model_id)
def test_resized_outputs_match_litert(entry, batch):
    path = path_of(entry["file"])
    shape = batch_shape(entry, batch)
    ours, ref = resized(path, shape, target="litert"), litert_resized(path, shape)
    for seed in range(2):
        x = random_inputs(ours.get_input_details(), seed)[0]
        assert x.shape == tuple(shape)
        ours.set_tensor(ours.get_input_details()[0]["index"], x)
        ref.set_tensor(ref.get_input_details()[0]["index"], x)
        ours.invoke()
        ref.invoke()
        for d in ref.get_output_details():
            got, want = ours.get_tensor(d["index"]), ref.get_tensor(d["index"])
            assert got.shape == want.shape and got.shape[0] == batch
            if np.issubdtype(want.dtype, np.floating):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            else:
                assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("entry", MODELS, ids=model_id)
def test_required_arena_size_is_exact_for_the_new_shape(entry):
    path = path_of(entry["file"])
    shape = batch_shape(entry, 32)
    resized(path, shape)  # skips a model needing an operator picolite lacks
    need = picolite.required_arena_size(path, input_shapes=[shape], target="picolite")
    assert need > picolite.required_arena_size(path, target="picolite")
    it = resized(path, shape, arena=picolite.Arena(need), target="picolite")
    assert it.allocations().total <= need
    it = picolite.Interpreter(model_path=path, arena=picolite.Arena(need - 1))
    it.resize_tensor_input(it.get_input_details()[0]["index"], shape)
    with pytest.raises(picolite.ArenaTooSmallError) as e:
        it.allocate_tensors()
    assert e.value.required == need and e.value.available < need  # usable: 16-aligned


def test_default_arena_grows_with_the_resize():
    it = picolite.Interpreter(model_path=MLP)
    small = it.arena.size
    it.allocate_tensors()
    it.resize_tensor_input(it.get_input_details()[0]["index"], [32, 16])
    it.allocate_tensors()
    assert it.arena.size == picolite.required_arena_size(MLP, input_shapes={0: [32, 16]},
                                                         target="picolite")
    assert it.arena.size > small


def test_details_report_new_shapes_and_keep_the_signature():
    it = picolite.Interpreter(model_path=MLP)
    index = it.get_input_details()[0]["index"]
    it.resize_tensor_input(index, np.array([5, 16]))
    # as in LiteRT: the input shows its new shape at once, the outputs after allocation
    assert list(it.get_input_details()[0]["shape"]) == [5, 16]
    assert list(it.get_output_details()[0]["shape"]) == [1, 4]
    it.allocate_tensors()
    details = {d["index"]: d for d in it.get_tensor_details()}
    out = it.get_output_details()[0]
    assert list(out["shape"]) == [5, 4]
    assert list(details[index]["shape"]) == [5, 16]
    assert list(details[index]["shape_signature"]) == [-1, 16]
    assert list(out["shape_signature"]) == list(
        picolite.Interpreter(model_path=MLP).get_output_details()[0]["shape_signature"])


def test_invoke_before_reallocation_raises_like_litert():
    it = picolite.Interpreter(model_path=MLP)
    it.allocate_tensors()
    it.resize_tensor_input(it.get_input_details()[0]["index"], (3, 16))
    with pytest.raises(RuntimeError, match="^Invoke called on model that is not ready"):
        it.invoke()
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.ones((3, 16), np.float32))
    it.invoke()


def test_resize_to_the_current_shape_keeps_the_allocation():
    it = picolite.Interpreter(model_path=MLP)
    it.allocate_tensors()
    it.resize_tensor_input(it.get_input_details()[0]["index"], [1, 16])
    it.invoke()  # LiteRT allows this too: nothing changed


def test_resize_back_to_batch_one_replans():
    it = resized(MLP, [32, 16])
    it.resize_tensor_input(it.get_input_details()[0]["index"], [1, 16])
    it.allocate_tensors()
    assert list(it.get_output_details()[0]["shape"]) == [1, 4]
    fresh = picolite.Interpreter(model_path=MLP)
    fresh.allocate_tensors()
    mine, theirs = it.allocations().to_dict(), fresh.allocations().to_dict()
    del mine["arena_size"], theirs["arena_size"]  # the grown arena stays
    assert mine == theirs  # not a byte more than a model never resized


def test_strict_refuses_a_fixed_dim_with_litert_text(litert):
    from reference import make_interpreter

    ref = make_interpreter(MLP)
    with pytest.raises(RuntimeError) as want:
        ref.resize_tensor_input(0, [1, 17], strict=True)
    it = picolite.Interpreter(model_path=MLP)
    with pytest.raises(ValueError) as got:
        it.resize_tensor_input(0, [1, 17], strict=True)
    assert isinstance(got.value, RuntimeError)  # code written for LiteRT catches it
    sentence = ("Attempting to resize dimension 1 of tensor 0 with value 16 to 17. "
                "ResizeInputTensorStrict only allows mutating unknown dimensions identified "
                "by -1.")
    assert sentence in str(want.value)
    assert str(got.value).startswith(sentence)
    with pytest.raises(ValueError, match="ResizeInputTensorStrict"):
        it.resize_tensor_input(0, [1, 16, 1], strict=True)


def test_strict_allows_the_dynamic_dim():
    it = picolite.Interpreter(model_path=MLP)
    it.resize_tensor_input(0, [7, 16], strict=True)
    it.allocate_tensors()
    assert list(it.get_output_details()[0]["shape"]) == [7, 4]


def test_only_inputs_can_be_resized():
    it = picolite.Interpreter(model_path=MLP)
    out = it.get_output_details()[0]["index"]
    with pytest.raises(ValueError, match="^Attempting to resize a fixed-size tensor") as e:
        it.resize_tensor_input(out, [2, 4])
    assert f"tensor {out} is not one of the model's inputs [0]" in str(e.value)


@pytest.mark.parametrize("size, message", [
    ([-3, 16], r"shape \[-3, 16\] has dim 0 = -3; a dim must be at least 0"),
    ([1] * 9, "rank 9 is above picolite's limit of 8"),
    ([[1, 16]], "^Shape should be 1D instead of 2"),
    (4, "^Shape should be 1D instead of 0"),
])
def test_bad_shapes_are_refused_with_clear_messages(size, message):
    it = picolite.Interpreter(model_path=MLP)
    with pytest.raises(ValueError, match=message):
        it.resize_tensor_input(0, size)
    it.allocate_tensors()  # the interpreter is unchanged
    assert list(it.get_input_details()[0]["shape"]) == [1, 16]


def test_a_batch_of_zero_runs_as_in_litert(litert):
    """LiteRT takes an empty input (its testEmptyInputTensor): no rows in, no rows out."""
    from reference import make_interpreter

    outs = []
    for it in (make_interpreter(MLP), picolite.Interpreter(model_path=MLP)):
        it.resize_tensor_input(0, [0, 16])
        run(it, [np.zeros((0, 16), np.float32)])
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert outs[0].shape == outs[1].shape == (0, 4)


def test_a_shape_the_model_cannot_take_names_the_op_and_node():
    it = picolite.Interpreter(model_path=MLP)
    it.resize_tensor_input(0, [2, 15])
    with pytest.raises(picolite.ModelError, match=r"^node 0 \(FULLY_CONNECTED\): .*depth "
                                                  r"dividing the input's 30 elements"):
        it.allocate_tensors()
    it.resize_tensor_input(0, [2, 16])  # a new shape makes a new interpreter
    it.allocate_tensors()
    assert list(it.get_output_details()[0]["shape"]) == [2, 4]


def test_required_arena_size_rejects_bad_input_shapes():
    with pytest.raises(ValueError, match="dim 1 = -2"):
        picolite.required_arena_size(MLP, input_shapes=[[2, -2]])
    with pytest.raises(ValueError, match=r"input 1 of 1"):
        picolite.required_arena_size(MLP, input_shapes={1: [2, 16]})
    assert (picolite.required_arena_size(MLP, input_shapes=[None])
            == picolite.required_arena_size(MLP))


def run(it, xs):
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), xs):
        it.set_tensor(d["index"], x)
    it.invoke()


# picolite refuses these on purpose (see test_golden.REFUSED): no defined answer to match
REFUSED = {"sum_axis_last_int16x8.tflite", "sum_axes12_keep_int16x8.tflite"}


def batch_tripled(shape):
    return [int(shape[0]) * 3, *map(int, shape[1:])] if len(shape) else []


def image_grown(shape):
    """4-D inputs 3 rows and 2 columns larger (window sizes, paddings, strides)."""
    s = list(map(int, shape))
    return [s[0], s[1] + 3, s[2] + 2, s[3]] if len(s) == 4 else s


# LiteRT loads no custom operator: those models ("oracle": "tflm") have no reference here
ZOO_MODELS = [e for e in zoo_manifest()
              if e["file"] not in REFUSED and e.get("oracle") != "tflm"]
SPATIAL = [e for e in ZOO_MODELS if any(len(i["shape"]) == 4 for i in e["inputs"])]


def zoo_cases():
    for e in ZOO_MODELS:
        yield pytest.param(e, batch_tripled, id=e["file"].removesuffix(".tflite") + "-batch")
    for e in SPATIAL:
        yield pytest.param(e, image_grown, id=e["file"].removesuffix(".tflite") + "-image")


@pytest.mark.parametrize("entry, grow", list(zoo_cases()))
def test_every_zoo_model_resized_matches_litert(entry, grow):
    """Every input's first dim tripled, and every 4-D input 3 rows and 2 columns larger:
    each kernel's output shapes follow as TFLite's Prepare computes them (compared through
    the outputs of LiteRT resized the same way); a model LiteRT cannot run so (a constant
    shape, a fixed broadcast, a transposed convolution's or a slice's fixed output) picolite
    refuses, naming the node and the op. Control flow runs its subgraphs at the caller's
    shapes, as LiteRT's IF and WHILE prepare them."""
    from reference import make_interpreter

    path = str((ZOO / entry["file"]).resolve())
    ref = make_interpreter(path)
    shapes = [grow(d["shape"]) for d in ref.get_input_details()]
    ours = picolite.Interpreter(model_path=path, target="litert")
    for d, shape in zip(ours.get_input_details(), shapes):
        ours.resize_tensor_input(d["index"], shape)
    try:
        for d, shape in zip(ref.get_input_details(), shapes):
            ref.resize_tensor_input(d["index"], shape)
        ref.allocate_tensors()
        xs = random_inputs(ref.get_input_details(), 0)
        for d, x in zip(ref.get_input_details(), xs):
            ref.set_tensor(d["index"], x)
        ref.invoke()
    except (RuntimeError, ValueError):
        with pytest.raises(ValueError, match=r"^node \d+ \([A-Za-z_0-9]+\): "):
            run(ours, random_inputs(ours.get_input_details(), 0))
        return
    run(ours, xs)
    for d in ref.get_output_details():
        got, want = ours.get_tensor(d["index"]), ref.get_tensor(d["index"])
        assert got.shape == want.shape
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        else:
            assert got.tobytes() == want.tobytes()


SLICE_4D = str(ZOO / "shape_ops" / "slice_4d_float32.tflite")  # begin [0,1,1,0], size [1,2,-1,3]


def test_slice_keeps_an_output_shape_the_model_fixes():
    """The model's output signature is [1, 2, 4, 3] (no -1): LiteRT 2.3's SLICE keeps it and
    checks the slice of a resized input against it at prepare. Rows added past the slice
    still fit; a wider input makes size -1 take 5 columns, which LiteRT refuses, and so does
    picolite, naming the dim (it does not slice silently)."""
    from reference import make_interpreter

    fits = [1, 5, 5, 6]
    ref = make_interpreter(SLICE_4D)
    ref.resize_tensor_input(0, fits)
    ref.allocate_tensors()
    ours = picolite.Interpreter(model_path=SLICE_4D, target="litert")
    ours.resize_tensor_input(0, fits)
    x = np.random.RandomState(0).uniform(-1, 1, fits).astype(np.float32)
    run(ours, [x])
    ref.set_tensor(0, x)
    ref.invoke()
    want = ref.get_tensor(ref.get_output_details()[0]["index"])
    assert want.shape == (1, 2, 4, 3)
    assert ours.get_tensor(ours.get_output_details()[0]["index"]).tobytes() == want.tobytes()
    ref = make_interpreter(SLICE_4D)
    ref.resize_tensor_input(0, [1, 4, 6, 6])
    with pytest.raises(RuntimeError, match=r"SizeOfDimension\(output, idx\) \(5 != 4\)"):
        ref.allocate_tensors()
    ours = picolite.Interpreter(model_path=SLICE_4D)
    ours.resize_tensor_input(0, [1, 4, 6, 6])
    with pytest.raises(picolite.ModelError, match=r"^node 0 \(SLICE\): SLICE: dim 2 of the "
                                                  r"slice is 5, the model fixes the output "
                                                  r"at 4"):
        ours.allocate_tensors()


def test_a_refused_shape_leaves_the_previous_one():
    it = resized(MLP, [4, 16])
    with pytest.raises(ValueError, match=r"\[65536, 65536\] needs more than 4 GiB"):
        it.resize_tensor_input(0, [1 << 16, 1 << 16])
    it.allocate_tensors()  # the previous shapes, re-planned
    assert list(it.get_output_details()[0]["shape"]) == [4, 4]


# --- large resizes: the host's memory, never a bare MemoryError --------------------------

LARGE = textwrap.dedent("""
    import resource, sys
    limit = int(sys.argv[2]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # a host with this much memory
    import picolite
    model, rows = sys.argv[1], 1 << 23  # [8388608, 16] float32: 940 MB of arena
    try:
        it = picolite.Interpreter(model, target="picolite")
        it.resize_tensor_input(0, [rows, 16])
        it.allocate_tensors()
        print("allocated", it.arena_used_bytes())
        del it
        print("sized", picolite.required_arena_size(model, input_shapes=[[rows, 16]],
                                                   target="picolite"))
    except MemoryError as e:
        print("MemoryError", e)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux sets it")
@pytest.mark.parametrize("limit_mib, expect", [(1536, "allocated 939524400"),
                                               (1024, "MemoryError picolite: sizing")])
def test_sizing_a_large_resize_asks_for_what_it_needs(limit_mib, expect):
    """Sizing grew its work buffer to twice what the run reported and doubled again: 1.9 GB
    for a 940 MB arena, then 8, 16 and a refused 32 GiB for larger ones, ending in a bare
    MemoryError(''). It now asks for the reported need and an eighth; when even that fails,
    the MemoryError says how many bytes."""
    model = str(ZOO / "resize" / "keras2_mlp_float32.tflite")
    r = subprocess.run([sys.executable, "-c", LARGE, model, str(limit_mib)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith(expect), r.stdout
    if expect.startswith("allocated"):
        assert "sized 939524400" in r.stdout
    else:
        assert "bytes, which the host could not allocate" in r.stdout
