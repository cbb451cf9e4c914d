"""target="tflm-x86-64" computes the tflite-micro wheel's bytes, model by model.

Every model of tests/models (MLPerf Tiny's four included) and of ../shared/models/tflm that
the wheel runs: picolite with target="tflm-x86-64" and TFLM's own Python interpreter get the
same inputs, written before every invoke (three random samples, the third with float inputs
16x wider so that saturating functions see their tails), each invoked twice on one
interpreter (state carried over), and must give identical output bytes. Float outputs are
held to 1e-5 relative instead: TFLM's TANH and exp come from the host's libm (glibc here, newlib
on a device), whose last bit picolite does not copy. benchmarks/tflm_survey.py finds, layer
by layer, where a model differs.

Models where TFLM's output depends on memory it never writes are left out, naming why (the
README's table lists them). Skips when the wheel is missing, except in CI.
"""

import pathlib

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS, ZOO, in_ci, zoo_manifest
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]

# TFLM reads memory it never initialised: no defined bytes to reproduce.
UNDEFINED = {
    # a fresh firmware's zeroed op data makes every output false (picolite's answer, and the
    # M4 goldens'); the wheel's op data holds its heap's leftovers
    "space_to_batch_nd_3d_float32": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "space_to_batch_nd_3d_int8": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "space_to_batch_nd_4d_pad_float32": "SPACE_TO_BATCH_ND pads with its never-set "
                                        "output_offset",
    "space_to_batch_nd_4d_pad_int8": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "greater_bcast_1d_int16": "GREATER int16 compares with scaling parameters TFLM's prepare "
                              "never sets",
    "greater_same_int16x8": "GREATER int16 compares with scaling parameters TFLM's prepare "
                            "never sets",
    "detection_postprocess_fast_2classes_float32": "TFLM's fast NMS with 2 classes per "
                                                   "detection writes past its outputs' end "
                                                   "and leaves gaps unwritten",
}


def models():
    seen, out = set(), []
    for e in zoo_manifest():
        path = (ZOO / e["file"]).resolve()
        if path.exists() and path not in seen and e.get("tflm", {}).get("status") != "error":
            out.append(pytest.param(path, e.get("warmup", 0), id=e["file"]))
        seen.add(path)
    for path in sorted(ZOO.rglob("*.tflite")):  # MLPerf Tiny's and others no manifest lists
        if path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(pytest.param(path, 0, id=path.relative_to(ZOO).as_posix()))
    if SHARED_MODELS.is_dir():
        for path in sorted(SHARED_MODELS.rglob("*.tflite")):
            out.append(pytest.param(path, 0, id=path.relative_to(SHARED_MODELS).as_posix()))
    return out


@pytest.fixture(scope="module")
def runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime


def samples(details):
    out = []
    for seed in range(3):
        xs = random_inputs(details, seed=seed)
        out.append([x * 16 if x.dtype.kind == "f" and seed == 2 else x for x in xs])
    return out


def same(mine, tflm):
    if mine.dtype.kind == "f":
        return mine.shape == tflm.shape and np.allclose(mine, tflm, rtol=1e-5, atol=1e-6,
                                                        equal_nan=True)
    return mine.tobytes() == tflm.tobytes()


@pytest.mark.parametrize("path,warmup", models())
def test_equals_the_tflite_micro_wheel(path, warmup, runtime):
    name = path.stem
    if name in UNDEFINED:
        pytest.skip(f"undefined in TFLM: {UNDEFINED[name]}")
    try:
        theirs = runtime.Interpreter.from_file(str(path), arena_size=16 << 20)
    except (RuntimeError, ValueError) as e:
        pytest.skip(f"the wheel does not run it: {str(e)[:80]}")
    ours = picolite.Interpreter(model_path=str(path), target="tflm-x86-64")
    try:
        ours.allocate_tensors()
    except picolite.UnsupportedOpError as e:
        pytest.skip(f"picolite refuses this model on purpose: {str(e)[:80]}")
    step = 0
    for xs in samples(ours.get_input_details()):
        for _ in range(2):
            for i, x in enumerate(xs):
                ours.set_input(x, i)
                theirs.set_input(x, i)
            ours.invoke()
            try:
                theirs.invoke()
            except RuntimeError as e:
                pytest.skip(f"the wheel's invoke fails: {str(e)[:80]}")
            if step >= warmup:  # before, an output holds arena leftovers (CIRCULAR_BUFFER)
                for o in range(len(ours.get_output_details())):
                    mine, tflm = ours.get_output(o), theirs.get_output(o)
                    assert same(mine, tflm), (
                        f"invoke {step}, output {o}: {np.count_nonzero(mine != tflm)} of "
                        f"{mine.size} elements differ from TFLM "
                        f"(benchmarks/tflm_survey.py --only {name} says where)")
            step += 1


