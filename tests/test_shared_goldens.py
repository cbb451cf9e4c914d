"""TFLM's own goldens for the models in ../shared, with LiteRT's reference kernels as judge.

Every test runs picolite and LiteRT (BUILTIN_REF) on the same inputs and requires picolite
to equal LiteRT: identical bytes for integer outputs, 1e-5 relative / 1e-6 absolute for
float. TFLM's recorded outputs are checked too, except where TFLM's own reference kernels
disagree with LiteRT's (seanet sub0/sub1/sub3 are off by one in TFLM): then LiteRT decides.
"""

import csv
import pathlib
import re

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS

pytestmark = pytest.mark.usefixtures("shared_models", "litert")


def run_both(model_path, invocations):
    """Runs each invocation's inputs in order on one picolite and one LiteRT interpreter."""
    from reference import make_interpreter

    ours = picolite.Interpreter(model_path=str(model_path), target="litert")
    ours.allocate_tensors()
    ref = make_interpreter(str(model_path))
    results = []
    for inputs in invocations:
        for d, x in zip(ours.get_input_details(), inputs):
            x = np.asarray(x).reshape(d["shape"]).astype(d["dtype"])
            ours.set_tensor(d["index"], x)
            ref.set_tensor(d["index"], x)
        ours.invoke()
        ref.invoke()
        results.append([(ours.get_tensor(d["index"]), ref.get_tensor(d["index"]))
                        for d in ours.get_output_details()])
    return results


def run_picolite(model_path, inputs):
    ours = picolite.Interpreter(model_path=str(model_path))
    ours.allocate_tensors()
    for d, x in zip(ours.get_input_details(), inputs):
        ours.set_tensor(d["index"], np.asarray(x).reshape(d["shape"]).astype(d["dtype"]))
    ours.invoke()
    return ours.get_output(0)


def assert_same(ours, ref, what):
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    if np.issubdtype(ref.dtype, np.floating):
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6, err_msg=what)
    else:
        diff = np.flatnonzero(ours.astype(np.int64) != ref.astype(np.int64))
        assert diff.size == 0, (f"{what}: {diff.size} of {ref.size} elements differ from "
                                f"LiteRT, first at {diff[0]}: {ours.flat[diff[0]]} vs "
                                f"{ref.flat[diff[0]]}")


def input_dtypes(model_path):
    it = picolite.Interpreter(model_path=str(model_path))
    return [(d["dtype"], tuple(d["shape"])) for d in it.get_input_details()]


# ---- reference_outputs/: LCG inputs and TFLM's outputs, invocation after invocation ----

REFERENCE = SHARED_MODELS / "reference_outputs"


def reference_models():
    if not REFERENCE.is_dir():
        return []
    return sorted({p.name.split(".inv")[0] for p in REFERENCE.glob("*.inv*.bin")})


def model_file(ref_name):
    rel = ref_name.replace("__", "/")
    path = SHARED_MODELS / rel
    if not path.exists():
        path = SHARED_MODELS / rel.replace("/models/", "/")
    return path


# LiteRT 2.3 aborts the process on this model (it reads SVDF's int8 weights_time as int16),
# so TFLM's recorded outputs are its judge.
LITERT_CRASHES = {"models__keyword_scrambled_8bit.tflite"}


@pytest.mark.parametrize("name", reference_models())
def test_reference_outputs_match_litert_and_tflm(name):
    path = model_file(name)
    if name in LITERT_CRASHES:
        check_against_tflm_only(name, path)
        return
    dtypes = input_dtypes(path)
    invs = sorted({int(m.group(1)) for p in REFERENCE.glob(f"{name}.inv*.bin")
                   if (m := re.search(r"\.inv(\d+)\.", p.name))})
    invocations = [reference_inputs(name, k, dtypes) for k in invs]
    results = run_both(path, invocations)
    for k, outputs in zip(invs, results):
        for o, (ours, ref) in enumerate(outputs):
            assert_same(ours, ref, f"{name} invocation {k} output {o} vs LiteRT")
            tflm = np.fromfile(REFERENCE / f"{name}.inv{k}.output{o}.bin", dtype=ref.dtype)
            if np.array_equal(tflm.reshape(ref.shape), ref) or \
                    np.issubdtype(ref.dtype, np.floating):
                assert_same(ours, tflm.reshape(ref.shape), f"{name} inv {k} output {o} vs TFLM")


