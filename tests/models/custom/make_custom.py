"""Single-op models of TFLM's custom operators outside the Signal library.

Written like tests/models/signal/make_signal.py (the TFLite schema's object API, options as a
FlexBuffer map). TFLite_Detection_PostProcess runs in LiteRT's reference resolver, which is
its judge (tests/test_golden.py); CIRCULAR_BUFFER only in TFLM ("oracle": "tflm"). It keeps
its output as state: the older slots start as zeros in picolite (the head is zeroed at
allocation) and as whatever TFLM's arena held in TFLM, so its entries say "warmup": the number
of invokes after which every slot holds an input, and tests compare from there on. The cycles models put a RELU after the buffer, which TFLM runs only every
cycles_max invokes (the kernel aborts the invocation on the others).

TFLM_DECODE's lookup-table models come from TFLM's compression tool; its pruning and Huffman
methods have no encoder there yet, so decode_prune() and decode_huffman() encode them here
(the format is the one TFLM's decoders read) and each model is checked to decode, in TFLM,
back to the data it encodes.

    python tests/models/custom/make_custom.py
"""

import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "signal"))

import make_models  # noqa: E402
import make_signal  # noqa: E402
from make_signal import S, Graph  # noqa: E402


def circular_buffer(zoo, slots, height, depth):
    g = Graph()
    i = g.tensor("in", [1, 1, height, depth], np.int16)
    o = g.tensor("out", [1, slots, height, depth], np.int16)
    for t in (i, o):
        g.tensors[t].type = S.TensorType.INT8
    options = {"cycles_max": 1}
    data = g.model("CIRCULAR_BUFFER", options, [i], [o])
    make_signal.tflm_runs(data)
    io = [{"name": "in", "shape": [1, 1, height, depth], "dtype": "int8"}]
    out = [{"name": "out", "shape": [1, slots, height, depth], "dtype": "int8"}]
    zoo.save(f"circular_buffer_{slots}x{height}x{depth}", data, "CIRCULAR_BUFFER", "int8",
             "custom", "single CIRCULAR_BUFFER (int8)", options, ["CIRCULAR_BUFFER"], io, out,
             extra={"oracle": "tflm", "warmup": slots, "tflm": {"status": "warmup"}})


