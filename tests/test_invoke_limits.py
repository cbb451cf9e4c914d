"""What bounds one invoke from Python: one loop budget for every WHILE of the invoke, and
Ctrl-C (a flag the runtime polls before every node and loop iteration)."""

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import picolite

NESTED = pathlib.Path(__file__).parent / "hostile" / "nested_while_int32.tflite"


def run_nested(x, **kw):
    it = picolite.Interpreter(str(NESTED), **kw)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.int32([x]))
    it.invoke()
    return int(it.get_tensor(it.get_output_details()[0]["index"])[0])


def test_one_budget_counts_every_loop_of_the_invoke():
    """100 outer iterations of 50 inner ones: 5100 in all. A budget per node let a WHILE in a
    WHILE run budget x budget times (10^12 by default)."""
    assert run_nested(0, loop_budget=5100) == 5000
    with pytest.raises(picolite.ModelError, match="loop budget ran out"):
        run_nested(0, loop_budget=5099)
    with pytest.raises(picolite.ModelError, match="loop budget ran out"):
        run_nested(0, loop_budget=100)  # per node, 100 allowed 100 x 50


@pytest.mark.parametrize("value, error, text", [
    (-1, ValueError, "got -1"), (0, ValueError, "got 0"),
    (2 ** 32, ValueError, "got 4294967296"), (2 ** 64, ValueError, "got 18446744073709551616"),
    (1.5, TypeError, "integer, got float 1.5"), ("9", TypeError, "integer, got str")])
def test_loop_budget_must_be_an_integer_in_range(value, error, text):
    with pytest.raises(error, match=text):
        picolite.Interpreter(str(NESTED), loop_budget=value)
    with pytest.raises(error, match=text):  # the extension checks it too
        picolite._picolite._Interpreter(NESTED.read_bytes(), picolite.Arena(1 << 16),
                                         "greedy", False, value)


def test_largest_loop_budget_is_accepted():
    assert run_nested(0, loop_budget=2 ** 32 - 1) == 5000
    assert run_nested(0, loop_budget=np.uint32(5100)) == 5000


INTERRUPTED = textwrap.dedent("""
    import signal, sys, time
    import numpy as np
    import picolite
    # Python's own Ctrl-C handler, even where the runner started us with SIGINT ignored (a
    # background job of a non-interactive shell inherits SIG_IGN, which Python keeps)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    it = picolite.Interpreter(sys.argv[1], loop_budget=2 ** 32 - 1)
    it.allocate_tensors()
    x = np.int32([-2 ** 31])  # 43 million outer iterations: hours
    print("ready", flush=True)
    try:
        if sys.argv[2] == "batch":
            it.invoke_batch(np.stack([x, x]))
        else:
            it.set_tensor(it.get_input_details()[0]["index"], x)
            it.invoke()
    except KeyboardInterrupt:
        print("interrupted at", time.monotonic(), flush=True)
    it.set_tensor(it.get_input_details()[0]["index"], np.int32([0]))
    it.invoke()  # still usable
    print("then", int(it.get_tensor(it.get_output_details()[0]["index"])[0]))
""")


@pytest.mark.parametrize("how", ["invoke", "batch"])
def test_ctrl_c_interrupts_a_long_invoke(how):
    """KeyboardInterrupt within 100 ms of Ctrl-C (the poll runs the signal handlers every
    10 ms; the bound asserted here leaves room for a loaded machine); Ctrl-C was ignored.
    The test sends SIGINT itself, half a second into the invoke, as a terminal would (a
    thread of the child would need the scheduler's help on a loaded machine)."""
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(NESTED), how],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 0, err[-2000:]
    lines = out.split("\n")
    assert lines[0].startswith("interrupted at"), out
    assert float(lines[0].split()[-1]) - sent < 1.0, lines[0]
    assert lines[1] == "then 5000"
