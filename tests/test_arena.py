"""picolite.Arena: owned and wrapped buffers, alignment, figures, one interpreter at a time."""

import gc
import pathlib

import numpy as np
import pytest

import picolite

HELLO = "examples/hello_world/hello_world_int8.tflite"


@pytest.fixture
def hello(shared_models):
    return (shared_models / HELLO).read_bytes()


def test_owned_arena_reports_its_size():
    assert picolite.Arena(4096).size == 4096


def test_owned_arena_is_16_byte_aligned():
    for size in (1, 17, 1000, 4096):
        assert picolite.Arena(size).layout()["misalignment"] == 0


def test_free_arena_figures_are_zero():
    a = picolite.Arena(1024)
    assert (a.used, a.head, a.temp, a.tail) == (0, 0, 0, 0)
    assert a.in_use is False


def test_size_keyword():
    assert picolite.Arena(size=64).size == 64


@pytest.mark.parametrize("size", [-1, -4096])
def test_negative_size_is_value_error(size):
    with pytest.raises(ValueError, match=">= 0"):
        picolite.Arena(size)


def test_zero_size_is_an_arena_like_any_too_small_one():
    # 0 bytes is refused where every other too-small size is: by the interpreter
    assert picolite.Arena(0).size == 0


def test_no_argument_is_type_error():
    with pytest.raises(TypeError):
        picolite.Arena()


def test_both_size_and_buffer_is_type_error():
    with pytest.raises(TypeError):
        picolite.Arena(16, bytearray(16))


def test_wraps_bytearray():
    buf = bytearray(2048)
    a = picolite.Arena(buf)
    assert a.size == 2048
    assert a.layout()["owned"] is False


def test_wraps_numpy_array():
    a = picolite.Arena(np.zeros(4096, np.uint8))
    assert a.size == 4096


def test_wraps_numpy_array_by_keyword():
    assert picolite.Arena(buffer=np.zeros(100, np.int32)).size == 400


def test_read_only_buffer_is_refused():
    with pytest.raises(BufferError, match="writable.*the bytes given: it is read-only"):
        picolite.Arena(b"\0" * 64)
    with pytest.raises(BufferError, match="ndarray given: it is read-only"):
        picolite.Arena(buffer=np.frombuffer(b"\0" * 64, np.uint8))


@pytest.mark.parametrize("array", [np.zeros((64, 2), np.uint8)[:, 0],
                                   np.zeros((8, 8), np.uint8).T])
def test_non_contiguous_buffer_is_refused_in_picolites_words(array):
    """It gave numpy's "only integer scalar arrays can be converted to a scalar index"."""
    with pytest.raises(BufferError, match="C-contiguous.*ndarray given: it is not "
                                          "C-contiguous.*ascontiguousarray"):
        picolite.Arena(array)
    with pytest.raises(BufferError, match="not C-contiguous"):
        picolite.Arena(buffer=array)


def test_wrapped_buffer_export_is_held_until_the_arena_dies():
    buf = bytearray(256)
    a = picolite.Arena(buf)
    with pytest.raises(BufferError):
        buf.extend(b"x")  # exported: cannot resize under the arena
    del a
    gc.collect()
    buf.extend(b"x")
    assert len(buf) == 257


def test_repr_is_one_line():
    r = repr(picolite.Arena(512))
    assert "\n" not in r and "size=512" in r and r.startswith("<picolite.Arena")


def test_layout_keys():
    keys = set(picolite.Arena(64).layout())
    assert {"size", "used", "head", "temp", "tail", "free", "owned", "in_use"} <= keys


def test_figures_come_from_the_interpreter(hello):
    arena = picolite.Arena(picolite.required_arena_size(hello, target="picolite"))
    it = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    it.allocate_tensors()
    rec = it.allocations()
    assert arena.in_use
    assert arena.used == rec.total == it.arena_used_bytes()
    assert arena.head == rec.head and arena.tail == rec.tail
    assert arena.temp == rec.temp_high_water
    assert arena.used == arena.head + arena.tail <= arena.size
    layout = arena.layout()
    assert layout["free"] == arena.size - arena.used
    assert "in use" in repr(arena)


def test_second_interpreter_on_a_busy_arena_is_state_error(hello):
    arena = picolite.Arena(picolite.required_arena_size(hello, target="picolite"))
    first = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    with pytest.raises(picolite.StateError, match="arena is in use by another interpreter"):
        picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    del first


def test_closing_frees_the_arena(hello):
    arena = picolite.Arena(picolite.required_arena_size(hello, target="picolite"))
    first = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    first.close()
    assert not arena.in_use
    assert arena.used == 0
    second = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    second.allocate_tensors()


def test_garbage_collecting_frees_the_arena(hello):
    arena = picolite.Arena(picolite.required_arena_size(hello, target="picolite"))
    picolite.Interpreter(target="picolite", model_content=hello, arena=arena)  # dropped at once
    gc.collect()
    assert not arena.in_use
    picolite.Interpreter(target="picolite", model_content=hello, arena=arena).allocate_tensors()


def test_failed_creation_leaves_the_arena_free(hello):
    arena = picolite.Arena(64)
    with pytest.raises(picolite.ArenaTooSmallError):
        picolite.Interpreter(target="picolite", model_content=hello, arena=arena).allocate_tensors()
    gc.collect()
    assert not arena.in_use