def fuzz_module():
    import importlib.util
    import sys

    path = ROOT / "benchmarks" / "tflm_scale_fuzz.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("tflm_scale_fuzz", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_op_models():
    return [e for e in zoo_manifest()
            if e.get("family") == "single_op" and e.get("type") in ("int8", "int16x8", "int16")]


@pytest.mark.parametrize("entry", one_op_models(), ids=lambda e: e["file"])
def test_rescaled_one_op_models_equal_the_wheel(entry, runtime):
    """The zoo's one-operator integer models with their scales moved (benchmarks/
    tflm_scale_fuzz.py): other multipliers, other near-ties, other radius and table
    paths. Every copy both sides run gives the wheel's bytes, all 256 int8 inputs too."""
    import numpy as np

    if entry["file"].rsplit("/", 1)[-1].removesuffix(".tflite") in UNDEFINED:
        pytest.skip("undefined in TFLM")
    fuzz = fuzz_module()
    rng = np.random.default_rng(sum(entry["file"].encode()))
    data = (ZOO / entry["file"]).read_bytes()
    compared = 0
    for _ in range(3):
        model = fuzz.rescaled(data, rng)
        try:
            theirs = runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
            ours = picolite.Interpreter(model_content=model, target="tflm-x86-64")
            ours.allocate_tensors()
        except (RuntimeError, ValueError, picolite.Error):
            continue  # a scale one side refuses (a fixed output scale, a copy that rescales)
        details = ours.get_input_details()
        for seed in range(2):
            xs = random_inputs(details, seed=seed)
            for i, d in enumerate(details):
                if np.dtype(d["dtype"]) == np.int8:  # every int8 value once
                    xs[i] = np.resize(np.arange(-128, 128, dtype=np.int8),
                                      xs[i].shape).reshape(xs[i].shape)
                    xs[i] = np.roll(xs[i].ravel(), 37 * seed).reshape(xs[i].shape)
            for i, x in enumerate(xs):
                ours.set_input(x, i)
                theirs.set_input(x, i)
            ours.invoke()
            try:
                theirs.invoke()
            except RuntimeError:
                break
            for o in range(len(ours.get_output_details())):
                assert ours.get_output(o).tobytes() == theirs.get_output(o).tobytes(), \
                    f"output {o} differs from the wheel with scales moved"
            compared += 1
    if compared == 0:
        pytest.skip("no rescaled copy that both sides run")


REFERENCE = SHARED_MODELS / "reference_outputs"


def reference_runs():
    """TFLM's recorded runs in ../shared/models/tflm/reference_outputs: model names."""
    if not REFERENCE.is_dir():
        return []
    return sorted({p.name.split(".inv")[0] for p in REFERENCE.glob("*.inv*.bin")})


@pytest.mark.parametrize("name", reference_runs())
def test_tflm_recorded_outputs(name):
    """TFLM's own recorded outputs (LCG inputs, invocation after invocation, state kept):
    target="tflm" gives them byte for byte (float32 within 1e-5)."""
    import numpy as np

    rel = name.replace("__", "/")
    path = SHARED_MODELS / rel
    if not path.exists():
        path = SHARED_MODELS / rel.replace("/models/", "/")
    ours = picolite.Interpreter(model_path=str(path), target="tflm")
    ours.allocate_tensors()
    details = ours.get_input_details()
    k = 0
    while (REFERENCE / f"{name}.inv{k}.input0.bin").exists():
        for i, d in enumerate(details):
            x = np.fromfile(REFERENCE / f"{name}.inv{k}.input{i}.bin", dtype=d["dtype"])
            ours.set_tensor(d["index"], x.reshape(d["shape"]))
        ours.invoke()
        for o, d in enumerate(ours.get_output_details()):
            got = ours.get_tensor(d["index"]).ravel()
            want = np.fromfile(REFERENCE / f"{name}.inv{k}.output{o}.bin", dtype=got.dtype)
            if got.dtype.kind == "f":
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            else:
                assert got.tobytes() == want.tobytes(), f"invocation {k}, output {o}"
        k += 1
    assert k > 0
