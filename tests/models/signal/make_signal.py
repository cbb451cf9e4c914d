"""Single-op models of TFLM's Signal library operators, for every dtype TFLM's kernels take.

The tflite-micro wheel ships no TensorFlow-side Signal ops (no tflite_micro...signal.ops and
no kernel .so), so TensorFlow's converter cannot make these models. They are written here
directly with the TFLite schema's flatbuffer object API (the schema module the tflite-micro
wheel ships): one CUSTOM operator named as TFLM registers it, its options a FlexBuffer map
(keys sorted, as TFLM's kernels read them by position), tables taken from TFLM's own
micro_speech audio preprocessor where the op needs realistic constants.

LiteRT cannot load Signal ops, so every entry says "oracle": "tflm": tests/test_golden.py
compares these models with TFLM's Python interpreter over several invokes and a reset, and
tests/test_tflm_zoo.py side by side as for every zoo model. Each model is run through TFLM
here once; a model TFLM refuses is not written.

    python tests/models/signal/make_signal.py
"""

import os
import sys

import numpy as np
from flatbuffers import Builder, flexbuffers

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

HERE = os.path.dirname(os.path.abspath(__file__))

# ../shared beside the project (PICOLITE_SHARED overrides, e.g. for a git worktree)
SHARED = os.environ.get("PICOLITE_SHARED",
                        os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))),
                                     "..", "shared"))
PREPROCESSOR = os.path.join(SHARED, "models", "tflm", "examples", "micro_speech",
                            "audio_preprocessor_int8.tflite")

NP_TO_TFL = {np.float32: S.TensorType.FLOAT32, np.int16: S.TensorType.INT16,
             np.int32: S.TensorType.INT32, np.uint32: S.TensorType.UINT32,
             np.uint64: S.TensorType.UINT64, np.bool_: S.TensorType.BOOL,
             np.int8: S.TensorType.INT8, np.uint8: S.TensorType.UINT8,
             np.int64: S.TensorType.INT64}


class Graph:
    """One subgraph with one CUSTOM operator: tensors are (name, shape, dtype[, data])."""

    def __init__(self):
        self.tensors, self.buffers = [], [S.BufferT()]

    def tensor(self, name, shape, dtype, data=None):
        t = S.TensorT()
        t.name, t.shape, t.type = name, list(shape), NP_TO_TFL[dtype]
        t.buffer = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.asarray(data, dtype).tobytes(), np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def model(self, op_name, options, ins, outs):
        oc = S.OperatorCodeT()
        oc.builtinCode = oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
        oc.customCode, oc.version = op_name, 1
        op = S.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = 0, ins, outs
        op.customOptions = list(flexbuffers.Dumps(options))
        op.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
        sg = S.SubGraphT()
        sg.tensors, sg.operators, sg.name = self.tensors, [op], "main"
        constants = {i for i, t in enumerate(self.tensors) if t.buffer != 0}
        sg.inputs = [i for i in ins if i not in constants]
        sg.outputs = outs
        m = S.ModelT()
        m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, [oc], [sg], self.buffers
        m.description = f"picolite signal zoo: {op_name}"
        b = Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def preprocessor_constants():
    """Filter bank tables, PCAN gain table and window of TFLM's micro_speech preprocessor."""
    m = S.ModelT.InitFromPackedBuf(open(PREPROCESSOR, "rb").read(), 0)
    sg = m.subgraphs[0]

    def const(op, i, dtype):
        return np.frombuffer(bytes(m.buffers[sg.tensors[op.inputs[i]].buffer].data), dtype)

    found = {}
    for op in sg.operators:
        name = m.operatorCodes[op.opcodeIndex].customCode
        if name == b"SignalFilterBank":
            found["filter_bank"] = [const(op, i, np.int16) for i in range(1, 6)]
        elif name == b"SignalPCAN":
            found["pcan_lut"] = const(op, 2, np.int16)
        elif name == b"SignalWindow":
            found["window"] = const(op, 1, np.int16)
    return found


