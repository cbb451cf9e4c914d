"""Export a model for a TFLM firmware: ``picolite export-c model.tflite --target tflm``.

:func:`export_tflm` writes ``NAME.cc`` and ``NAME.h`` for a firmware built with TensorFlow
Lite Micro (not picolite's runtime): the model as a 16-byte-aligned array, a function that
registers exactly the model's operators in a ``tflite::MicroMutableOpResolver<N>``, and
``kTensorArenaSize``, the exact arena that target's AllocateTensors and Invoke need::

    #include "NAME.h"
    alignas(16) static uint8_t arena[NAME::kTensorArenaSize];
    NAME::OpResolver resolver;
    NAME::RegisterOps(resolver);
    tflite::MicroInterpreter interpreter(tflite::GetModel(NAME::kModel), resolver, arena,
                                         sizeof arena);

A custom operator TFLM ships (CIRCULAR_BUFFER, the Signal library, ...) is added by its own
``Add*`` method; any other one as ``AddCustom(name, Register_<name>())``, a function the
firmware defines.
"""

from pathlib import Path
from typing import List, Tuple, Union

from picolite import _picolite as _c
from picolite._errors import UnsupportedOpError
from picolite._model import ModelLike, read_model
from picolite._unified import Interpreter
from picolite.export import CUSTOM, _array, c_identifier

# MicroMutableOpResolver's method for each builtin operator and each custom one TFLM ships
# (micro_mutable_op_resolver.h at the TFLM revision the targets model).
_BUILTIN_ADDERS = {
    "ABS": "AddAbs", "ADD": "AddAdd", "ADD_N": "AddAddN", "ARG_MAX": "AddArgMax",
    "ARG_MIN": "AddArgMin", "ASSIGN_VARIABLE": "AddAssignVariable",
    "AVERAGE_POOL_2D": "AddAveragePool2D", "BATCH_MATMUL": "AddBatchMatMul",
    "BATCH_TO_SPACE_ND": "AddBatchToSpaceNd", "BROADCAST_ARGS": "AddBroadcastArgs",
    "BROADCAST_TO": "AddBroadcastTo", "CALL_ONCE": "AddCallOnce", "CAST": "AddCast",
    "CEIL": "AddCeil", "CONCATENATION": "AddConcatenation", "CONV_2D": "AddConv2D",
    "COS": "AddCos", "CUMSUM": "AddCumSum", "DEPTHWISE_CONV_2D": "AddDepthwiseConv2D",
    "DEPTH_TO_SPACE": "AddDepthToSpace", "DEQUANTIZE": "AddDequantize", "DIV": "AddDiv",
    "DYNAMIC_UPDATE_SLICE": "AddDynamicUpdateSlice", "ELU": "AddElu",
    "EMBEDDING_LOOKUP": "AddEmbeddingLookup", "EQUAL": "AddEqual", "EXP": "AddExp",
    "EXPAND_DIMS": "AddExpandDims", "FILL": "AddFill", "FLOOR": "AddFloor",
    "FLOOR_DIV": "AddFloorDiv", "FLOOR_MOD": "AddFloorMod",
    "FULLY_CONNECTED": "AddFullyConnected", "GATHER": "AddGather", "GATHER_ND": "AddGatherNd",
    "GREATER": "AddGreater", "GREATER_EQUAL": "AddGreaterEqual", "HARD_SWISH": "AddHardSwish",
    "IF": "AddIf", "L2_NORMALIZATION": "AddL2Normalization", "L2_POOL_2D": "AddL2Pool2D",
    "LEAKY_RELU": "AddLeakyRelu", "LESS": "AddLess", "LESS_EQUAL": "AddLessEqual",
    "LOG": "AddLog", "LOGICAL_AND": "AddLogicalAnd", "LOGICAL_NOT": "AddLogicalNot",
    "LOGICAL_OR": "AddLogicalOr", "LOGISTIC": "AddLogistic", "LOG_SOFTMAX": "AddLogSoftmax",
    "MAXIMUM": "AddMaximum", "MAX_POOL_2D": "AddMaxPool2D", "MEAN": "AddMean",
    "MINIMUM": "AddMinimum", "MIRROR_PAD": "AddMirrorPad", "MUL": "AddMul", "NEG": "AddNeg",
    "NOT_EQUAL": "AddNotEqual", "PACK": "AddPack", "PAD": "AddPad", "PADV2": "AddPadV2",
    "PRELU": "AddPrelu", "QUANTIZE": "AddQuantize", "READ_VARIABLE": "AddReadVariable",
    "REDUCE_ALL": "AddReduceAll", "REDUCE_MAX": "AddReduceMax", "REDUCE_MIN": "AddReduceMin",
    "RELU": "AddRelu", "RELU6": "AddRelu6", "RESHAPE": "AddReshape",
    "RESIZE_BILINEAR": "AddResizeBilinear", "RESIZE_NEAREST_NEIGHBOR": "AddResizeNearestNeighbor",
    "REVERSE_V2": "AddReverseV2", "ROUND": "AddRound", "RSQRT": "AddRsqrt",
    "SELECT_V2": "AddSelectV2", "SHAPE": "AddShape", "SIN": "AddSin", "SLICE": "AddSlice",
    "SOFTMAX": "AddSoftmax", "SPACE_TO_BATCH_ND": "AddSpaceToBatchNd",
    "SPACE_TO_DEPTH": "AddSpaceToDepth", "SPLIT": "AddSplit", "SPLIT_V": "AddSplitV",
    "SQRT": "AddSqrt", "SQUARE": "AddSquare", "SQUARED_DIFFERENCE": "AddSquaredDifference",
    "SQUEEZE": "AddSqueeze", "STRIDED_SLICE": "AddStridedSlice", "SUB": "AddSub", "SUM": "AddSum",
    "SVDF": "AddSvdf", "TANH": "AddTanh", "TRANSPOSE": "AddTranspose",
    "TRANSPOSE_CONV": "AddTransposeConv",
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "AddUnidirectionalSequenceLSTM", "UNPACK": "AddUnpack",
    "VAR_HANDLE": "AddVarHandle", "WHILE": "AddWhile", "ZEROS_LIKE": "AddZerosLike",
}