def reference_inputs(name, k, dtypes):
    return [np.fromfile(REFERENCE / f"{name}.inv{k}.input{i}.bin", dtype=dt)
            for i, (dt, _) in enumerate(dtypes)]


def check_against_tflm_only(name, path):
    dtypes = input_dtypes(path)
    ours = picolite.Interpreter(model_path=str(path))
    ours.allocate_tensors()
    k = 0
    while (REFERENCE / f"{name}.inv{k}.input0.bin").exists():
        for d, x in zip(ours.get_input_details(), reference_inputs(name, k, dtypes)):
            ours.set_tensor(d["index"], x.reshape(d["shape"]))
        ours.invoke()
        for o, d in enumerate(ours.get_output_details()):
            got = ours.get_tensor(d["index"])
            tflm = np.fromfile(REFERENCE / f"{name}.inv{k}.output{o}.bin", dtype=got.dtype)
            assert np.array_equal(got.ravel(), tflm), f"{name} inv {k} output {o} vs TFLM"
        k += 1
    assert k > 0


# ---- seanet integration tests: int16 CSVs ----

SEANET = SHARED_MODELS / "integration_tests" / "seanet"


def seanet_models():
    if not SEANET.is_dir():
        return []
    return sorted((p for p in SEANET.glob("*/*.tflite")),
                  key=lambda p: (p.parent.name, int(re.sub(r"\D", "", p.stem) or 0)))


def read_csv_ints(path):
    with open(path) as f:
        return np.array([int(v) for row in csv.reader(f) for v in row if v.strip()])


