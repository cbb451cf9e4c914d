"""Multi-subgraph models (tests/models/subgraphs): control flow, resource variables and
signatures against LiteRT BUILTIN_REF, and the arena against TFLM's."""

import re
import subprocess
import sys

import numpy as np
import pytest

import picolite
from reference import make_interpreter

from conftest import ZOO, require

SUB = ZOO / "subgraphs"
MODELS = sorted(p.name for p in SUB.glob("*.tflite"))


def run_both(path, steps, reset_at=None, seed=0):
    """Steps compared with LiteRT. At reset_at picolite resets as TFLM does (resource
    variables back to zero; LiteRT's reset_all_variables keeps them), so LiteRT starts anew:
    these models' CALL_ONCE initialises the variables to zeros."""
    ours = picolite.Interpreter(str(path))
    ours.allocate_tensors()
    ref = make_interpreter(str(path))
    rs = np.random.RandomState(seed)
    for step in range(steps):
        if step == reset_at:
            ours.reset()
            ref = make_interpreter(str(path))
        for d in ours.get_input_details():
            x = rs.uniform(-1, 1, d["shape"]) * (100 if d["dtype"] == np.int8 else 1)
            x = x.astype(d["dtype"]) if d["dtype"] != np.bool_ else np.array(step % 2 == 0)
            ours.set_tensor(d["index"], x)
            ref.set_tensor(d["index"], x)
        ours.invoke()
        ref.invoke()
        for d in ours.get_output_details():
            a, b = ours.get_tensor(d["index"]), ref.get_tensor(d["index"])
            assert a.tobytes() == b.tobytes() or np.allclose(a, b, rtol=1e-5, atol=1e-6), step


@pytest.mark.parametrize("name", ["stream_ring_float32.tflite", "stream_ring_int8.tflite"])
def test_ring_buffer_state_matches_litert_over_steps_and_reset(name, litert):
    run_both(SUB / name, steps=12, reset_at=8)


@pytest.mark.parametrize("name", ["cond_float32.tflite", "while_float32.tflite"])
def test_control_flow_matches_litert_on_every_branch(name, litert):
    run_both(SUB / name, steps=4)


def test_while_loop_budget_overrun_is_a_clear_error():
    it = picolite.Interpreter(str(SUB / "while_float32.tflite"), loop_budget=3)
    it.allocate_tensors()
    with pytest.raises(picolite.ModelError, match=r"WHILE.*ran 3 iterations when the invoke.s "
                                                  r"loop budget ran out.*loop_budget"):
        it.invoke()
    with pytest.raises(ValueError, match="loop_budget"):
        picolite.Interpreter(str(SUB / "while_float32.tflite"), loop_budget=0)


def test_resource_variables_have_their_own_category():
    it = picolite.Interpreter(str(SUB / "stream_ring_float32.tflite"), target="picolite")
    it.allocate_tensors()
    text = str(it.allocations())
    assert re.search(r"'Resource variable data' used \d+ bytes .* for 1 resource variables",
                     text)


def tflm_figures(path):
    code = ("from tflite_micro.python.tflite_micro import runtime\n"
            f"runtime.Interpreter.from_file({str(path)!r}, arena_size=1 << 20)"
            ".print_allocations()\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return {k: int(v) for k, v in
            re.findall(r"Arena allocation (total|head|tail) (\d+)", p.stdout + p.stderr)}


@pytest.mark.parametrize("name", MODELS)
def test_arena_head_equals_tflms_and_total_is_no_larger(name):
    require("tflite_micro")
    theirs = tflm_figures(SUB / name)
    it = picolite.Interpreter(str(SUB / name), target="picolite")  # picolite's own arena
    it.allocate_tensors()
    ours = it.allocations()
    assert ours.head == theirs["head"]
    assert ours.total <= theirs["total"]


def test_plan_covers_every_subgraph():
    it = picolite.Interpreter(str(SUB / "cond_float32.tflite"))
    it.allocate_tensors()
    assert it.num_subgraphs() == 3
    # a branch's tensors are readable by subgraph index after invoke
    details = it.get_tensor_details(subgraph_index=1)
    assert details and all("index" in d for d in details)


# --- signatures, LiteRT's behaviour ---------------------------------------------------

SIGS = SUB / "two_signatures_float32.tflite"


def test_signature_lists_equal_litert(litert):
    ours, ref = picolite.Interpreter(str(SIGS)), litert.Interpreter(model_path=str(SIGS))
    assert ours.get_signature_list() == ref.get_signature_list()
    assert ours._get_full_signature_list() == ref._get_full_signature_list()
    assert ours.num_subgraphs() == ref.num_subgraphs()


def test_signature_runners_compute_what_litert_does(litert):
    ours, ref = picolite.Interpreter(str(SIGS)), litert.Interpreter(model_path=str(SIGS))
    rs = np.random.RandomState(3)
    feeds = {"add": {"a": rs.rand(1, 3), "b": rs.rand(1, 3)}, "scale": {"x": rs.rand(2, 2)}}
    for key, inputs in feeds.items():
        inputs = {k: v.astype(np.float32) for k, v in inputs.items()}
        mine, theirs = ours.get_signature_runner(key), ref.get_signature_runner(key)
        got, want = mine(**inputs), theirs(**inputs)
        assert got.keys() == want.keys()
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-6)
        assert {k: (d["index"], list(d["shape"])) for k, d in
                mine.get_input_details().items()} == \
               {k: (d["index"], list(d["shape"])) for k, d in
                theirs.get_input_details().items()}


def test_bad_signature_key_is_litert_s_value_error():
    it = picolite.Interpreter(str(SIGS))
    with pytest.raises(ValueError, match='^Invalid signature_key provided: "nope"'):
        it.get_signature_runner("nope")
    with pytest.raises(ValueError, match="^SignatureDef signature_key is None"):
        it.get_signature_runner()


def test_runner_refuses_wrong_input_names_and_counts():
    runner = picolite.Interpreter(str(SIGS)).get_signature_runner("scale")
    with pytest.raises(ValueError, match="Invalid number of inputs"):
        runner()
    with pytest.raises(ValueError, match=r"Invalid Input name \(y\)"):
        runner(y=np.zeros((2, 2), np.float32))


def test_single_signature_model_runner_with_no_key(litert):
    path = str(SUB / "cond_float32.tflite")
    ref = litert.Interpreter(model_path=path)
    if len(ref.get_signature_list()) != 1:
        pytest.skip("the converter wrote no signature")
    runner = picolite.Interpreter(path).get_signature_runner()
    assert set(runner.get_input_details()) == set(ref.get_signature_runner().
                                                  get_input_details())


def test_subgraph_index_out_of_range_uses_litert_text():
    it = picolite.Interpreter(model_path=str(ZOO / "subgraphs" / "two_signatures_float32.tflite"))
    for bad in (2, -1):
        with pytest.raises(ValueError, match="^subgraph_index is out of range"):
            it.get_tensor_details(subgraph_index=bad)
    assert len(it.get_tensor_details(subgraph_index=1)) > 0


def test_tflm_get_tensor_reads_another_subgraph():
    it = picolite.Interpreter(model_path=str(ZOO / "subgraphs" / "two_signatures_float32.tflite"),
                              preserve_all_tensors=True)
    it.allocate_tensors()
    t = it.get_tensor_details(subgraph_index=1)[0]
    got = it.GetTensor(t["index"], 1)
    assert list(got["shape"]) == list(t["shape"]) and got["dtype"] == t["dtype"]
    with pytest.raises(ValueError, match="^subgraph_index is out of range"):
        it.GetTensor(0, 2)