_CUSTOM_ADDERS = {
    "CIRCULAR_BUFFER": "AddCircularBuffer", "SignalDelay": "AddDelay",
    "SignalEnergy": "AddEnergy", "SignalFftAutoScale": "AddFftAutoScale",
    "SignalFilterBank": "AddFilterBank", "SignalFilterBankLog": "AddFilterBankLog",
    "SignalFilterBankSpectralSubtraction": "AddFilterBankSpectralSubtraction",
    "SignalFilterBankSquareRoot": "AddFilterBankSquareRoot", "SignalFramer": "AddFramer",
    "SignalIrfft": "AddIrfft", "SignalOverlapAdd": "AddOverlapAdd", "SignalPCAN": "AddPCAN",
    "SignalRfft": "AddRfft", "SignalStacker": "AddStacker", "SignalWindow": "AddWindow",
    "TFLM_DECODE": "AddDecode", "TFLite_Detection_PostProcess": "AddDetectionPostprocess",
}

TFLM_TARGETS = ("tflm", "tflm-x86-64", "tflm-cmsis-nn", "tflm-cmsis-nn-mve",
                "tflm-cmsis-nn-nodsp")


def _allocated(content: bytes, target: str) -> Interpreter:
    it = Interpreter(model_content=content, target=target)
    it.allocate_tensors()  # resolves every operator: custom ones get their names
    return it


def model_operators(it: Interpreter) -> List[Tuple[int, str]]:
    """(builtin code, name) of every operator an allocated interpreter's model uses in any
    subgraph, in first-use order; a CUSTOM operator by its custom name."""
    seen: List[Tuple[int, str]] = []
    for sg in range(it.num_subgraphs()):  # control flow's bodies and branches too
        with it._subgraph(sg):
            for i in range(it._c.counts[1]):
                node = it._c.node_info(i)
                key = (int(node["builtin_code"]), str(node["op_name"]))
                if key not in seen:
                    seen.append(key)
    return seen