def circular_buffer_cycles(zoo, slots, depth, cycles):
    """CIRCULAR_BUFFER feeding a RELU: with cycles_max > 1 (None: the key absent, TFLM's
    default 2 for this shape) the buffer shifts on every invoke but the RELU runs only on
    every cycles-th, TFLM's kernel aborting the invocation on the others. Both tensors are
    outputs; the RELU's keeps its last value on the skipped invokes."""
    from flatbuffers import Builder

    g = Graph()
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [0.5], [0]
    shapes = {"in": [1, 1, 1, depth], "buffer": [1, slots, 1, depth],
              "out": [1, slots, 1, depth]}
    i, b, o = (g.tensor(n, shp, np.int16) for n, shp in shapes.items())
    for t in (i, b, o):
        g.tensors[t].type, g.tensors[t].quantization = S.TensorType.INT8, q
    codes = [S.OperatorCodeT(), S.OperatorCodeT()]
    codes[0].builtinCode = codes[0].deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    codes[0].customCode, codes[0].version = "CIRCULAR_BUFFER", 1
    codes[1].builtinCode = codes[1].deprecatedBuiltinCode = S.BuiltinOperator.RELU
    codes[1].version = 2
    options = {} if cycles is None else {"cycles_max": cycles}
    cb, relu = S.OperatorT(), S.OperatorT()
    cb.opcodeIndex, cb.inputs, cb.outputs = 0, [i], [b]
    cb.customOptions = list(make_signal.flexbuffers.Dumps(options))
    cb.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
    relu.opcodeIndex, relu.inputs, relu.outputs = 1, [b], [o]
    sg = S.SubGraphT()
    sg.tensors, sg.operators, sg.name = g.tensors, [cb, relu], "main"
    sg.inputs, sg.outputs = [i], [b, o]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, codes, [sg], g.buffers
    m.description = "picolite custom zoo: CIRCULAR_BUFFER cycles"
    fb = Builder(1024)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    data = bytes(fb.Output())
    make_signal.tflm_runs(data)
    every = 2 if cycles is None else cycles
    name = f"circular_buffer_{slots}x1x{depth}_" + ("default" if cycles is None
                                                   else f"cycles{cycles}")
    io = [{"name": "in", "shape": shapes["in"], "dtype": "int8"}]
    out = [{"name": n, "shape": shapes[n], "dtype": "int8"} for n in ("buffer", "out")]
    # from the first RELU run on a full buffer on, every output is defined
    warmup = -(-slots // every) * every
    zoo.save(name, data, "CIRCULAR_BUFFER", "int8", "custom",
             "CIRCULAR_BUFFER (int8) then RELU: the RELU runs every cycles_max invokes",
             {"cycles_max": cycles}, ["CIRCULAR_BUFFER", "RELU"], io, out,
             extra={"oracle": "tflm", "warmup": warmup, "tflm": {"status": "warmup"}})


def detection(zoo, name, n, classes, background=True, quant=False, max_det=10, max_cls=1,
              **options):
    """SSD post-processing over n random anchors (centres in [0.1, 0.9], sizes 0.05..0.3)."""
    rng = np.random.RandomState(len(name))
    anchors = np.concatenate([rng.uniform(0.1, 0.9, (n, 2)), rng.uniform(0.05, 0.3, (n, 2))], 1)
    cb = classes + background
    g = Graph()
    if quant:  # uint8 anchors at scale 1/250
        anchors = np.clip(np.round(anchors * 250), 0, 255).astype(np.uint8)
    b = g.tensor("boxes", [1, n, 4], np.float32)
    c = g.tensor("scores", [1, n, cb], np.float32)
    a = g.tensor("anchors", [n, 4], np.float32, anchors.astype(np.float32))
    if quant:
        g.buffers[g.tensors[a].buffer].data = np.frombuffer(anchors.tobytes(), np.uint8)
        for t, scale, zp in ((b, 0.05, 128), (c, 1 / 255, 0), (a, 1 / 250, 0)):
            g.tensors[t].type = S.TensorType.UINT8
            q = S.QuantizationParametersT()
            q.scale, q.zeroPoint = [scale], [zp]
            g.tensors[t].quantization = q
    rows = max_det * max_cls
    outs = [g.tensor("detection_boxes", [1, rows, 4], np.float32),
            g.tensor("detection_classes", [1, rows], np.float32),
            g.tensor("detection_scores", [1, rows], np.float32),
            g.tensor("num_detections", [1], np.float32)]
    opts = {"max_detections": max_det, "max_classes_per_detection": max_cls,
            "num_classes": classes, "nms_score_threshold": 0.3, "nms_iou_threshold": 0.5,
            "y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0, "w_scale": 5.0, **options}
    data = g.model("TFLite_Detection_PostProcess", opts, [b, c, a], outs)
    dtype = "uint8" if quant else "float32"
    io = [{"name": n_, "shape": s_, "dtype": dtype} for n_, s_ in
          (("boxes", [1, n, 4]), ("scores", [1, n, cb]))]
    out = [{"name": t.name, "shape": list(t.shape), "dtype": "float32"}
           for t in (g.tensors[i] for i in outs)]
    zoo.save(name, data, "TFLite_Detection_PostProcess", dtype, "single_op",
             f"single TFLite_Detection_PostProcess ({dtype})", opts,
             ["TFLite_Detection_PostProcess"], io, out)


def decode(zoo, name, dtype, shape, width, axis=None):
    """A constant of at most 2**width distinct values, compressed by TFLM's own tool (lookup
    table, per tensor or per channel along axis), cut down to the TFLM_DECODE it inserts."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro import compression

    rng = np.random.RandomState(width * 7 + len(shape))
    channels = shape[axis] if axis is not None else 1
    values = rng.randint(-100, 100, (channels, 2 ** width))
    if dtype == np.bool_:
        values = values % 2
    pick = rng.randint(0, 2 ** width, shape)
    chan = np.indices(shape)[axis] if axis is not None else np.zeros(shape, int)
    data = values[chan, pick].astype(dtype)
    if dtype == np.float32:
        data = data / 8
    g = Graph()
    c = g.tensor("weights", shape, dtype, data)
    if axis is not None:
        q = S.QuantizationParametersT()
        q.scale, q.zeroPoint, q.quantizedDimension = [0.5] * channels, [0] * channels, axis
        g.tensors[c].quantization = q
    o = g.tensor("out", shape, dtype)
    base = g.model("SignalDelay", {"delay_length": 0}, [c], [o])  # any consumer of c
    method = f"per_channel:\n            axis: {axis}" if axis is not None else "per_tensor:"
    specs = compression.parse_yaml(f"""
tensors:
  - subgraph: 0
    tensor: {c}
    compression:
      - lut:
          index_bitwidth: {width}
          {method}
""")
    m = S.ModelT.InitFromPackedBuf(bytes(compression.compress(base, specs)), 0)
    sg = m.subgraphs[0]
    dec = [op for op in sg.operators
           if m.operatorCodes[op.opcodeIndex].customCode == b"TFLM_DECODE"]
    sg.operators, sg.inputs, sg.outputs = dec, [], list(dec[0].outputs)
    # the tool leaves the channel scales on the packed uint8 tensor, whose one dimension no
    # longer has a channel per scale (picolite's verifier refuses that); DECODE reads only
    # the output's quantization
    sg.tensors[dec[0].inputs[0]].quantization = None
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    out_bytes = bytes(b.Output())
    make_signal.tflm_runs(out_bytes)
    out = [{"name": "weights_decoded", "shape": list(shape), "dtype": np.dtype(dtype).name}]
    zoo.save(name, out_bytes, "TFLM_DECODE", np.dtype(dtype).name, "custom",
             f"TFLM_DECODE of a {width}-bit lookup table", {"width": width, "axis": axis},
             ["TFLM_DECODE"], [], out, extra={"oracle": "tflm", "tflm": {"status": "exact"}})


def decode_model(zoo, name, method, dtype, data, encoded, ancillary, desc, params, quant=None):
    """A TFLM_DECODE of one constant pair into data's shape; TFLM must decode data back."""
    from tflite_micro.python.tflite_micro import runtime

    g = Graph()
    e = g.tensor("encoded", [len(encoded)], np.uint8, encoded)
    a = g.tensor("ancillary", [len(ancillary)], np.uint8, ancillary)
    o = g.tensor("decoded", list(data.shape), dtype)
    g.tensors[o].quantization = quant
    model = g.model("TFLM_DECODE", {}, [e, a], [o])
    it = runtime.Interpreter.from_bytes(model, arena_size=1 << 16)
    it.invoke()
    assert it.get_output(0).tobytes() == data.tobytes(), f"{name}: TFLM decodes otherwise"
    out = [{"name": "decoded", "shape": list(data.shape), "dtype": np.dtype(dtype).name}]
    zoo.save(name, model, "TFLM_DECODE", np.dtype(dtype).name, "custom", desc,
             {"method": method, **params}, ["TFLM_DECODE"], [], out,
             extra={"oracle": "tflm", "tflm": {"status": "exact"}})


def header(method, params=0):
    """The ancillary data's 16 bytes: method, header version 1, method version 1, params."""
    h = np.zeros(16, np.uint8)
    h[0], h[1], h[4], h[5] = method, 1, 1, params
    return h


def decode_prune(zoo, name, dtype, shape, keep, axis=None, zero_points=None):
    """Pruning (TFLM's method 2; its compression tool has none yet, so encoded here): a
    bitmap over the elements, most significant bit first, and the kept values in order;
    the others decode to their channel's zero point."""
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    values = rng.randint(-120, 120, shape)
    if dtype == np.bool_:
        values = values % 2
    data = values.astype(dtype) if dtype != np.float32 else (values / 8).astype(dtype)
    mask = rng.uniform(0, 1, shape) < keep
    quant, zp = None, np.zeros(shape, np.int64)
    if zero_points is not None:
        quant = S.QuantizationParametersT()
        quant.scale, quant.zeroPoint = [0.5] * len(zero_points), list(zero_points)
        quant.quantizedDimension = axis or 0
        ax = axis if axis is not None else 0
        zp = np.asarray(zero_points)[np.indices(shape)[ax]] if len(zero_points) > 1 else \
            np.full(shape, zero_points[0])
    data = np.where(mask, data, zp.astype(dtype))
    encoded = np.packbits(mask.flatten())
    ancillary = np.concatenate([header(2), np.frombuffer(data[mask].tobytes(), np.uint8)])
    decode_model(zoo, name, "prune", dtype, data, encoded, ancillary,
                 f"TFLM_DECODE pruning ({int(mask.sum())} of {mask.size} kept)",
                 {"keep": keep, "axis": axis, "zero_points": zero_points}, quant)


def huffman_code(symbols, counts):
    """Canonical Huffman code lengths and codes {symbol: (length, code)}."""
    import heapq

    heap = [(c, k, [s]) for k, (s, c) in enumerate(zip(symbols, counts))]
    heapq.heapify(heap)
    length = {s: 0 for s in symbols}
    tick = len(heap)
    while len(heap) > 1:
        c1, _, s1 = heapq.heappop(heap)
        c2, _, s2 = heapq.heappop(heap)
        for s in s1 + s2:
            length[s] += 1
        heapq.heappush(heap, (c1 + c2, tick, s1 + s2))
        tick += 1
    codes, code, prev = {}, 0, 0
    for s in sorted(symbols, key=lambda s: (length[s], s)):
        code <<= length[s] - prev
        codes[s], prev = (length[s], code), length[s]
        code += 1
    return codes


def huffman_tables(codes, first, wide):
    """Xtensa-format decode tables: a first table of 2**first entries, one second-level
    table per prefix of longer codes. Entries: found flag, bits of the code in this lookup
    (or the next lookup's bits - 1), the value (or the offset to the next table)."""
    found, shift = (1 << 31, 27) if wide else (1 << 15, 11)
    mask = (1 << 27) - 1 if wide else (1 << 11) - 1
    table = [None] * (1 << first)
    groups = {}
    for s, (n, c) in codes.items():
        if n <= first:
            for rest in range(1 << (first - n)):
                table[(c << (first - n)) | rest] = found | (n << shift) | (s & mask)
        else:
            groups.setdefault(c >> (n - first), []).append((s, n, c))
    for prefix, members in sorted(groups.items()):
        m = max(n for _, n, _ in members) - first
        start = len(table)
        table += [None] * (1 << m)
        table[prefix] = ((m - 1) << shift) | (start - prefix)
        for s, n, c in members:
            tail = n - first
            low = c & ((1 << tail) - 1)
            for rest in range(1 << (m - tail)):
                table[start + ((low << (m - tail)) | rest)] = found | (tail << shift) | (s & mask)
    assert None not in table
    return np.asarray(table, np.uint32 if wide else np.uint16)


def decode_huffman(zoo, name, dtype, shape, first, wide, alphabet):
    """Huffman (TFLM's method 1, Xtensa decode tables; encoded here, the tool has none yet)
    of values drawn with skewed frequencies from an alphabet of `alphabet` values."""
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    info = np.iinfo(dtype)
    pool = rng.choice(np.arange(info.min, info.max + 1), alphabet, replace=False)
    weights = 0.6 ** np.arange(alphabet)
    data = rng.choice(pool, shape, p=weights / weights.sum()).astype(dtype)
    raw = [int(v) & ((1 << (8 * np.dtype(dtype).itemsize)) - 1) for v in data.flatten()]
    symbols, counts = np.unique(raw, return_counts=True)
    codes = huffman_code([int(s) for s in symbols], [int(c) for c in counts])
    table = huffman_tables(codes, first, wide)
    stream = "".join(format(codes[v][1], f"0{codes[v][0]}b") for v in raw)
    stream += "0" * (-len(stream) % 32)
    encoded = np.packbits(np.array([int(b) for b in stream], np.uint8))
    params = int(wide) | ((first - 1) << 4)
    ancillary = np.concatenate([header(1, params), np.frombuffer(table.tobytes(), np.uint8)])
    decode_model(zoo, name, "huffman", dtype, data, encoded, ancillary,
                 f"TFLM_DECODE Huffman ({max(n for n, _ in codes.values())}-bit longest code, "
                 f"{len(table)} {'32' if wide else '16'}-bit entries)",
                 {"first_lookup_bits": first, "wide_table": wide, "alphabet": alphabet})


if __name__ == "__main__":
    zoo = make_models.Zoo(out_dir=HERE, tflm=False)
    circular_buffer(zoo, 3, 1, 8)
    circular_buffer(zoo, 5, 2, 16)
    circular_buffer_cycles(zoo, 3, 8, 2)
    circular_buffer_cycles(zoo, 4, 6, 3)
    circular_buffer_cycles(zoo, 4, 4, None)
    for w in range(1, 8):
        decode(zoo, f"decode_lut{w}_int8", np.int8, [6, 20], w)
    decode(zoo, "decode_lut4_axis0_int8", np.int8, [4, 3, 10], 4, axis=0)
    decode(zoo, "decode_lut3_axis_last_int8", np.int8, [7, 5], 3, axis=1)
    for t in (np.int16, np.int32, np.int64, np.float32):  # the tool has no bool
        decode(zoo, f"decode_lut2_{np.dtype(t).name}", t, [3, 11], 2)
    decode_prune(zoo, "decode_prune_int8", np.int8, [6, 20], 0.4, zero_points=[-3])
    decode_prune(zoo, "decode_prune_axis0_zero_points_int8", np.int8, [4, 3, 10], 0.5, axis=0,
                 zero_points=[-2, 0, 5, 1])
    decode_prune(zoo, "decode_prune_axis_last_zero_points_int8", np.int8, [7, 5], 0.3,
                 axis=1, zero_points=[4, -4, 0, 9, -1])
    for t in (np.int16, np.int32, np.int64, np.float32, np.bool_):
        decode_prune(zoo, f"decode_prune_{np.dtype(t).name}", t, [3, 11], 0.5)
    decode_huffman(zoo, "decode_huffman_int8", np.int8, [8, 40], 4, False, 24)
    decode_huffman(zoo, "decode_huffman_wide_int8", np.int8, [5, 33], 3, True, 12)
    decode_huffman(zoo, "decode_huffman_int16", np.int16, [6, 25], 5, True, 40)
    zoo.tflm = True  # LiteRT runs the detection models: cross-check TFLM against it
    detection(zoo, "detection_postprocess_fast_float32", 64, 5)
    detection(zoo, "detection_postprocess_fast_2classes_float32", 64, 5, max_cls=2)
    # few detections: the regular path zero-fills the rows after num_detections, where the
    # fast path leaves LiteRT's outputs as they were (so only the regular path is compared)
    detection(zoo, "detection_postprocess_regular_sparse_float32", 32, 3, background=False,
              use_regular_nms=True, nms_score_threshold=0.9)
    detection(zoo, "detection_postprocess_regular_float32", 64, 5, use_regular_nms=True,
              detections_per_class=4)
    detection(zoo, "detection_postprocess_fast_uint8", 64, 5, quant=True)
    detection(zoo, "detection_postprocess_regular_uint8", 48, 4, quant=True,
              use_regular_nms=True)
    zoo.write_manifest("tests/models/custom/make_custom.py")
