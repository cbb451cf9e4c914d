#!/usr/bin/env python3
"""Legacy uint8 models and 16x8 LSTM models: types the main zoo's converter settings miss.

uint8: TensorFlow 2.21's converter makes uint8 (asymmetric, zero points in 0..255) models
only at the interface. A legacy uint8 model (as TF 1.x's converter wrote them, and as LiteRT's
reference kernels still run them) is made here from a converted per-tensor int8 model by
rewriting its flatbuffer: every INT8 tensor becomes UINT8 with the same scale and zero point
+ 128, and constant data moves by +128 with it (int8 q -> uint8 q + 128: the same real
values). Filters must be per-tensor (uint8 kernels take one filter scale), so conversion
disables per-channel quantization. int32 biases stay as they are (zero point 0). Every model
must run in LiteRT's reference kernels (BUILTIN_REF), else it is dropped.

net_fakequant_cnn_uint8 comes from the old way itself: a TF1 graph with fake-quant nodes
converted with inference_type=tf.uint8.

DIV has no quantized model in the main zoo: int8 DIV models (and their uint8 twins) are here.

"_u8io" models are int8 models converted with inference_input_type/output_type = uint8: the
converter adds QUANTIZE uint8 -> int8 at the input and int8 -> uint8 at the output.

int16x8 LSTM: a Keras 2 LSTM converted with EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_
WEIGHTS_INT8 (new and old quantizer). TensorFlow 2.21 refuses it ("Quantization to 16x8-bit
not yet supported for op: 'UNIDIRECTIONAL_SEQUENCE_LSTM'"), so MANIFEST.json lists these
under "dropped"; they are kept here to record that, and appear once a converter makes them.

    python tests/models/uint8/make_uint8.py [--only SUBSTRING] [--no-tflm]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L
U8 = "uint8"


def to_uint8(data: bytes) -> bytes:
    """The legacy uint8 twin of a per-tensor int8 model (see the module docstring)."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as sch

    m = sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))
    for sg in m.subgraphs:
        for t in sg.tensors:
            if t.type != sch.TensorType.INT8:
                continue
            q = t.quantization
            if q is None or q.zeroPoint is None or len(q.zeroPoint) != 1:
                raise ValueError(f"tensor {t.name!r}: not per-tensor quantized")
            t.type = sch.TensorType.UINT8
            q.zeroPoint = [int(q.zeroPoint[0]) + 128]
            buf = m.buffers[t.buffer]
            if buf.data is not None and len(buf.data):
                raw = np.asarray(buf.data, dtype=np.uint8).view(np.int8)
                buf.data = (raw.astype(np.int16) + 128).astype(np.uint8)
    b = flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def quantize_model(in_type, in_q, out_type, out_q, shape):
    """One QUANTIZE (requantize) op written with the schema's object API: the converter
    emits no uint8 -> int16 or uint8 -> uint8 requantize. in_q/out_q: (scale, zero point)."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as sch

    def tensor(name, ttype, q):
        t = sch.TensorT()
        t.name, t.type, t.shape, t.buffer = name, ttype, list(shape), 0
        t.quantization = sch.QuantizationParametersT()
        t.quantization.scale, t.quantization.zeroPoint = [q[0]], [q[1]]
        return t

    m = sch.ModelT()
    m.version = 3
    code = sch.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = sch.BuiltinOperator.QUANTIZE
    code.version = 2
    m.operatorCodes = [code]
    op = sch.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0], [1]
    sg = sch.SubGraphT()
    sg.tensors = [tensor("in", in_type, in_q), tensor("out", out_type, out_q)]
    sg.inputs, sg.outputs, sg.operators = [0], [1], [op]
    m.subgraphs = [sg]
    m.buffers = [sch.BufferT()]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def build_requantize(zoo):
    from tensorflow.lite.python import schema_py_generated as sch

    T = sch.TensorType
    for name, in_type, in_q, out_type, out_q in (
            ("quantize_uint8_to_int16", T.UINT8, (0.05, 120), T.INT16, (0.002, 0)),
            ("quantize_uint8_to_uint8", T.UINT8, (0.05, 120), T.UINT8, (0.03, 100)),
            ("quantize_uint8_to_int8_shift", T.UINT8, (0.05, 128), T.INT8, (0.05, 0))):
        if zoo.wanted(name):
            save(zoo, name, quantize_model(in_type, in_q, out_type, out_q, (2, 40)), "QUANTIZE",
                 U8, "single_op", "uint8 requantize written with the schema object API")


def convert_u8io(obj, specs, seed):
    """int8 inside, uint8 at the interface (QUANTIZE at both ends)."""
    conv = mm.converter_for(obj, specs)
    samples = mm.rep_data(mm.fix_specs(specs), seed)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: iter(samples)
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.uint8
    conv.inference_output_type = tf.uint8
    return conv.convert()


def convert_16x8_lstm(obj, specs, seed):
    """16x8 with the converter's older quantizer: the MLIR one refuses the fused LSTM
    ("Quantization to 16x8-bit not yet supported for op: 'UNIDIRECTIONAL_SEQUENCE_LSTM'")."""
    conv = mm.converter_for(obj, specs)
    samples = mm.rep_data(mm.fix_specs(specs), seed)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: iter(samples)
    conv.target_spec.supported_ops = [
        tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    conv.inference_input_type = tf.int16
    conv.inference_output_type = tf.int16
    conv._experimental_new_quantizer = False
    return conv.convert()


def fakequant_cnn():
    """A TF1 graph with fake-quant nodes converted with inference_type=tf.uint8: the converter
    path that wrote legacy uint8 models (quantization-aware training). Conv + relu, depthwise
    + relu6, average pool, FC, softmax."""
    tf1 = tf.compat.v1
    fq = tf.quantization.fake_quant_with_min_max_args
    rs = np.random.RandomState(mm.seed_of("net_fakequant_cnn_uint8"))

    def const(*shape, lim=0.5):
        return tf.constant(rs.uniform(-lim, lim, shape).astype(np.float32))

    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [1, 12, 12, 3], name="x")
        y = tf.nn.conv2d(fq(x, -1.0, 1.0), fq(const(3, 3, 3, 8), -0.5, 0.5), [1, 1, 1, 1],
                         "SAME")
        y = fq(tf.nn.relu(y + const(8, lim=0.1)), 0.0, 3.0)
        y = tf.nn.depthwise_conv2d(y, fq(const(3, 3, 8, 1), -0.5, 0.5), [1, 2, 2, 1], "SAME")
        y = fq(tf.nn.relu6(y + const(8, lim=0.1)), 0.0, 6.0)
        y = fq(tf.nn.avg_pool2d(y, 2, 2, "VALID"), 0.0, 6.0)
        y = tf.reshape(y, [1, 72])
        y = fq(tf.matmul(y, fq(const(72, 10, lim=0.2), -0.2, 0.2)) + const(10, lim=0.1),
               -8.0, 8.0)
        y = fq(tf.nn.softmax(y), 0.0, 255.0 / 256, name="y")
        with tf1.Session(graph=g) as sess:
            conv = tf1.lite.TFLiteConverter.from_session(sess, [x], [y])
            conv.inference_type = tf.uint8
            conv.quantized_input_stats = {"x": (127.5, 127.5)}
            return conv.convert()


def layer(make, shape):
    return mm.layer_fn(make, shape), mm.f32(shape)


def const_op(f, shape, *extra):
    """fn(x) = f(x, *constants) with float constants of the given shapes."""
    def build(seed):
        rs = np.random.RandomState(seed)
        consts = [tf.constant(rs.uniform(-1, 1, size=s).astype(np.float32)) for s in extra]
        return lambda x: f(x, *consts)
    return build, mm.f32(shape)


def two_inputs(f, s0, s1):
    return (lambda seed: (lambda a, b: f(a, b))), mm.f32(s0, s1)


def single_ops():
    """(name, target, builder(seed) -> callable or Keras layer, specs)"""
    conv = lambda **k: (lambda: L.Conv2D(bias_initializer=mm.bias_init(), **k))  # noqa: E731
    return [
        ("fully_connected_in32_out16", "FULLY_CONNECTED",
         *layer(lambda: L.Dense(16, bias_initializer=mm.bias_init()), (1, 32))),
        ("fully_connected_relu_batch3", "FULLY_CONNECTED",
         *layer(lambda: L.Dense(8, activation="relu", bias_initializer=mm.bias_init()), (3, 24))),
        ("conv_2d_k3_s1_same", "CONV_2D",
         *layer(conv(filters=8, kernel_size=3, padding="same"), (1, 10, 10, 4))),
        ("conv_2d_k3_s2_valid_relu6", "CONV_2D",
         *layer(conv(filters=6, kernel_size=3, strides=2, activation="relu6"), (1, 11, 11, 3))),
        ("depthwise_conv_2d_k3_same_m1", "DEPTHWISE_CONV_2D",
         *layer(lambda: L.DepthwiseConv2D(3, padding="same", bias_initializer=mm.bias_init()),
                (1, 9, 9, 8))),
        ("depthwise_conv_2d_k3_s2_m2_relu", "DEPTHWISE_CONV_2D",
         *layer(lambda: L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, activation="relu",
                                          bias_initializer=mm.bias_init()), (1, 9, 9, 4))),
        ("average_pool_2d_2x2", "AVERAGE_POOL_2D",
         *layer(lambda: L.AveragePooling2D(2), (1, 8, 8, 4))),
        ("average_pool_2d_3x3_s1_same", "AVERAGE_POOL_2D",
         *layer(lambda: L.AveragePooling2D(3, strides=1, padding="same"), (1, 7, 7, 3))),
        ("max_pool_2d_2x2", "MAX_POOL_2D", *layer(lambda: L.MaxPooling2D(2), (1, 8, 8, 4))),
        ("max_pool_2d_3x3_s2_same", "MAX_POOL_2D",
         *layer(lambda: L.MaxPooling2D(3, strides=2, padding="same"), (1, 9, 9, 3))),
        ("softmax_16", "SOFTMAX", *layer(lambda: L.Softmax(), (1, 16))),
        ("softmax_4x10", "SOFTMAX", *layer(lambda: L.Softmax(), (4, 10))),
        ("relu_64", "RELU", *const_op(tf.nn.relu, (1, 64))),
        ("relu6_64", "RELU6", *const_op(tf.nn.relu6, (1, 64))),
        ("relu_n1_to_1_64", "RELU_N1_TO_1",
         *const_op(lambda x: tf.clip_by_value(x, -1.0, 1.0), (1, 64))),
        ("logistic_64", "LOGISTIC", *layer(lambda: L.Activation("sigmoid"), (1, 64))),
        ("tanh_64", "TANH", *layer(lambda: L.Activation("tanh"), (1, 64))),
        ("add_bcast", "ADD", *const_op(lambda x, c: x + c, (1, 4, 4, 8), (8,))),
        ("add_two_inputs", "ADD", *two_inputs(lambda a, b: a + b, (1, 6, 6, 4), (1, 6, 6, 4))),
        ("sub_bcast", "SUB", *const_op(lambda x, c: x - c, (1, 4, 4, 8), (1, 1, 1, 8))),
        ("mul_bcast", "MUL", *const_op(lambda x, c: x * c, (1, 4, 4, 8), (8,))),
        ("mul_two_inputs", "MUL", *two_inputs(lambda a, b: a * b, (2, 12), (2, 12))),
        ("concatenation_axis3", "CONCATENATION",
         *two_inputs(lambda a, b: tf.concat([a, b * 2.0], axis=3), (1, 4, 4, 3),
                     (1, 4, 4, 5))),
        ("reshape_flatten", "RESHAPE",
         *const_op(lambda x: tf.reshape(x * 1.0, (1, 48)), (1, 4, 4, 3))),
        ("pad_hw", "PAD",
         *const_op(lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]), (1, 5, 5, 3))),
        ("mean_axes12_keep", "MEAN",
         *const_op(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), (1, 6, 6, 8))),
        ("mean_axis_last", "MEAN",
         *const_op(lambda x: tf.reduce_mean(x, axis=[3]), (1, 4, 4, 10))),
        ("leaky_relu_64", "LEAKY_RELU",
         *const_op(lambda x: tf.nn.leaky_relu(x, alpha=0.2), (1, 64))),
        ("hard_swish_64", "HARD_SWISH",
         *const_op(lambda x: x * tf.nn.relu6(x + 3.0) * (1.0 / 6.0), (1, 64))),
        ("prelu_4x4x8", "PRELU",
         *layer(lambda: L.PReLU(shared_axes=[1, 2]), (1, 4, 4, 8))),
        ("transpose_conv_k3_s2_same", "TRANSPOSE_CONV",
         *layer(lambda: L.Conv2DTranspose(4, 3, strides=2, padding="same",
                                          bias_initializer=mm.bias_init()), (1, 4, 4, 3))),
        ("maximum_two_inputs", "MAXIMUM",
         *two_inputs(lambda a, b: tf.maximum(a, b), (1, 16), (1, 16))),
        ("minimum_bcast", "MINIMUM",
         *const_op(lambda x, c: tf.minimum(x, c), (2, 8), (8,))),
        ("strided_slice_4d", "STRIDED_SLICE",
         *const_op(lambda x: x[:, 1:5:2, ::2, 1:], (1, 6, 6, 4))),
        ("split_axis3", "SPLIT",
         *const_op(lambda x: tf.split(x, 2, axis=3)[1] * 1.0, (1, 3, 3, 8))),
        ("transpose_0213", "TRANSPOSE",
         *const_op(lambda x: tf.transpose(x, [0, 2, 1, 3]), (1, 3, 4, 5))),
        ("pack_axis1", "PACK",
         *two_inputs(lambda a, b: tf.stack([a, b], axis=1), (2, 6), (2, 6))),
        ("sum_axes12_keep", "SUM",
         *const_op(lambda x: tf.reduce_sum(x, axis=[1, 2], keepdims=True) * 0.1, (1, 3, 3, 4))),
    ]


def net_cnn():
    x = i = K.Input((16, 16, 1), batch_size=1)
    x = L.Conv2D(8, 3, padding="same", activation="relu", bias_initializer=mm.bias_init())(x)
    x = L.DepthwiseConv2D(3, padding="same", activation="relu6",
                          bias_initializer=mm.bias_init())(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Conv2D(12, 1, activation="relu", bias_initializer=mm.bias_init())(x)
    x = L.AveragePooling2D(2)(x)
    x = L.Flatten()(x)
    x = L.Dense(10, bias_initializer=mm.bias_init())(x)
    return K.Model(i, L.Softmax()(x))


def net_lstm():
    x = i = K.Input((10, 6), batch_size=1)
    x = L.LSTM(8, bias_initializer=mm.bias_init())(x)
    return K.Model(i, L.Dense(4, bias_initializer=mm.bias_init())(x))


def net_lstm_seq():
    x = i = K.Input((8, 5), batch_size=1)
    x = L.LSTM(6, return_sequences=True, bias_initializer=mm.bias_init())(x)
    return K.Model(i, x)


def save(zoo, name, data, target, qtype, family, desc, params=None):
    try:
        if isinstance(data, str):
            raise ValueError(data)
        ops, ins, outs = mm.check_model(data, target, mm.F32)  # F32: no I/O type check
    except Exception as e:  # noqa: BLE001
        zoo.dropped.append({"name": name, "target": target, "type": qtype,
                            "reason": str(e).strip().splitlines()[-1][:300]})
        print(f"  DROP {name}: {zoo.dropped[-1]['reason'][:160]}", flush=True)
        return
    zoo.save(name, data, target, qtype, family, desc, params or {}, ops, ins, outs)


# int8 models of ops whose quantized kernels the main zoo lacks, and their uint8 twins.
# Divisors stay above their zero point (LiteRT refuses a zero divisor at invoke).
INT8_TOO = [
    ("div_two_inputs", "DIV",
     *two_inputs(lambda a, b: a / (tf.nn.relu(b) + 0.25), (2, 24), (2, 24))),
    ("div_bcast", "DIV",
     *two_inputs(lambda a, b: a / (tf.nn.relu(b) + 0.25), (1, 4, 4, 6), (6,))),
    ("div_relu6", "DIV",
     *two_inputs(lambda a, b: tf.nn.relu6(a * 4.0 / (tf.nn.relu(b) + 0.5)), (1, 32), (1, 32))),
]


def build_int8_too(zoo):
    for base, target, build, specs in INT8_TOO:
        for qtype in (mm.I8, U8):
            name = f"{base}_{qtype}"
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(base))
            try:
                data = mm.convert(build(mm.seed_of(base)), specs, mm.I8,
                                  mm.seed_of(base) ^ 0x5EED, per_channel=False)
                data = to_uint8(data) if qtype == U8 else data
            except Exception as e:  # noqa: BLE001
                data = f"conversion failed: {e}"
            save(zoo, name, data, target, qtype, "single_op",
                 f"{qtype} {target}" + (" (int8 model rewritten)" if qtype == U8 else ""),
                 {"shapes": [list(s) for s, _ in specs]})


def build_single(zoo):
    for base, target, build, specs in single_ops():
        name = f"{base}_uint8"
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        try:
            fn = build(mm.seed_of(name))
            data = to_uint8(mm.convert(fn, specs, mm.I8, mm.seed_of(name) ^ 0x5EED,
                                       per_channel=False))
        except Exception as e:  # noqa: BLE001
            data = f"conversion failed: {e}"
        save(zoo, name, data, target, U8, "single_op",
             f"legacy uint8 {target} (int8 model rewritten)",
             {"shapes": [list(s) for s, _ in specs]})


def build_nets(zoo):
    nets = [("net_cnn_uint8", net_cnn, "CONV_2D", "legacy uint8 CNN 16x16x1: conv8-dw3-maxpool-"
             "conv1x1-avgpool-dense10-softmax (int8 model rewritten)", "rewrite"),
            ("net_cnn_uint8_float_io", net_cnn, "QUANTIZE", "legacy uint8 CNN with float "
             "input/output (QUANTIZE float->uint8, DEQUANTIZE uint8->float; rewritten)",
             "rewrite_float_io"),
            ("net_cnn_int8_u8io", net_cnn, "QUANTIZE", "int8 CNN with uint8 input/output "
             "(converter-added QUANTIZE uint8<->int8)", "u8io"),
            ("net_lstm_int16x8", net_lstm, "UNIDIRECTIONAL_SEQUENCE_LSTM",
             "LSTM(8) over 10x6 + dense4, 16x8 (int16 activations, int8 weights)", "i16"),
            ("net_lstm_seq_int16x8", net_lstm_seq, "UNIDIRECTIONAL_SEQUENCE_LSTM",
             "LSTM(6) over 8x5 returning sequences, 16x8", "i16")]
    for name, fn, target, desc, how in nets:
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        m = fn()
        specs = [(tuple(t.shape), tf.float32) for t in m.inputs]
        seed = mm.seed_of(name) ^ 0x5EED
        qtype = mm.I16 if how == "i16" else U8
        try:
            if how == "rewrite":
                data = to_uint8(mm.convert(m, specs, mm.I8, seed, per_channel=False))
            elif how == "rewrite_float_io":
                data = to_uint8(mm.convert(m, specs, mm.I8F, seed, per_channel=False))
            elif how == "u8io":
                data = convert_u8io(m, specs, seed)
            else:
                data = convert_16x8_lstm(m, specs, seed)
        except Exception as e:  # noqa: BLE001
            data = f"conversion failed: {str(e).strip().splitlines()[-1]}"
        save(zoo, name, data, target, qtype, "net", desc, {"params": int(m.count_params())})


def build_fakequant(zoo):
    name = "net_fakequant_cnn_uint8"
    if not zoo.wanted(name):
        return
    try:
        data = fakequant_cnn()
    except Exception as e:  # noqa: BLE001
        data = f"conversion failed: {str(e).strip().splitlines()[-1]}"
    save(zoo, name, data, "CONV_2D", U8, "net", "TF1 fake-quant graph converted with "
         "inference_type=uint8: conv-relu, depthwise-relu6, avgpool, FC, softmax")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--no-tflm", action="store_true")
    args = ap.parse_args()
    zoo = mm.Zoo(only=args.only, tflm=not args.no_tflm, out_dir=HERE)
    build_single(zoo)
    build_int8_too(zoo)
    build_nets(zoo)
    build_fakequant(zoo)
    build_requantize(zoo)
    zoo.write_manifest("tests/models/uint8/make_uint8.py")


if __name__ == "__main__":
    main()
