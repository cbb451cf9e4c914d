"""STRING tensors as LiteRT handles them (issue 12): details, set_tensor of str/bytes/object
arrays, get_tensor as an object array of bytes, GATHER of strings bit-exact with LiteRT,
and the arena's fixed room per string tensor (4 * (n + 2) + 64 * n bytes) with clear errors
past it. Models: tests/models/strings/ (make_strings.py)."""

import pathlib

import numpy as np
import pytest

import picolite
from conftest import require
from picolite import interpreter as tfl

MODELS = pathlib.Path(__file__).resolve().parent / "models" / "strings"
GATHER = str(MODELS / "gather_string.tflite")
CONST = str(MODELS / "gather_string_const.tflite")
ZERO_D = str(MODELS / "gather_string_0d.tflite")
LETTERS = np.array(["a", "bb", "ccc", "d", "e", "f", "g", "h", "i", "j"])


def interp(path, **kw):
    it = tfl.Interpreter(model_path=path, **kw)
    it.allocate_tensors()
    return it


def room(n):
    return 4 * (n + 2) + 64 * n


def test_details_are_litert_s():
    it = interp(GATHER)
    strings, indices = it.get_input_details()
    assert (strings["name"], strings["dtype"], list(strings["shape"])) == ("input", np.bytes_,
                                                                           [10])
    assert (indices["dtype"], list(indices["shape"])) == (np.int64, [3])
    out = it.get_output_details()[0]
    assert (out["dtype"], list(out["shape"])) == (np.bytes_, [3])
    assert strings["quantization"] == (0.0, 0) and out["quantization"] == (0.0, 0)
    assert len(strings["quantization_parameters"]["scales"]) == 0


def test_gather_of_strings():
    it = interp(GATHER)
    it.set_tensor(1, np.array([1, 2, 3], np.int64))
    it.set_tensor(0, LETTERS)
    it.invoke()
    got = it.get_tensor(2)
    assert got.dtype == object and got.shape == (3,)
    assert got.tolist() == [b"bb", b"ccc", b"d"]
    assert it.get_tensor(0).tolist() == [s.encode() for s in LETTERS]


@pytest.mark.parametrize("value, want", [
    (np.array(["x", "h\u00e9", "", "a\x00b"] + ["."] * 6), [b"x", "h\u00e9".encode(), b"",
                                                            b"a\x00b"]),
    (np.array([b"x\x00\x00", b"yy", b"", b"z"] + [b"."] * 6), [b"x", b"yy", b"", b"z"]),
    (np.array(["s", b"b\x00", "", "t"] + ["."] * 6, dtype=object), [b"s", b"b\x00", b"",
                                                                    b"t"]),
])
def test_str_bytes_and_object_arrays_as_litert_writes_them(value, want):
    it = interp(GATHER)
    it.set_tensor(0, value)
    assert it.get_tensor(0).tolist()[:4] == want  # 'S' drops trailing NULs, str is UTF-8


def test_zero_dim_string_is_its_raw_bytes():
    it = interp(ZERO_D)
    data = b"abcd" + bytes(16)
    it.set_tensor(0, np.array(data))
    got = it.get_tensor(0)
    assert got.shape == () and len(got.item(0)) == len(data) and got.item(0) == data
    it.invoke()
    assert it.get_tensor(it.get_output_details()[0]["index"]).tolist() == [data, data]
    it.set_tensor(0, np.array("h\u00e9"))  # a 0-d str array: its UCS-4 bytes, as LiteRT
    assert it.get_tensor(0).item(0) == "h\u00e9".encode("utf-32-le")
    it.set_tensor(0, np.array(["ok"], dtype=object).reshape(()))  # the element itself
    assert it.get_tensor(0).item(0) == b"ok"


def test_constant_vocabulary():
    it = interp(CONST)
    it.set_tensor(0, np.array([3, 0, 2, 4], np.int32))
    it.invoke()
    out = it.get_output_details()[0]["index"]
    assert it.get_tensor(out).tolist() == [b"three\x00x", b"zero", b"", b"four"]
    params = next(d for d in it.get_tensor_details() if d["name"] == "GatherV2/params")
    assert it.get_tensor(params["index"]).tolist() == [b"zero", b"one", b"", b"three\x00x",
                                                       b"four"]
    with pytest.raises(ValueError, match="is a constant of the model"):
        it.set_tensor(params["index"], np.array(["a"] * 5))


def test_unset_string_tensor_reads_as_nones_like_litert():
    it = interp(GATHER)
    assert it.get_tensor(0).tolist() == [None] * 10


def test_every_string_tensor_gets_its_documented_room():
    it = interp(GATHER)
    assert it._c.tensor_info(0)["bytes"] == room(10)
    assert it._c.tensor_info(2)["bytes"] == room(3)
    zero_d = interp(ZERO_D)
    assert zero_d._c.tensor_info(0)["bytes"] == room(1)
    own = picolite.Interpreter(model_path=GATHER, target="picolite")
    own.allocate_tensors()
    assert picolite.required_arena_size(GATHER, target="picolite") == own.allocations().total


