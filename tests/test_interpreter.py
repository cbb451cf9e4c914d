"""picolite.Interpreter: tf.lite's API on the C runtime, checked against LiteRT itself."""

import gc
import pathlib
import threading

import numpy as np
import pytest

import picolite

HELLO = "examples/hello_world/hello_world_int8.tflite"
ADD = "examples/memory_footprint/simple_add_model.tflite"
ZOO = pathlib.Path(__file__).resolve().parent / "models"


@pytest.fixture
def hello_path(shared_models):
    return shared_models / HELLO


@pytest.fixture
def hello(hello_path):
    return hello_path.read_bytes()


@pytest.fixture
def it(hello):
    interp = picolite.Interpreter(model_content=hello, target="picolite")
    interp.allocate_tensors()
    return interp


def litert_for(litert, content, preserve=False):
    ref = litert.Interpreter(
        model_content=content,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF,
        experimental_preserve_all_tensors=preserve)
    ref.allocate_tensors()
    return ref


def assert_details_equal(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert set(a) == set(b)
        assert a["name"] == b["name"] and a["index"] == b["index"]
        assert a["dtype"] is b["dtype"]
        for key in ("shape", "shape_signature"):
            np.testing.assert_array_equal(a[key], b[key])
            assert a[key].dtype == b[key].dtype
        assert a["quantization"] == b["quantization"]
        qa, qb = a["quantization_parameters"], b["quantization_parameters"]
        assert set(qa) == set(qb)
        for key in ("scales", "zero_points"):
            np.testing.assert_array_equal(qa[key], qb[key])
            assert qa[key].dtype == qb[key].dtype
        assert qa["quantized_dimension"] == qb["quantized_dimension"]
        assert a["sparsity_parameters"] == b["sparsity_parameters"]


def zoo_models():
    return sorted(ZOO.glob("*.tflite")) if ZOO.is_dir() else []


# --- construction ----------------------------------------------------------------------

def test_needs_a_model():
    with pytest.raises(ValueError, match="`model_path` or `model_content` must be specified."):
        picolite.Interpreter()


def test_refuses_path_and_content(hello_path, hello):
    with pytest.raises(ValueError, match="Can't both provide `model_path` and `model_content`"):
        picolite.Interpreter(model_path=str(hello_path), model_content=hello)


def test_refuses_arena_and_arena_size(hello):
    with pytest.raises(ValueError, match="arena"):
        picolite.Interpreter(model_content=hello, arena=picolite.Arena(8192), arena_size=8192)


def test_arena_must_be_an_arena(hello):
    with pytest.raises(TypeError):
        picolite.Interpreter(model_content=hello, arena=bytearray(8192))


def test_model_path_as_str_and_pathlike(hello_path):
    for p in (str(hello_path), hello_path):
        picolite.Interpreter(model_path=p).allocate_tensors()


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview,
                                  lambda b: np.frombuffer(b, np.uint8)])
def test_model_content_any_bytes_like(hello, kind):
    picolite.Interpreter(model_content=kind(hello)).allocate_tensors()


def test_default_arena_is_exactly_the_required_size(hello):
    interp = picolite.Interpreter(model_content=hello)
    assert interp.arena.size == picolite.required_arena_size(hello, target="picolite")
    interp.allocate_tensors()


def test_arena_size_argument(hello):
    interp = picolite.Interpreter(model_content=hello, arena_size=65536)
    assert interp.arena.size == 65536


def test_missing_file_is_model_error(tmp_path):
    with pytest.raises(picolite.ModelError, match="Could not open"):
        picolite.Interpreter(model_path=str(tmp_path / "absent.tflite"))


def test_garbage_is_model_error():
    with pytest.raises(picolite.ModelError):
        picolite.Interpreter(model_content=b"not a flatbuffer at all" * 4, arena_size=4096)


def test_model_error_is_a_value_error_like_tflite():
    with pytest.raises(ValueError):
        picolite.Interpreter(model_content=b"\0" * 64, arena_size=4096)