def test_wrapped_numpy_arena_runs_like_an_owned_one(hello):
    need = picolite.required_arena_size(hello, target="picolite")
    x = np.array([[17]], np.int8)
    outs = []
    for arena in (picolite.Arena(need), picolite.Arena(np.zeros(need + 16, np.uint8))):
        it = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
        it.allocate_tensors()
        it.set_input(x, 0)
        it.invoke()
        outs.append(it.get_output(0))
    np.testing.assert_array_equal(outs[0], outs[1])


def test_interpreter_keeps_its_arena_alive(hello):
    it = picolite.Interpreter(target="picolite", model_content=hello,
                              arena=picolite.Arena(picolite.required_arena_size(hello, target="picolite")))
    gc.collect()
    it.allocate_tensors()
    it.invoke()
    assert it.arena.used > 0


def test_arena_of_a_wrapped_buffer_keeps_the_buffer_alive(hello):
    need = picolite.required_arena_size(hello, target="picolite")
    arena = picolite.Arena(np.zeros(need + 16, np.uint8))  # the array's only reference
    gc.collect()
    it = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    it.allocate_tensors()
    it.invoke()


def test_misaligned_wrapped_buffer_still_runs(hello):
    need = picolite.required_arena_size(hello, target="picolite")
    base = np.zeros(need + 32, np.uint8)
    offset = (16 - base.ctypes.data % 16) % 16 + 1  # one byte past a 16-byte boundary
    arena = picolite.Arena(base[offset:offset + need + 15])
    assert arena.layout()["misalignment"] == 1
    it = picolite.Interpreter(target="picolite", model_content=hello, arena=arena)
    it.allocate_tensors()
    it.invoke()


def test_misaligned_buffer_loses_the_alignment_bytes(hello):
    need = picolite.required_arena_size(hello, target="picolite")
    base = np.zeros(need + 32, np.uint8)
    offset = (16 - base.ctypes.data % 16) % 16 + 1
    arena = picolite.Arena(base[offset:offset + need])  # 15 bytes go to alignment
    with pytest.raises(picolite.ArenaTooSmallError):
        picolite.Interpreter(target="picolite", model_content=hello, arena=arena).allocate_tensors()


def test_one_arena_for_two_models_in_turn(hello, shared_models):
    add = (shared_models / "examples/memory_footprint/simple_add_model.tflite").read_bytes()
    arena = picolite.Arena(max(picolite.required_arena_size(m, target="picolite") for m in (hello, add)))
    for model in (hello, add, hello):
        with picolite.Interpreter(target="picolite", model_content=model, arena=arena) as it:
            it.allocate_tensors()
            it.invoke()
            assert arena.used == it.arena_used_bytes()
        assert arena.used == 0


# --- what the arena held before: never visible in an output ------------------------------

CUSTOM = pathlib.Path(__file__).parent / "models" / "custom"
STATEFUL = ["circular_buffer_3x1x8.tflite", "circular_buffer_5x2x16.tflite",
            "circular_buffer_3x1x8_cycles2.tflite", "circular_buffer_4x1x6_cycles3.tflite"]


def _outputs_from_an_arena_holding(path, fill, invokes=2):
    """Every output of the first invokes, the arena's buffer filled with `fill` first."""
    need = picolite.required_arena_size(str(path), target="picolite")
    arena = picolite.Arena(np.full(need + 16, fill, np.uint8))
    it = picolite.Interpreter(str(path), arena=arena, target="picolite")
    it.allocate_tensors()
    outs = []
    for k in range(invokes):
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.full(d["shape"], 3 + k, d["dtype"]))
        it.invoke()
        outs += [it.get_tensor(d["index"]).tobytes() for d in it.get_output_details()]
    return outs


@pytest.mark.parametrize("name", STATEFUL)
def test_same_input_gives_the_same_bytes_whatever_the_arena_held(name):
    """CIRCULAR_BUFFER's older slots, and the outputs of a RELU that has not run yet (the
    cycles models abort the invocation before it), start as a zeroed head would leave them
    (a device's arena in .bss), not as whatever the memory held before."""
    a = _outputs_from_an_arena_holding(CUSTOM / name, 0xA5)
    b = _outputs_from_an_arena_holding(CUSTOM / name, 0x5A)
    assert a == b


@pytest.mark.parametrize("name", ["circular_buffer_3x1x8.tflite",
                                  "circular_buffer_5x2x16.tflite"])
def test_circular_buffer_slots_not_yet_filled_hold_zeros(name):
    """Not what prepare left in the head (its records, in temp) nor the arena's old bytes:
    zeros, as a device's arena in .bss starts."""
    it = picolite.Interpreter(str(CUSTOM / name))
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.full(d["shape"], 3, d["dtype"]))
    it.invoke()
    out = it.get_tensor(it.get_output_details()[0]["index"])  # [1, slots, height, depth]
    assert not out[:, :-1].any()
    assert (out[:, -1] == 3).all()


def test_zeroing_the_head_changes_no_arena_figure(hello):
    need = picolite.required_arena_size(hello, target="picolite")
    wrapped = picolite.Interpreter(model_content=hello, target="picolite",
                                   arena=picolite.Arena(np.full(need + 16, 0xA5, np.uint8)))
    owned = picolite.Interpreter(model_content=hello, target="picolite")
    for it in (wrapped, owned):
        it.allocate_tensors()
    figures = [(r.total, r.head, r.tail, r.lower_bound) for r in
               (wrapped.allocations(), owned.allocations())]
    assert figures[0] == figures[1] == (464, 32, 432, 32)
    assert wrapped.arena_used_bytes() == owned.arena_used_bytes() == 464
    assert picolite.required_arena_size(hello, target="picolite") == need == 720