def litert_runs(path):
    from reference import make_interpreter

    try:
        make_interpreter(str(path))
    except (RuntimeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("path", seanet_models(), ids=lambda p: p.stem)
def test_seanet_matches_litert_and_golden(path):
    # <model>_input<k>_<dtype>.csv, <model>_golden_<dtype>.csv
    inputs = [read_csv_ints(p) for p in sorted(
        path.parent.glob(f"{path.stem}_input*_*.csv"),
        key=lambda p: int(re.search(r"_input(\d+)_", p.name).group(1)))]
    golden, = [read_csv_ints(p) for p in path.parent.glob(f"{path.stem}_golden_*.csv")]
    if not litert_runs(path):
        # LiteRT refuses these (TRANSPOSE_CONV with a computed output shape), TFLM runs
        # them: its golden is the only judge left, and picolite must equal it exactly.
        ours = run_picolite(path, inputs)
        assert np.array_equal(ours.ravel(), golden), f"{path.name} vs TFLM's golden"
        return
    (ours, ref), = run_both(path, [inputs])[0]
    assert_same(ours, ref, f"{path.name} vs LiteRT")
    # TFLM's golden comes from TFLM's kernels, which its own test accepts within 1.
    assert np.abs(ours.astype(np.int64).ravel() - golden).max() <= 1


# ---- the examples' own test data ----

def test_network_tester_expected_output_exact():
    d = SHARED_MODELS / "examples" / "network_tester"
    x = np.fromfile(d / "input_data.int8.bin", dtype=np.int8)
    (ours, ref), = run_both(d / "network_model.tflite", [[x]])[0]
    assert_same(ours, ref, "network_tester vs LiteRT")
    expected = np.fromfile(d / "expected_output_data.int8.bin", dtype=np.int8)
    assert np.array_equal(ours.ravel(), expected)


def test_dtln_golden():
    d = SHARED_MODELS / "examples" / "dtln"
    path = d / "dtln_noise_suppression.tflite"
    (dtype, shape), = input_dtypes(path)
    x = np.fromfile(d / "feature_data.int8.bin", dtype=np.int8)[: int(np.prod(shape))]
    (ours, ref), = run_both(path, [[x]])[0]
    assert_same(ours, ref, "dtln vs LiteRT")
    golden = np.fromfile(d / "golden_ref.int8.bin", dtype=np.int8)[: ref.size]
    # TFLM's golden differs from LiteRT's reference in 6 of 257 values (by at most 2);
    # LiteRT is the judge, and picolite equals it above.
    diff = np.abs(ours.ravel().astype(np.int64) - golden.astype(np.int64))
    assert diff.max() <= 2 and np.count_nonzero(diff) <= 8


MICRO_SPEECH = SHARED_MODELS / "examples" / "micro_speech"


@pytest.mark.parametrize("sample", ["no_1000ms", "yes_1000ms", "noise_1000ms", "silence_1000ms"])
def test_micro_speech_features_to_outputs(sample):
    data = MICRO_SPEECH / "testdata"
    x = np.fromfile(data / f"{sample}_features.int8.bin", dtype=np.int8)
    (ours, ref), = run_both(MICRO_SPEECH / "micro_speech_quantized.tflite", [[x]])[0]
    assert_same(ours, ref, f"micro_speech {sample} vs LiteRT")
    expected = np.fromfile(data / f"{sample}_micro_speech_output.int8.bin", dtype=np.int8)
    assert np.array_equal(ours.ravel(), expected)


def audio_frames(sample):
    """30 ms frames every 20 ms of a 1 s clip, as TFLM's micro_speech example feeds them."""
    audio = np.fromfile(MICRO_SPEECH / "testdata" / f"{sample}_audio_data.int16le.bin",
                        dtype=np.int16)
    return [audio[i:i + 480].reshape(1, 480) for i in range(0, len(audio) - 479, 320)]


@pytest.mark.parametrize("sample", ["no_1000ms", "yes_1000ms", "noise_1000ms", "silence_1000ms"])
def test_audio_preprocessor_reproduces_tflm_features(sample):
    """TFLM's Signal ops (window, FFT, filter bank, noise reduction, PCAN, log) frame by frame,
    state carried across frames: the int8 features TFLM's example ships, byte for byte."""
    it = picolite.Interpreter(model_path=str(MICRO_SPEECH / "audio_preprocessor_int8.tflite"))
    it.allocate_tensors()
    features = []
    for frame in audio_frames(sample):
        it.set_input(frame, 0)
        it.invoke()
        features.append(it.get_output(0).copy())
    expected = np.fromfile(MICRO_SPEECH / "testdata" / f"{sample}_features.int8.bin", np.int8)
    assert np.array_equal(np.concatenate(features), expected)


def test_float_audio_preprocessor_equals_tflm_frame_by_frame():
    from tflite_micro.python.tflite_micro import runtime

    path = MICRO_SPEECH / "audio_preprocessor_float.tflite"
    ours = picolite.Interpreter(model_path=str(path))
    ours.allocate_tensors()
    tflm = runtime.Interpreter.from_file(str(path), arena_size=1 << 20)
    for k, frame in enumerate(audio_frames("yes_1000ms")):
        if k == 25:  # reset mid-clip: the noise estimate starts over on both
            ours.reset()
            tflm.reset()
        ours.set_input(frame, 0)
        tflm.set_input(frame, 0)
        ours.invoke()
        tflm.invoke()
        assert ours.get_output(0).tobytes() == tflm.get_output(0).tobytes(), f"frame {k}"


@pytest.mark.parametrize("model", ["trained_lstm.tflite", "trained_lstm_int8.tflite"])
def test_mnist_lstm_samples(model):
    d = SHARED_MODELS / "examples" / "mnist_lstm"
    (dtype, shape), = input_dtypes(d / model)
    invocations = []
    for p in sorted((d / "samples").glob("sample*.u8.bin")):  # 28x28 each
        pixels = np.fromfile(p, dtype=np.uint8).astype(np.float32) / 255.0
        if np.issubdtype(dtype, np.integer):
            pixels = np.clip(np.round(pixels * 255 - 128), -128, 127)
        invocations.append([pixels])
    for k, outputs in enumerate(run_both(d / model, invocations)):
        for ours, ref in outputs:
            assert_same(ours, ref, f"{model} sample {k} vs LiteRT")