def test_unknown_planner_is_value_error(hello):
    with pytest.raises(ValueError, match="greedy"):
        picolite.Interpreter(model_content=hello, planner="nope")


def test_repr_mentions_state(hello):
    interp = picolite.Interpreter(model_content=hello)
    assert "not allocated" in repr(interp)
    interp.allocate_tensors()
    assert "allocated" in repr(interp) and "\n" not in repr(interp)
    interp.close()
    assert "closed" in repr(interp)


# --- lifecycle -----------------------------------------------------------------------------

def test_allocate_twice_is_allowed(it):
    it.allocate_tensors()
    it.invoke()


def test_invoke_before_allocate_is_state_error(hello):
    interp = picolite.Interpreter(model_content=hello)
    with pytest.raises(picolite.StateError, match="allocate_tensors"):
        interp.invoke()


def test_reset_before_allocate_is_state_error(hello):
    with pytest.raises(picolite.StateError):
        picolite.Interpreter(model_content=hello).reset()


def test_reset_and_reset_all_variables(it):
    it.reset()
    it.reset_all_variables()
    it.invoke()


def test_closed_interpreter_refuses_calls(it):
    it.close()
    it.close()  # idempotent
    for call in (it.invoke, it.allocate_tensors, it.get_input_details, it.allocations):
        with pytest.raises(picolite.StateError, match="closed"):
            call()


def test_context_manager_closes(hello):
    with picolite.Interpreter(model_content=hello) as interp:
        interp.allocate_tensors()
    assert not interp.arena.in_use


def test_interpreter_keeps_model_bytes_alive(hello):
    interp = picolite.Interpreter(model_content=bytes(hello))
    gc.collect()
    interp.allocate_tensors()
    interp.invoke()
    assert interp.get_input_details()[0]["name"] == "serving_default_dense_input:0"


# --- details against LiteRT ---------------------------------------------------------------

def test_input_details_match_litert(it, hello, litert):
    assert_details_equal(it.get_input_details(), litert_for(litert, hello).get_input_details())


def test_output_details_match_litert(it, hello, litert):
    ref = litert_for(litert, hello)
    assert_details_equal(it.get_output_details(), ref.get_output_details())


def test_tensor_details_match_litert(it, hello, litert):
    ref = litert_for(litert, hello)
    ours = it.get_tensor_details()
    theirs = [d for d in ref.get_tensor_details() if d["index"] < len(ours)]
    assert_details_equal(ours, theirs)


def test_ops_details_match_litert(it, hello, litert):
    assert_ops_equal(it._get_ops_details(), litert_for(litert, hello)._get_ops_details())


def test_details_available_before_allocate(hello):
    interp = picolite.Interpreter(model_content=hello)
    assert interp.get_input_details()[0]["shape"].tolist() == [1, 1]


def shared_tflm_models():
    root = pathlib.Path(__file__).resolve().parents[2] / "shared" / "models" / "tflm"
    return sorted(root.rglob("*.tflite")) if root.is_dir() else []