def test_wrong_values_keep_litert_messages():
    it = interp(GATHER)
    with pytest.raises(ValueError, match="Got value of type INT64 but expected type STRING"):
        it.set_tensor(0, np.arange(10))
    with pytest.raises(ValueError, match="Got value of type STRING but expected type INT64"):
        it.set_tensor(1, np.array(["1", "2", "3"]))
    with pytest.raises(ValueError, match="Dimension mismatch. Got 9 but expected 10"):
        it.set_tensor(0, LETTERS[:9])
    with pytest.raises(ValueError, match=r"PyBytes_AsStringAndSize\(\) failed"):
        it.set_tensor(0, np.array([1] + ["a"] * 9, dtype=object))


def test_strings_past_the_room_are_refused_naming_the_sizes():
    it = interp(GATHER)
    with pytest.raises(ValueError, match=rf"take 748 bytes .* holds {room(10)} bytes"):
        it.set_tensor(0, np.array(["x" * 70] * 10))
    it.set_tensor(0, np.array(["x" * 600] + [""] * 9))  # one string may use the others' room
    assert len(it.get_tensor(0)[0]) == 600
    it.set_tensor(1, np.array([0, 0, 1], np.int64))
    with pytest.raises(ValueError, match=rf"need more than the output's {room(3)} bytes"):
        it.invoke()
    it.set_tensor(1, np.array([0, 1, 2], np.int64))  # 600 bytes alone pass the 212
    with pytest.raises(ValueError, match="need more than the output's"):
        it.invoke()
    it.set_tensor(1, np.array([1, 2, 3], np.int64))
    it.invoke()
    assert it.get_tensor(2).tolist() == [b"", b"", b""]


def test_index_out_of_range_fails_the_invoke():
    it = interp(GATHER)
    it.set_tensor(0, LETTERS)
    it.set_tensor(1, np.array([1, 2, 10], np.int64))
    with pytest.raises(ValueError, match="index 10 .* is outside 0..9"):
        it.invoke()


def test_damaged_string_buffer_fails_cleanly():
    buf = np.zeros(1 << 14, np.uint8)
    it = tfl.Interpreter(model_path=GATHER, arena=picolite.Arena(buf))
    it.allocate_tensors()
    it.set_tensor(0, LETTERS)
    it.set_tensor(1, np.array([0, 1, 2], np.int64))
    at = it._c.tensor_info(0)["offset"]
    offsets = buf[at + 4:at + 4 + 4 * 11].view("<i4")
    offsets[2] = 1 << 30  # string 1 now ends far past the tensor
    with pytest.raises(ValueError, match="string 1 of params .* outside its text"):
        it.invoke()
    with pytest.raises(ValueError, match="holds no valid string buffer"):
        it.get_tensor(0)
    buf[at:at + 4] = 7  # the count no longer matches the shape
    with pytest.raises(ValueError, match="holds no buffer of 10 strings"):
        it.invoke()


def test_malformed_constant_strings_are_refused_at_load():
    data = bytearray(pathlib.Path(CONST).read_bytes())
    head = np.array([5, 28], "<i4").tobytes()  # count 5, first offset past 7 int32s
    at = data.find(head)
    assert at > 0
    data[at + 4 * 6:at + 4 * 7] = np.array([1 << 20], "<i4").tobytes()  # the last offset
    with pytest.raises(picolite.ModelError, match="string offset 5 is 1048576"):
        tfl.Interpreter(model_content=bytes(data))


@pytest.mark.parametrize("model, feeds", [
    (GATHER, {1: np.array([9, 0, 9], np.int64),
              0: np.array([b"x\x00", b"", "h\u00e9", b"a\x00b", "e", "f", "g", "h", "i", "j"],
                          dtype=object)}),
    (GATHER, {1: np.array([1, 2, 3], np.int64), 0: LETTERS.astype("S3")}),
    (CONST, {0: np.array([4, 4, 2, 1], np.int32)}),
    (ZERO_D, {0: np.array(b"abcd" + bytes(16))}),
    (ZERO_D, {0: np.array("h\u00e9llo")}),
])
def test_bit_exact_with_litert(model, feeds):
    litert = require("ai_edge_litert.interpreter")
    results = []
    for make in (tfl.Interpreter, litert.Interpreter):
        it = make(model_path=model)
        it.allocate_tensors()
        ins = it.get_input_details()
        for k, v in feeds.items():
            it.set_tensor(ins[k]["index"], v)
        back = [it.get_tensor(d["index"]) for d in ins]
        it.invoke()
        results.append(back + [it.get_tensor(o["index"]) for o in it.get_output_details()])
    for mine, theirs in zip(*results):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
        assert mine.tolist() == theirs.tolist()