def models(c):
    """(name, op, options, tensors of inputs, tensors of outputs, dtype) per model; a tensor
    is (shape, dtype) or (shape, dtype, constant data)."""
    i16, i32, u32, u64, f32, b = np.int16, np.int32, np.uint32, np.uint64, np.float32, np.bool_
    spectral = {"alternate_one_minus_smoothing": 15401, "alternate_smoothing": 983,
                "min_signal_remaining": 819, "num_channels": 40, "one_minus_smoothing": 15975,
                "smoothing": 409, "smoothing_bits": 10, "spectral_subtraction_bits": 14}
    rng = np.random.RandomState(7)
    yield ("window_480", "SignalWindow", {"shift": 12},
           [([1, 480], i16), ([480], i16, c["window"])], [([1, 480], i16)], "int16")
    yield ("window_2x64", "SignalWindow", {"shift": 8},
           [([2, 64], i16), ([64], i16, rng.randint(-32768, 32768, 64))], [([2, 64], i16)],
           "int16")
    yield ("fft_auto_scale_480", "SignalFftAutoScale", {}, [([480], i16)],
           [([480], i16), ([], i32)], "int16")
    for t, name in ((i16, "int16"), (i32, "int32"), (f32, "float32")):
        code = NP_TO_TFL[t]
        for n, length in ((512, 480), (480, 480), (256, 200)):
            yield (f"rfft_{n}_{name}", "SignalRfft", {"T": code, "fft_length": n},
                   [([2, length], t)], [([2, n + 2], t)], name)
            yield (f"irfft_{n}_{name}", "SignalIrfft", {"T": code, "fft_length": n},
                   [([2, n + 2], t)], [([2, n], t)], name)
    yield ("energy_257", "SignalEnergy", {"end_index": 257, "start_index": 0},
           [([514], i16)], [([257], u32)], "int16")
    yield ("filter_bank_40", "SignalFilterBank", {"num_channels": 40},
           [([257], u32)] + [([len(x)], i16, x) for x in c["filter_bank"]], [([40], u64)],
           "uint32")
    yield ("filter_bank_square_root_40", "SignalFilterBankSquareRoot", {},
           [([40], u64), ([], i32, [3])], [([40], u32)], "uint64")
    for clamp in (False, True):
        yield (f"spectral_subtraction_40{'_clamping' if clamp else ''}",
               "SignalFilterBankSpectralSubtraction", dict(spectral, clamping=clamp),
               [([40], u32)], [([40], u32), ([40], u32)], "uint32")
    yield ("pcan_40", "SignalPCAN", {"snr_shift": 6},
           [([40], u32), ([40], u32), ([len(c["pcan_lut"])], i16, c["pcan_lut"])],
           [([40], u32)], "uint32")
    yield ("filter_bank_log_40", "SignalFilterBankLog",
           {"input_correction_bits": 3, "output_scale": 64}, [([40], u32)], [([40], i16)],
           "uint32")
    yield ("framer_400_160_prefill", "SignalFramer",
           {"frame_size": 400, "frame_step": 160, "prefill": True},
           [([2, 320], i16)], [([2, 2, 400], i16), ([], b)], "int16")
    yield ("framer_64_64", "SignalFramer", {"frame_size": 64, "frame_step": 64, "prefill": False},
           [([128], i16)], [([2, 64], i16), ([], b)], "int16")
    yield ("stacker_40_left3_step2", "SignalStacker",
           {"num_channels": 40, "stacker_left_context": 3, "stacker_right_context": 0,
            "stacker_step": 2}, [([40], i16)], [([160], i16), ([], b)], "int16")
    for t, name in ((i16, "int16"), (f32, "float32")):
        yield (f"overlap_add_3x64_step32_{name}", "SignalOverlapAdd",
               {"T": NP_TO_TFL[t], "frame_step": 32}, [([3, 64], t)], [([96], t)], name)
    yield ("delay_2x64_by10", "SignalDelay", {"delay_length": 10}, [([2, 64], i16)],
           [([2, 64], i16)], "int16")
    yield ("delay_32_by100", "SignalDelay", {"delay_length": 100}, [([32], i16)],
           [([32], i16)], "int16")


def io(graph, indices):
    return [{"name": graph.tensors[i].name.decode() if isinstance(graph.tensors[i].name, bytes)
             else graph.tensors[i].name, "shape": list(graph.tensors[i].shape),
             "dtype": np.dtype(TFL_TO_NP[graph.tensors[i].type]).name} for i in indices]


TFL_TO_NP = {v: k for k, v in NP_TO_TFL.items()}


def tflm_runs(data):
    """TFLM loads and invokes the model (the oracle must have an answer)."""
    from tflite_micro.python.tflite_micro import runtime
    it = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    it.invoke()
    return True


def build(zoo):
    consts = preprocessor_constants()
    for name, op, options, ins, outs, dtype in models(consts):
        g = Graph()
        in_idx = [g.tensor(f"in{i}", *t) for i, t in enumerate(ins)]
        out_idx = [g.tensor(f"out{i}", *t) for i, t in enumerate(outs)]
        data = g.model(op, options, in_idx, out_idx)
        try:
            tflm_runs(data)
        except Exception as e:  # noqa: BLE001 - any refusal drops the model, with the reason
            zoo.dropped.append({"name": name, "reason": f"TFLM: {e}"})
            continue
        inputs = [i for i in in_idx if g.tensors[i].buffer == 0]
        zoo.save(name, data, op, dtype, "signal", f"single {op} ({dtype})", options, [op],
                 io(g, inputs), io(g, out_idx),
                 extra={"oracle": "tflm", "tflm": {"status": "exact"}})


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models (TensorFlow)
    import make_models

    zoo = make_models.Zoo(out_dir=HERE, tflm=False)
    build(zoo)
    zoo.write_manifest("tests/models/signal/make_signal.py")