def assert_ops_equal(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert set(a) == set(b)
        assert a["index"] == b["index"] and a["op_name"] == b["op_name"]
        for key in ("inputs", "outputs"):
            np.testing.assert_array_equal(a[key], b[key])
            assert a[key].dtype == b[key].dtype
        assert a["operand_types"] == b["operand_types"]
        assert a["result_types"] == b["result_types"]


def check_contract_against_tflm(content):
    """For models LiteRT cannot load (TFLM's custom ops, such as the Signal library's), the
    input and output details TFLM's own interpreter reports: dtype, shape, quantization."""
    from tflite_micro.python.tflite_micro import runtime

    ours = picolite.Interpreter(model_content=content, arena_size=1 << 24)
    tflm = runtime.Interpreter.from_bytes(content, arena_size=1 << 20)
    for mine, get in ((ours.get_input_details(), tflm.get_input_details),
                      (ours.get_output_details(), tflm.get_output_details)):
        for i, d in enumerate(mine):
            ref = get(i)
            assert d["dtype"] == ref["dtype"]
            np.testing.assert_array_equal(d["shape"], ref["shape"])
            for key in ("scales", "zero_points", "quantized_dimension"):
                np.testing.assert_array_equal(d["quantization_parameters"][key],
                                              ref["quantization_parameters"][key])


def check_contract(model, litert):
    """Details need only a created interpreter, so every model is checked, kernels or not."""
    content = model.read_bytes()
    try:
        ref = litert_for(litert, content)
    except (RuntimeError, ValueError) as e:
        if "unresolved custom op" in str(e):
            return check_contract_against_tflm(content)
        pytest.skip(f"LiteRT cannot load it: {str(e).splitlines()[0]}")
    ours = picolite.Interpreter(model_content=content, arena_size=1 << 24)
    assert_details_equal(ours.get_input_details(), ref.get_input_details())
    assert_details_equal(ours.get_output_details(), ref.get_output_details())
    n = len(ours.get_tensor_details())
    assert_details_equal(ours.get_tensor_details(),
                         [d for d in ref.get_tensor_details() if d["index"] < n])
    assert_ops_equal(ours._get_ops_details(), ref._get_ops_details())


@pytest.mark.parametrize("model", zoo_models(), ids=lambda p: p.name)
def test_zoo_details_match_litert(model, litert):
    check_contract(model, litert)


@pytest.mark.parametrize("model", shared_tflm_models(), ids=lambda p: p.name)
def test_shared_model_details_match_litert(model, litert):
    check_contract(model, litert)


# --- tensors -------------------------------------------------------------------------------

def test_set_and_get_round_trip(it):
    x = np.array([[-77]], np.int8)
    it.set_tensor(0, x)
    got = it.get_tensor(0)
    np.testing.assert_array_equal(got, x)
    assert got.dtype == np.int8 and got.shape == (1, 1)


def test_get_tensor_is_a_writable_copy(it):
    it.set_tensor(0, np.array([[5]], np.int8))
    got = it.get_tensor(0)
    got[0, 0] = 9
    assert it.get_tensor(0)[0, 0] == 5


def test_outputs_match_litert(it, hello, litert):
    ref = litert_for(litert, hello)
    for v in (-128, -50, 0, 33, 127):
        x = np.array([[v]], np.int8)
        it.set_tensor(0, x)
        it.invoke()
        ref.set_tensor(0, x)
        ref.invoke()
        np.testing.assert_array_equal(it.get_tensor(9), ref.get_tensor(9))


def test_set_tensor_wrong_dtype_message(it):
    msg = ("Cannot set tensor: Got value of type FLOAT32 but expected type INT8 for input 0, "
           "name: serving_default_dense_input:0")
    with pytest.raises(ValueError, match=msg):
        it.set_tensor(0, np.zeros((1, 1), np.float32))


def test_set_tensor_wrong_shape_message(it):
    # LiteRT's and TFLM's text (the first differing dimension), then both shapes
    with pytest.raises(ValueError, match=r"Cannot set tensor: Dimension mismatch. Got 3 but "
                                         r"expected 1 for dimension 1 of input 0\. \(got shape "
                                         r"\[1, 3\], expected \[1, 1\]\)"):
        it.set_tensor(0, np.zeros((1, 3), np.int8))


def test_set_tensor_wrong_rank_message(it):
    with pytest.raises(ValueError, match=r"Got 1 but expected 2 for input 0\. \(got shape "
                                         r"\[1\], expected \[1, 1\]\)"):
        it.set_tensor(0, np.zeros(1, np.int8))


def test_set_tensor_accepts_non_contiguous(it):
    x = np.array([[1, 2]], np.int8)[:, ::2]
    it.set_tensor(0, x)
    assert it.get_tensor(0)[0, 0] == 1


def test_set_tensor_refuses_constants(it):
    w = it.get_tensor(6)
    with pytest.raises(ValueError, match="constant"):
        it.set_tensor(6, w)


def test_get_constant_tensor(it, hello, litert):
    np.testing.assert_array_equal(it.get_tensor(6), litert_for(litert, hello).get_tensor(6))


def test_get_tensor_before_allocate(hello):
    with pytest.raises(ValueError, match="allocate_tensors"):
        picolite.Interpreter(model_content=hello).get_tensor(0)


@pytest.mark.parametrize("index", [-1, 10, 1000])
def test_invalid_tensor_index(it, index):
    with pytest.raises(ValueError, match=f"Invalid tensor index {index}"):
        it.get_tensor(index)


def test_shared_intermediate_needs_preserve_all_tensors(it):
    it.invoke()
    with pytest.raises(ValueError, match="preserve_all_tensors=True"):
        it.get_tensor(7)


def test_preserve_all_tensors_matches_litert_intermediates(hello, litert):
    interp = picolite.Interpreter(model_content=hello, preserve_all_tensors=True)
    interp.allocate_tensors()
    ref = litert_for(litert, hello, preserve=True)
    x = np.array([[42]], np.int8)
    interp.set_tensor(0, x)
    interp.invoke()
    ref.set_tensor(0, x)
    ref.invoke()
    for t in (7, 8, 9):
        np.testing.assert_array_equal(interp.get_tensor(t), ref.get_tensor(t))


def test_tensor_returns_a_function_of_a_live_view(it):
    view = it.tensor(0)
    view()[0, 0] = 12
    assert it.get_tensor(0)[0, 0] == 12
    del view
    it.invoke()


def test_invoke_with_a_live_view_is_refused_like_tflite(it):
    v = it.tensor(0)()
    with pytest.raises(RuntimeError, match="reference to internal data"):
        it.invoke()
    with pytest.raises(picolite.StateError):
        it.invoke()
    with pytest.raises(picolite.StateError):
        it.close()
    del v
    it.invoke()


def test_a_slice_of_a_view_still_counts(it):
    s = it.tensor(9)()[0:1]
    with pytest.raises(picolite.StateError):
        it.invoke()
    del s
    it.invoke()


def test_view_of_constant_is_read_only(it):
    w = it.tensor(6)()
    assert not w.flags.writeable


def test_set_input_and_get_output(it):
    it.set_input(np.array([[3]], np.int8), 0)
    it.invoke()
    out = it.get_output(0)
    np.testing.assert_array_equal(out, it.get_tensor(9))


def test_set_input_out_of_range(it):
    with pytest.raises(IndexError):
        it.set_input(np.zeros((1, 1), np.int8), 1)
    with pytest.raises(IndexError):
        it.get_output(3)


# --- reports -------------------------------------------------------------------------------

def test_arena_used_bytes_is_head_plus_tail(it):
    rec = it.allocations()
    assert it.arena_used_bytes() == rec.total == rec.head + rec.tail
    assert rec.total <= it.arena.size


def test_print_allocations_prints_tflm_text(it, capsys):
    it.print_allocations()
    out = capsys.readouterr().out
    assert out.strip() == str(it.allocations()).strip()
    assert "TfLiteEvalTensor data" in out


def test_allocations_report_fields(it):
    rec = it.allocations()
    for key in ("total", "head", "tail", "categories", "temp_high_water", "lower_bound",
                "planner", "head_tensors", "head_scratch"):
        assert hasattr(rec, key)
    assert rec.planner == "greedy"
    assert rec.head >= rec.lower_bound
    assert rec.required == it.arena.size
    assert set(rec.categories["TfLiteEvalTensor data"]) == {"used", "requested", "count"}
    assert rec.categories["TfLiteEvalTensor data"]["count"] == 10


def test_allocations_to_dict_and_html(it):
    rec = it.allocations()
    d = rec.to_dict()
    assert d["total"] == rec.total and "categories" in d
    assert "<table>" in rec._repr_html_()
    assert "AllocationReport" in repr(rec)


def test_allocations_before_allocate_is_state_error(hello):
    with pytest.raises(picolite.StateError):
        picolite.Interpreter(model_content=hello).allocations()


def test_memory_plan_buffers(it):
    plan = it.memory_plan()
    assert plan.planner == "greedy"
    assert plan.head >= plan.lower_bound
    tensors = {b.tensor for b in plan.buffers if b.tensor >= 0}
    assert {0, 9} <= tensors
    for b in plan.buffers:
        assert b.offset + b.size <= plan.head
        assert b.first <= b.last
        if b.tensor >= 0:
            assert b.name == it.get_tensor_details()[b.tensor]["name"]


def test_memory_plan_never_overlaps_live_buffers(it):
    bufs = it.memory_plan().buffers
    for i, a in enumerate(bufs):
        for b in bufs[i + 1:]:
            if a.first <= b.last and b.first <= a.last and a.size and b.size:
                assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset


def test_memory_plan_to_dict_html_repr(it):
    plan = it.memory_plan()
    d = plan.to_dict()
    assert d["head"] == plan.head and len(d["buffers"]) == len(plan.buffers)
    assert {"tensor", "name", "offset", "size", "first", "last"} <= set(d["buffers"][0])
    assert "<table>" in plan._repr_html_()
    assert repr(plan).startswith("<MemoryPlan")


@pytest.mark.parametrize("planner", picolite.PLANNERS)
def test_every_planner_gives_the_same_outputs(hello, planner):
    outs = []
    for p in ("greedy", planner):
        interp = picolite.Interpreter(model_content=hello, planner=p, target="picolite")
        interp.allocate_tensors()
        interp.set_input(np.array([[100]], np.int8), 0)
        interp.invoke()
        outs.append(interp.get_output(0))
        assert interp.allocations().planner == p
    np.testing.assert_array_equal(outs[0], outs[1])


def test_add_model_matches_litert(shared_models, litert):
    content = (shared_models / ADD).read_bytes()
    interp = picolite.Interpreter(model_content=content)
    interp.allocate_tensors()
    ref = litert_for(litert, content)
    rng = np.random.default_rng(1)
    for d in interp.get_input_details():
        x = rng.integers(-128, 128, size=d["shape"], dtype=np.int8)
        interp.set_tensor(d["index"], x)
        ref.set_tensor(d["index"], x)
    interp.invoke()
    ref.invoke()
    for d in interp.get_output_details():
        np.testing.assert_array_equal(interp.get_tensor(d["index"]), ref.get_tensor(d["index"]))


# --- threads -------------------------------------------------------------------------------

def test_concurrent_calls_get_state_error_never_corruption(shared_models):
    content = (shared_models / ADD).read_bytes()
    interp = picolite.Interpreter(model_content=content)
    interp.allocate_tensors()
    d = interp.get_input_details()
    xs = [np.full(x["shape"], 3, x["dtype"]) for x in d]
    for x, det in zip(xs, d):
        interp.set_tensor(det["index"], x)
    interp.invoke()
    expected = interp.get_output(0)
    unexpected = []

    def hammer():
        for _ in range(200):
            try:
                interp.invoke()
                interp.get_output(0)
            except picolite.StateError:
                pass
            except Exception as e:  # anything else is a bug
                unexpected.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert unexpected == []
    interp.invoke()
    np.testing.assert_array_equal(interp.get_output(0), expected)


# --- intermediates on a zoo model with float I/O and int8 inside ---------------------------

def runnable_chain():
    """A tests/models model QUANTIZE -> op -> DEQUANTIZE that picolite runs (the zoo is
    regenerated now and then, so take the first that is there)."""
    for path in sorted(ZOO.glob("*_int8_float_io.tflite")) if ZOO.is_dir() else []:
        try:
            picolite.Interpreter(model_path=path).allocate_tensors()
        except picolite.Error:
            continue
        return path
    return None


@pytest.fixture(scope="module")
def chain():
    path = runnable_chain()
    if path is None:
        pytest.skip("no runnable *_int8_float_io.tflite in tests/models")
    return path.read_bytes()


def chain_inputs(interp):
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, d["shape"]).astype(np.float32)
            for d in interp.get_input_details()]


