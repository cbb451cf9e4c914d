"""Custom operators on hostile or unsupported parameters: a clear error, never a crash.

Models are written with the zoo's Signal builder (tests/models/signal/make_signal.py), which
needs the TFLite schema module of the tflite-micro wheel. Results against TFLM and LiteRT are
in tests/test_golden.py and tests/test_tflm_zoo.py.
"""

import pathlib
import sys

import numpy as np
import pytest

import picolite
from conftest import in_ci

sys.path.insert(0, str(pathlib.Path(__file__).parent / "models" / "signal"))


@pytest.fixture(scope="module")
def ms():
    try:
        import make_signal
    except ImportError as e:
        if in_ci():
            pytest.fail(f"tflite-micro is not installed: {e}")
        pytest.skip(f"tflite-micro is not installed: {e}")
    return make_signal


def window_model(ms, options, raw=None):
    g = ms.Graph()
    x = g.tensor("x", [64], np.int16)
    w = g.tensor("w", [64], np.int16, np.arange(64))
    y = g.tensor("y", [64], np.int16)
    data = g.model("SignalWindow", options, [x, w], [y])
    if raw is not None:  # replace the encoded options by raw bytes of the same length
        enc = bytes(ms.flexbuffers.Dumps(options))
        assert data.count(enc) == 1 and len(raw) == len(enc)
        data = data.replace(enc, raw)
    return data


def allocate(data):
    it = picolite.Interpreter(model_content=data)
    it.allocate_tensors()
    return it


def test_missing_option_names_the_key(ms):
    with pytest.raises(picolite.ModelError, match="custom option 'shift' is missing"):
        allocate(window_model(ms, {"shiftt": 3}))


def test_out_of_range_option_names_the_range(ms):
    with pytest.raises(picolite.ModelError, match=r"'shift' = 40 is outside 0\.\.31"):
        allocate(window_model(ms, {"shift": 40}))


def test_option_of_the_wrong_type(ms):
    with pytest.raises(picolite.ModelError, match="'shift'.*not a number"):
        allocate(window_model(ms, {"shift": "twelve"}))


def test_every_corruption_of_the_options_is_an_error_or_runs(ms):
    good = bytes(ms.flexbuffers.Dumps({"shift": 12}))
    for i in range(len(good)):
        for v in (0, 1, 0x7F, 0xFF):
            raw = bytearray(good)
            raw[i] = v
            try:
                it = allocate(window_model(ms, {"shift": 12}, bytes(raw)))
            except picolite.ModelError as e:
                assert "custom option" in str(e)
                continue
            it.invoke()


def test_fft_length_with_a_prime_factor_above_five_is_unsupported(ms):
    g = ms.Graph()
    x = g.tensor("x", [14], np.int16)
    y = g.tensor("y", [16], np.int16)
    data = g.model("SignalRfft", {"T": 7, "fft_length": 14}, [x], [y])
    with pytest.raises(picolite.UnsupportedOpError, match="factor 7"):
        allocate(data)


def test_filter_bank_channel_outside_the_spectrum_fails_at_invoke(ms):
    g = ms.Graph()
    x = g.tensor("x", [8], np.uint32)
    tables = [np.ones(4), np.ones(4), [0, 6, 2], [0, 0, 0], [2, 4, 2]]  # bins 6..9 of 8
    ins = [x] + [g.tensor(f"t{i}", [len(t)], np.int16, t) for i, t in enumerate(tables)]
    y = g.tensor("y", [2], np.uint64)
    it = allocate(g.model("SignalFilterBank", {"num_channels": 2}, ins, [y]))
    it.set_input(np.ones(8, np.uint32), 0)
    with pytest.raises(picolite.ModelError, match="channel 1: bins 6"):
        it.invoke()


def test_circular_buffer_runs_the_graph_every_cycles_max_invokes_as_tflm():
    """cycles_max 3: the buffer shifts on every invoke, the RELU after it runs on every
    third (TFLM's kernel aborts the others: its invoke() returns kTfLiteAbort, 15), and
    reset() restarts the count. picolite.runtime returns TFLM's statuses."""
    from conftest import ZOO, require
    from picolite import runtime as ours_rt

    tflm_rt = require("tflite_micro.python.tflite_micro.runtime")
    path = str(ZOO / "custom" / "circular_buffer_4x1x6_cycles3.tflite")
    ours, theirs = ours_rt.Interpreter.from_file(path), tflm_rt.Interpreter.from_file(path)
    statuses, relu_changed = [], []
    rng = np.random.default_rng(3)
    for step in range(15):
        if step == 10:
            assert ours.reset() == 0 and theirs.reset() == 0
        x = rng.integers(-128, 128, (1, 1, 1, 6), dtype=np.int8)
        ours.set_input(x, 0)
        theirs.set_input(x, 0)
        before = ours.get_output(1).copy()
        status = ours.invoke()
        assert status == theirs.invoke()
        statuses.append(status)
        relu_changed.append(before.tobytes() != ours.get_output(1).tobytes())
        if step >= 6:  # every slot and the RELU's last run hold inputs by then
            for o in (0, 1):
                assert ours.get_output(o).tobytes() == theirs.get_output(o).tobytes()
    assert statuses == [15, 15, 0] * 3 + [15] + [15, 15, 0, 15, 15]
    assert not any(c for c, s in zip(relu_changed, statuses) if s == 15)


