"""Misuse of the Python API: each case raises a clear error, never a crash (issue 12).

Crash reproducers run in a subprocess, so a segfault fails the test instead of pytest."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import picolite
from conftest import require

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = str(ROOT / "tests" / "models" / "conv_2d_k3_s1_same_float32.tflite")


def run_child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_writing_the_wrapped_buffer_tail_raises_instead_of_crashing():
    r = run_child(f"""
        import numpy as np, picolite
        buf = np.zeros(1 << 16, np.uint8)
        it = picolite.Interpreter({MODEL!r}, arena=picolite.Arena(buf))
        it.allocate_tensors(); it.invoke()
        buf[-4096:] = 0xAB
        for call in (it.invoke, it.reset, it.allocations):
            try:
                call()
            except picolite.StateError as e:
                print("refused:", e)
        del it
        print("alive")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("refused: arena damaged") == 3
    assert "alive" in r.stdout


def test_damage_names_what_was_overwritten():
    buf = np.zeros(1 << 16, np.uint8)
    # picolite's own arena: the sealed tail is its tail (a TFLM target reports TFLM's)
    it = picolite.Interpreter(MODEL, arena=picolite.Arena(buf), target="picolite")
    it.allocate_tensors()
    tail = it.allocations().tail
    buf[len(buf) - tail:len(buf) - tail + 8] ^= 0xFF  # the lowest sealed tail bytes
    with pytest.raises(picolite.StateError, match="arena damaged: the .* overwritten"):
        it.invoke()
    buf[:] = 0  # no crash at exit either


def test_intact_arena_invokes_repeatedly_with_views_and_resets():
    it = picolite.Interpreter(MODEL)
    it.allocate_tensors()
    x = it.get_input_details()[0]
    for _ in range(3):
        it.set_tensor(x["index"], np.ones(x["shape"], np.float32))
        it.invoke()
        it.reset()
    assert it.get_output(0).shape == tuple(it.get_output_details(0)["shape"])


def test_arena_inside_another_interpreters_tensor_view_is_refused():
    r = run_child(f"""
        import numpy as np, picolite
        a = picolite.Interpreter({MODEL!r}); a.allocate_tensors()
        view = a.tensor(a.get_input_details()[0]["index"])()
        try:
            picolite.Arena(view.view(np.uint8).reshape(-1))
        except ValueError as e:
            print("refused:", e)
    """)
    assert r.returncode == 0, r.stderr
    assert "refused: Arena: the buffer" in r.stdout


def test_two_arenas_over_one_buffer_are_refused():
    buf = np.zeros(8192, np.uint8)
    first = picolite.Arena(buf)
    with pytest.raises(ValueError, match="overlaps the memory of a live Arena"):
        picolite.Arena(buf[100:200])
    del first
    assert picolite.Arena(buf).size == 8192  # free again once the first is gone


def test_arena_zero_is_arena_too_small_like_any_small_size():
    need = picolite.required_arena_size(MODEL)
    for size in (0, 1, need - 1):
        with pytest.raises(picolite.ArenaTooSmallError) as e:
            picolite.Interpreter(MODEL, arena_size=size).allocate_tensors()
        assert e.value.required == need
    with pytest.raises(ValueError, match=">= 0"):
        picolite.Interpreter(MODEL, arena_size=-1)


@pytest.mark.parametrize("bad", [1.5, "1", None])
def test_tensor_index_must_be_an_integer(bad):
    it = picolite.Interpreter(MODEL)
    it.allocate_tensors()
    with pytest.raises(TypeError, match="must be an integer"):
        it.get_tensor(bad)
    assert it.get_tensor(np.int64(0)).shape  # numpy integers are indices


def test_misaligned_wrapped_buffer_error_states_the_slack():
    need = picolite.required_arena_size(MODEL, target="picolite")
    raw = np.zeros(need + 64, np.uint8)
    start = (16 - raw.ctypes.data % 16) % 16 + 3  # 3 bytes past a 16-byte boundary
    with pytest.raises(picolite.ArenaTooSmallError, match="must hold") as e:
        picolite.Interpreter(MODEL, arena=picolite.Arena(raw[start:start + need])
                             ).allocate_tensors()
    assert e.value.required == need + 13


def test_misaligned_wrapped_buffer_of_required_plus_slack_fits():
    need = picolite.required_arena_size(MODEL, target="picolite")
    raw = np.zeros(need + 64, np.uint8)
    start = (16 - raw.ctypes.data % 16) % 16 + 3
    it = picolite.Interpreter(MODEL, arena=picolite.Arena(raw[start:start + need + 13]))
    it.allocate_tensors()


def _many_tensor_model_with_unknown_op(n_tensors):
    """One custom op picolite does not have, and enough tensors that their records alone
    exceed 64 KiB (the stand-in arena the default size used to fall back to)."""
    schema = require("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    flatbuffers = require("flatbuffers")
    m = schema.ModelT()
    m.version = 3
    oc = schema.OperatorCodeT()
    oc.builtinCode = oc.deprecatedBuiltinCode = 32  # CUSTOM
    oc.customCode = "NotAPicoliteOp"
    oc.version = 1
    m.operatorCodes = [oc]
    m.buffers = [schema.BufferT()]
    sg = schema.SubGraphT()
    sg.tensors = []
    for i in range(n_tensors):
        t = schema.TensorT()
        t.shape, t.type, t.buffer, t.name = [1], 0, 0, f"t{i}"
        sg.tensors.append(t)
    op = schema.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0], [n_tensors - 1]
    sg.operators, sg.inputs, sg.outputs = [op], [0], [n_tensors - 1]
    m.subgraphs = [sg]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def test_default_arena_never_turns_an_unsupported_op_into_arena_too_small():
    model = _many_tensor_model_with_unknown_op(7000)
    it = picolite.Interpreter(model_content=model)
    with pytest.raises(picolite.UnsupportedOpError, match="NotAPicoliteOp"):
        it.allocate_tensors()


def test_no_format_features_python39_lacks_in_extension_messages():
    # PyUnicode_FromFormat / PyErr_Format gained "%.*s" only in 3.12: it prints literally
    # before, and so does any precision or width on %s/%U/%S/%R/%A.
    bad = re.compile(r'%[-0-9.*]+[sUSRAV]')
    for path in sorted((ROOT / "src").glob("*.c")):
        text = path.read_text()
        for call in re.finditer(r"(PyErr_Format|PyUnicode_FromFormat\w*|pl_py_state_error)"
                                r"\((.*?)\);", text, re.S):
            assert not bad.search(call.group(2)), f"{path.name}: {call.group(0)[:120]}"


def test_ctrl_c_stops_a_long_plan():
    # 300000 buffers all live at node 0: greedy's first fit is quadratic (minutes)
    code = textwrap.dedent("""
        import signal, sys, time, picolite
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        t = time.time()
        try:
            picolite.plan_memory([(16 + i % 7, 0, 0) for i in range(300000)], "greedy")
        except KeyboardInterrupt:
            print("interrupted after %.1f s" % (time.time() - t), flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "start"
        import time
        time.sleep(1.0)
        p.send_signal(__import__("signal").SIGINT)
        out, _ = p.communicate(timeout=30)
    finally:
        p.kill()
    assert out.startswith("interrupted after")


def test_large_plan_lower_bound_is_the_sweep():
    # 200000 buffers: the quadratic bound would take minutes; linear planning is instant
    bufs = [(8, i, i + 2) for i in range(200000)]
    r = picolite.plan_memory(bufs, "linear")
    assert r.lower_bound == 24 and r.total == 8 * 200000