def test_chain_shared_intermediates_need_preserve(chain):
    interp = picolite.Interpreter(model_content=chain)
    interp.allocate_tensors()
    for d, x in zip(interp.get_input_details(), chain_inputs(interp)):
        interp.set_tensor(d["index"], x)
    interp.invoke()
    io = {d["index"] for d in interp.get_input_details() + interp.get_output_details()}
    made = {int(t) for op in interp._get_ops_details() for t in op["outputs"]}
    inner = made - io
    assert inner
    for t in inner:
        with pytest.raises(ValueError, match="preserve_all_tensors=True"):
            interp.get_tensor(t)
    for t in io:
        interp.get_tensor(t)


def test_chain_preserved_intermediates_match_litert(chain, litert):
    interp = picolite.Interpreter(model_content=chain, preserve_all_tensors=True)
    interp.allocate_tensors()
    ref = litert_for(litert, chain, preserve=True)
    for d, x in zip(interp.get_input_details(), chain_inputs(interp)):
        interp.set_tensor(d["index"], x)
        ref.set_tensor(d["index"], x)
    interp.invoke()
    ref.invoke()
    for t in range(len(interp.get_tensor_details())):
        np.testing.assert_array_equal(interp.get_tensor(t), ref.get_tensor(t))


def test_chain_preserve_keeps_every_intermediate_apart(chain):
    interp = picolite.Interpreter(model_content=chain, preserve_all_tensors=True)
    interp.allocate_tensors()
    bufs = [b for b in interp.memory_plan().buffers if b.tensor >= 0]
    for i, a in enumerate(bufs):
        for b in bufs[i + 1:]:
            assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset


