"""picolite.interpreter behaves as LiteRT's interpreter module where scripts depend on it."""

import pathlib

import numpy as np
import pytest

import picolite
from picolite import interpreter as tfl

MODEL = str(pathlib.Path(__file__).resolve().parent / "models" / "add_same_float32.tflite")


def test_module_surface():
    for name in ("Interpreter", "InterpreterWithCustomOps", "OpResolverType", "load_delegate",
                 "Delegate"):
        assert hasattr(tfl, name)
    assert [t.name for t in tfl.OpResolverType] == [
        "AUTO", "BUILTIN", "BUILTIN_REF", "BUILTIN_WITHOUT_DEFAULT_DELEGATES"]


@pytest.mark.parametrize("rt", list(tfl.OpResolverType))
def test_every_litert_keyword_is_accepted(rt):
    it = tfl.Interpreter(model_path=pathlib.Path(MODEL), experimental_delegates=[],
                         num_threads=4, experimental_op_resolver_type=rt,
                         experimental_preserve_all_tensors=False,
                         experimental_disable_delegate_clustering=True,
                         experimental_default_delegate_latest_features=True,
                         experimental_compress_quantization_zero_points=False,
                         experimental_disable_delegate_node_fusion=True,
                         experimental_force_delegate_node_profiling=True)
    it.allocate_tensors()
    a, b = it.get_input_details()
    it.set_tensor(a["index"], np.full(a["shape"], 2, np.float32))
    it.set_tensor(b["index"], np.full(b["shape"], 3, np.float32))
    it.invoke()
    assert (it.get_tensor(it.get_output_details()[0]["index"]) == 5).all()


@pytest.mark.parametrize("kw,msg", [({"num_threads": -1}, "num_threads should >= 1"),
                                    ({"num_threads": 4.2}, "type of num_threads should be int"),
                                    ({"experimental_op_resolver_type": "x"},
                                     "Unrecognized passed in op resolver type: x")])
def test_keyword_errors_use_litert_text(kw, msg):
    with pytest.raises(ValueError, match=msg):
        tfl.Interpreter(model_path=MODEL, **kw)


def test_delegates_are_refused_clearly():
    with pytest.raises(ValueError, match="Failed to load delegate from x.so\npicolite runs "
                                         "no delegates"):
        tfl.load_delegate("x.so")
    with pytest.raises(ValueError, match="picolite runs no delegates"):
        tfl.Interpreter(model_path=MODEL, experimental_delegates=[object()])


def test_custom_op_registerers_fail_as_an_unknown_symbol():
    with pytest.raises(ValueError, match="Looking up symbol 'Reg' failed"):
        tfl.InterpreterWithCustomOps(model_path=MODEL, custom_op_registerers=["Reg"])
    tfl.InterpreterWithCustomOps(model_path=MODEL, custom_op_registerers=[])


def test_messages_begin_with_litert_text():
    with pytest.raises(ValueError, match="^The model is not a valid Flatbuffer buffer"):
        tfl.Interpreter(model_content=b"short")
    with pytest.raises(RuntimeError, match="^Invoke called on model that is not ready"):
        tfl.Interpreter(model_path=MODEL).invoke()
    it = tfl.Interpreter(model_path=MODEL)
    it.allocate_tensors()
    with pytest.raises(ValueError, match="^Invalid tensor index 9 exceeds max tensor index 3"):
        it._get_tensor_details(9, 0)
    with pytest.raises(ValueError, match="^Invalid node index"):
        it._get_op_details(op_index=4)
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Dimension mismatch\. Got 3 "
                                         r"but expected 4 for input 0\."):
        it.set_tensor(0, np.zeros((1, 4, 4), np.float32))
    with pytest.raises(ValueError, match=r"Got 5 but expected 4 for dimension 1 of input 0"):
        it.set_tensor(0, np.zeros((1, 5, 4, 8), np.float32))


def test_allocation_errors_are_runtime_errors():
    assert issubclass(picolite.ArenaTooSmallError, RuntimeError)
    assert issubclass(picolite.UnsupportedOpError, RuntimeError)
    with pytest.raises(RuntimeError):
        tfl.Interpreter(model_path=MODEL, arena_size=16).allocate_tensors()


def test_safe_to_run_tracks_views():
    it = tfl.Interpreter(model_path=MODEL)
    it.allocate_tensors()
    assert it._safe_to_run()
    v = it.tensor(0)()
    assert not it._safe_to_run()
    del v
    assert it._safe_to_run()


# --- LiteRT's own cases that failed (issue 22) ---------------------------------------------

HOSTILE = pathlib.Path(__file__).resolve().parent / "hostile"


def test_an_empty_input_runs_through_a_signature_runner():
    """LiteRT's testEmptyInputTensor: SUM over a dynamic input, given shape [0]; the runner
    resizes every input to its value's shape, as LiteRT's does."""
    it = tfl.Interpreter(model_path=str(HOSTILE / "sum_dynamic_float32.tflite"))
    run = it.get_signature_runner()
    assert run(x=np.zeros([0], np.float32))["output_0"] == 0
    assert run(x=np.array([1, 2, 3], np.float32))["output_0"] == 6
    assert run(x=np.zeros([0], np.float32))["output_0"] == 0
    it = picolite.Interpreter(str(HOSTILE / "sum_dynamic_float32.tflite"))
    it.resize_tensor_input(0, [0])
    it.allocate_tensors()
    it.set_tensor(0, np.zeros([0], np.float32))
    it.invoke()
    assert it.get_tensor(0).shape == (0,)


def test_a_resource_tensor_reads_as_none_like_litert():
    """get_tensor of a RESOURCE tensor raised ValueError; LiteRT's details say numpy.object_
    and its value is None."""
    path = str(pathlib.Path(__file__).resolve().parent / "models" / "subgraphs" /
               "stream_ring_float32.tflite")
    it = tfl.Interpreter(model_path=path)
    it.allocate_tensors()
    handles = [d for d in it.get_tensor_details() if d["dtype"] is np.object_]
    assert [d["name"] for d in handles] == ["ring"]
    value = it.get_tensor(handles[0]["index"])
    assert value.dtype == object and value.shape == () and value.item() is None


def test_interpreter_creation_calls_litert_metrics_hook(monkeypatch):
    """LiteRT's testCreationCounter: its test file imports ai_edge_litert.metrics_portable
    (picolite.metrics_portable after the README's substitution), mocks
    TFLiteMetrics.increase_counter_interpreter_creation and expects one call per
    interpreter; the import failed and no call was made."""
    from picolite import metrics_portable as metrics

    calls = []
    monkeypatch.setattr(metrics.TFLiteMetrics, "increase_counter_interpreter_creation",
                        lambda self: calls.append(self))
    tfl.Interpreter(model_path=MODEL)
    assert len(calls) == 1
    tfl.InterpreterWithCustomOps(model_path=MODEL)
    assert len(calls) == 2
    with pytest.raises(ValueError):  # not created, not counted (LiteRT counts at the end)
        tfl.Interpreter(model_content=b"short")
    assert len(calls) == 2
    monkeypatch.undo()
    m = metrics.TFLiteMetrics()  # LiteRT's method names, every one a no-op
    for name in ("increase_counter_debugger_creation", "increase_counter_interpreter_creation",
                 "increase_counter_converter_attempt", "increase_counter_converter_success"):
        assert getattr(m, name)() is None
    m.set_converter_param("x", 1), m.set_converter_error(None), m.set_converter_latency(0)
    metrics.TFLiteConverterMetrics().export_metrics()