def test_circular_buffer_with_a_tflm_default_that_depends_on_other_models_is_refused(ms):
    g = ms.Graph()
    x = g.tensor("x", [1, 1, 2, 96], np.int8)
    y = g.tensor("y", [1, 4, 2, 96], np.int8)
    with pytest.raises(picolite.UnsupportedOpError, match="count of earlier prepares"):
        allocate(g.model("CIRCULAR_BUFFER", {}, [x], [y]))


def decode_model(ms, header, table, encoded, out_shape, dtype=np.int8):
    g = ms.Graph()
    enc = g.tensor("enc", [len(encoded)], np.uint8, encoded)
    anc = g.tensor("anc", [16 + len(table)], np.uint8, list(header) + [0] * (16 - len(header))
                   + list(table))
    y = g.tensor("y", out_shape, dtype)
    return g.model("TFLM_DECODE", {}, [enc, anc], [y])


def test_decode_custom_methods_and_other_versions_are_unsupported(ms):
    for header, words in (([128, 1, 0, 0, 1], "decode method 128"),
                          ([0, 0, 0, 0, 1, 2, 4], "header version 0"),
                          ([2, 1, 0, 0, 2], "method version 2")):
        with pytest.raises(picolite.UnsupportedOpError, match=words):
            allocate(decode_model(ms, header, [0] * 4, [0, 1, 2, 3], [8]))


def test_decode_index_past_its_table_is_a_model_error(ms):
    # 2-bit indices 3, 3, 3, 3 into a 3-entry table
    it = allocate(decode_model(ms, [0, 1, 0, 0, 1, 2, 3], [5, 6, 7], [0xFF], [4]))
    with pytest.raises(picolite.ModelError, match="index 3 past the 3-entry value table"):
        it.invoke()


def test_decode_prune_bitmap_past_its_values_is_a_model_error(ms):
    # 8 kept elements, 3 values
    it = allocate(decode_model(ms, [2, 1, 0, 0, 1], [5, 6, 7], [0xFF], [8]))
    with pytest.raises(picolite.ModelError, match="kept value 3 past the 3-entry"):
        it.invoke()


def test_decode_prune_zero_points_outside_int8_are_refused(ms):
    g = ms.Graph()
    enc = g.tensor("enc", [1], np.uint8, [0x0F])
    anc = g.tensor("anc", [20], np.uint8, [2, 1, 0, 0, 1] + [0] * 11 + [1, 0, 2, 0])
    y = g.tensor("y", [8], np.int16)
    q = ms.S.QuantizationParametersT()
    q.scale, q.zeroPoint = [0.5], [3]
    g.tensors[y].quantization = q
    with pytest.raises(picolite.ModelError, match="zero points of 0"):
        allocate(g.model("TFLM_DECODE", {}, [enc, anc], [y]))


def test_decode_huffman_stream_that_ends_early_is_a_model_error(ms):
    # one-level 1-bit table: bit 0 -> value 5, bit 1 -> value 9, each a 1-bit code; 8 bits
    # of stream for 12 values
    table = [5, 0x80 | 1 << 3, 9, 0x80 | 1 << 3]  # little-endian 16-bit entries
    it = allocate(decode_model(ms, [1, 1, 0, 0, 1, 0x00], table, [0b01100000], [12]))
    with pytest.raises(picolite.ModelError, match="stream ends after 8 bits"):
        it.invoke()
    it = allocate(decode_model(ms, [1, 1, 0, 0, 1, 0x00], table, [0b01100000], [8]))
    it.invoke()
    assert it.get_output(0).tolist() == [5, 9, 9, 5, 5, 5, 5, 5]


def test_decode_huffman_pointer_past_its_table_is_a_model_error(ms):
    table = [0x10, 0x00, 0x80 | 1 << 3, 0x00]  # entry 0 points 16 entries on
    it = allocate(decode_model(ms, [1, 1, 0, 0, 1, 0x00], table, [0x00] * 4, [4]))
    with pytest.raises(picolite.ModelError, match="entry 16 past the table's 2"):
        it.invoke()


def test_decode_huffman_int16_needs_32_bit_tables(ms):
    with pytest.raises(picolite.UnsupportedOpError, match="not INT16 with 16-bit tables"):
        allocate(decode_model(ms, [1, 1, 0, 0, 1, 0x00], [0] * 4, [0] * 4, [4], np.int16))


def test_stateful_signal_op_resets(ms):
    g = ms.Graph()
    x = g.tensor("x", [4], np.int16)
    y = g.tensor("y", [4], np.int16)
    it = allocate(g.model("SignalDelay", {"delay_length": 2}, [x], [y]))
    outs = []
    for step in range(3):
        if step == 2:
            it.reset()
        it.set_input(np.arange(1, 5, dtype=np.int16) * (step + 1), 0)
        it.invoke()
        outs.append(it.get_output(0).tolist())
    assert outs == [[0, 0, 1, 2], [3, 4, 2, 4], [0, 0, 3, 6]]