# --- profiling -----------------------------------------------------------------------------

def test_profile_gives_every_op_a_time(it):
    prof = it.profile(3)
    assert [t.op_name for t in prof.nodes] == ["FULLY_CONNECTED"] * 3
    assert prof.runs == 3 and prof.total_ns > 0
    assert it._c.node_ns() is None  # the interpreter's own profiler stays off


def test_set_profiling_records_the_last_invoke(it):
    it._c.set_profiling(True)
    it.invoke()
    ns = it._c.node_ns()
    it._c.set_profiling(False)
    assert len(ns) == 3 and all(isinstance(v, int) for v in ns)
    assert it._c.node_ns() is None


def test_profile_needs_at_least_one_invoke(it):
    with pytest.raises(ValueError):
        it.profile(0)


def test_mutable_model_buffer_is_copied(hello):
    data = bytearray(hello)
    interp = picolite.Interpreter(model_content=data)
    data[:] = b"\0" * len(data)  # the caller scribbles over its buffer: no effect
    interp.allocate_tensors()
    interp.invoke()


def test_tflite_spelling_of_preserve_all_tensors(hello):
    interp = picolite.Interpreter(model_content=hello, experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    interp.invoke()
    interp.get_tensor(7)


def test_testing_module_loads_on_first_use():
    assert picolite.testing.__name__ == "picolite.testing"
    with pytest.raises(AttributeError):
        picolite.no_such_thing


def test_busy_interpreter_refuses_other_threads(shared_models):
    """While one thread is inside invoke (GIL released), calls from another thread get
    StateError naming the cause."""
    import time

    interp = picolite.Interpreter(model_content=(shared_models / ADD).read_bytes())
    interp.allocate_tensors()
    stop = threading.Event()

    def run():
        while not stop.is_set():
            interp.invoke()

    worker = threading.Thread(target=run)
    worker.start()
    refused, messages = 0, set()
    deadline = time.monotonic() + 5.0
    try:
        while refused < 3 and time.monotonic() < deadline:
            try:
                interp.get_output(0)
            except picolite.StateError as e:
                refused += 1
                messages.add(str(e))
    finally:
        stop.set()
        worker.join()
    assert refused >= 1
    assert any("busy" in m for m in messages)