def _adder(code: int, name: str) -> Tuple[str, str]:
    """The resolver call for one operator, and the declaration it needs ("" if none)."""
    if code == CUSTOM:
        if name in _CUSTOM_ADDERS:
            return f"{_CUSTOM_ADDERS[name]}()", ""
        fn = f"Register_{c_identifier(name)}"
        return f'AddCustom("{name}", {fn}())', f"TFLMRegistration* {fn}();"
    if name not in _BUILTIN_ADDERS:
        raise UnsupportedOpError(f"operator {name} (builtin code {code}) has no kernel in "
                                      f"TFLM's MicroMutableOpResolver")
    return f"{_BUILTIN_ADDERS[name]}()", ""


def _header(name: str, source: str, target: str, arena: int, n_ops: int, decls: str) -> str:
    guard = f"{name.upper()}_TFLM_H"
    return f"""// {name}.h - {source} for TFLM ({target}): the model, its operators, its arena.
// Written by `picolite export-c --target {target}`.
#ifndef {guard}
#define {guard}

#include <cstddef>
#include <cstdint>

#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"

namespace {name} {{

// The .tflite bytes, aligned to 16.
extern const unsigned char kModel[];
extern const size_t kModelSize;

// The smallest arena (a 16-byte-aligned buffer) with which this model's AllocateTensors
// and Invoke succeed on target {target}, as picolite computes it from TFLM's allocator.
constexpr size_t kTensorArenaSize = {arena};

using OpResolver = tflite::MicroMutableOpResolver<{n_ops}>;

// Adds exactly the {n_ops} operators the model uses.
TfLiteStatus RegisterOps(OpResolver& resolver);

}}  // namespace {name}
{decls}
#endif  // {guard}
"""


def _source(name: str, content: bytes, calls: List[str]) -> str:
    body = "\n".join(f"  TF_LITE_ENSURE_STATUS(resolver.{c});" for c in calls)
    return f"""// {name}.cc - written by `picolite export-c`: see {name}.h.
#include "{name}.h"

namespace {name} {{

alignas(16) const unsigned char kModel[] = {{
{_array(content)}
}};
const size_t kModelSize = {len(content)};

TfLiteStatus RegisterOps(OpResolver& resolver) {{
{body}
  return kTfLiteOk;
}}

}}  // namespace {name}
"""


def export_tflm(model: ModelLike, out_dir: Union[str, Path] = ".", name: str = "",
                target: str = "tflm") -> Tuple[Path, Path]:
    """Writes ``NAME.cc`` and ``NAME.h`` for a TFLM firmware of ``target`` and returns their
    paths; ``kTensorArenaSize`` is the exact minimum arena of that target's allocator
    (AllocateTensors and Invoke succeed with it and fail with one byte less)."""
    if target not in TFLM_TARGETS:
        raise ValueError(f"export for TFLM needs a TFLM target (one of {TFLM_TARGETS}), "
                         f"got {target!r}")
    content = read_model(model)
    if not name:
        name = Path(model).stem if isinstance(model, (str, Path)) else "model"
    name = c_identifier(name)
    source = Path(model).name if isinstance(model, (str, Path)) else "model bytes"
    it = _allocated(content, target)
    adders = [_adder(code, op) for code, op in model_operators(it)]
    decls = "\n".join(d for _, d in adders if d)
    if decls:
        decls = "\n// Custom operators the firmware defines.\n" + decls + "\n"
    arena = _c.tflm_arena(it._c, target)["min_arena_bytes"]
    it.close()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cc_path, h_path = out / f"{name}.cc", out / f"{name}.h"
    h_path.write_text(_header(name, source, target, arena, len(adders), decls))
    cc_path.write_text(_source(name, content, [c for c, _ in adders]))
    return cc_path, h_path
