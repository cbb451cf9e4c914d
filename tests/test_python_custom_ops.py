"""Custom operators written in Python: Interpreter(custom_ops={"Name": op})."""

import gc

import numpy as np
import pytest

import picolite
from conftest import require

schema = require("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
flatbuffers = require("flatbuffers")


def custom_then_add(custom="TimesTwo", out_type=0):
    """x -> custom -> y; z = ADD(y, y): a custom op whose output a builtin reads."""
    m = schema.ModelT()
    m.version = 3
    c = schema.OperatorCodeT()
    c.builtinCode = c.deprecatedBuiltinCode = 32
    c.customCode, c.version = custom, 1
    a = schema.OperatorCodeT()
    a.builtinCode = a.deprecatedBuiltinCode = 0
    a.version = 1
    m.operatorCodes, m.buffers = [c, a], [schema.BufferT()]
    sg = schema.SubGraphT()
    sg.tensors = []
    for name, ttype in (("x", 0), ("y", out_type), ("z", out_type)):
        t = schema.TensorT()
        t.shape, t.type, t.buffer, t.name = [1, 4], ttype, 0, name
        sg.tensors.append(t)
    o1 = schema.OperatorT()
    o1.opcodeIndex, o1.inputs, o1.outputs = 0, [0], [1]
    o2 = schema.OperatorT()
    o2.opcodeIndex, o2.inputs, o2.outputs = 1, [1, 1], [2]
    o2.builtinOptionsType = schema.BuiltinOptions.AddOptions
    o2.builtinOptions = schema.AddOptionsT()
    sg.operators, sg.inputs, sg.outputs = [o1, o2], [0], [2]
    m.subgraphs = [sg]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


class TimesTwo(picolite.CustomOp):
    def __init__(self):
        self.prepared = self.invoked = 0

    def prepare(self, inputs):
        self.prepared += 1
        return [(inputs[0].shape, inputs[0].dtype)]

    def invoke(self, inputs, outputs):
        self.invoked += 1
        outputs[0][...] = inputs[0] * 2


X = np.array([[1, 2, 3, 4]], np.float32)


def run(it):
    it.allocate_tensors()
    it.set_tensor(0, X)
    it.invoke()
    return it.get_tensor(2)


def test_custom_op_runs_between_builtin_kernels():
    op = TimesTwo()
    it = picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": op})
    assert (run(it) == X * 4).all()
    assert op.invoked == 1 and op.prepared >= 1


def test_litert_surface_takes_custom_ops_too():
    from picolite import interpreter as tfl
    it = tfl.Interpreter(model_content=custom_then_add(), num_threads=2,
                         custom_ops={"TimesTwo": TimesTwo()})
    assert (run(it) == X * 4).all()


def test_without_the_op_it_is_unsupported():
    with pytest.raises(picolite.UnsupportedOpError, match="TimesTwo"):
        picolite.Interpreter(model_content=custom_then_add()).allocate_tensors()


def test_outputs_are_planned_in_the_arena():
    ops = {"TimesTwo": TimesTwo()}
    need = picolite.required_arena_size(custom_then_add(), custom_ops=ops, target="picolite")
    assert (run(picolite.Interpreter(model_content=custom_then_add(), arena_size=need,
                                     custom_ops=ops, target="picolite")) == X * 4).all()
    with pytest.raises(picolite.ArenaTooSmallError):
        picolite.Interpreter(model_content=custom_then_add(), arena_size=need - 1,
                             custom_ops=ops, target="picolite").allocate_tensors()


def test_returned_arrays_are_checked_and_copied():
    class Returns(TimesTwo):
        def invoke(self, inputs, outputs):
            return [inputs[0] + 1]

    it = picolite.Interpreter(model_content=custom_then_add(),
                              custom_ops={"TimesTwo": Returns()})
    assert (run(it) == (X + 1) * 2).all()

    class WrongShape(TimesTwo):
        def invoke(self, inputs, outputs):
            return [np.zeros((4,), np.float32)]

    it = picolite.Interpreter(model_content=custom_then_add(),
                              custom_ops={"TimesTwo": WrongShape()})
    with pytest.raises(ValueError, match=r"output 0 must be float32 \[1, 4\]"):
        run(it)


def test_prepare_dtype_must_match_the_model():
    class Wrong(TimesTwo):
        def prepare(self, inputs):
            return [((1, 4), np.int32)]

    it = picolite.Interpreter(model_content=custom_then_add(),
                              custom_ops={"TimesTwo": Wrong()}, arena_size=8192)
    with pytest.raises(ValueError, match="output 0 has dtype float32 in the model"):
        it.allocate_tensors()


def test_prepare_shape_is_checked_like_a_builtin_kernels():
    class Wrong(TimesTwo):
        def prepare(self, inputs):
            return [((1, 5), np.float32)]

    it = picolite.Interpreter(model_content=custom_then_add(),
                              custom_ops={"TimesTwo": Wrong()}, arena_size=8192)
    with pytest.raises(picolite.Error):
        it.allocate_tensors()


def test_exceptions_propagate_unchanged():
    class Boom(TimesTwo):
        def invoke(self, inputs, outputs):
            raise KeyError("boom")

    it = picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": Boom()})
    it.allocate_tensors()
    with pytest.raises(KeyError, match="boom"):
        it.invoke()
    with pytest.raises(KeyError, match="boom"):  # and again: nothing stuck
        it.invoke()


def test_kept_arrays_are_the_operators_own():
    """An operator that keeps its arrays keeps copies: writing one later changes no tensor, and
    after close() it is still its own memory (a kept view over the arena read and wrote the
    freed arena: SIGSEGV with a 1 MiB arena)."""
    kept = []

    class Keeps(TimesTwo):
        def invoke(self, inputs, outputs):
            super().invoke(inputs, outputs)
            kept.extend([inputs[0], outputs[0]])

    it = picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": Keeps()},
                              arena_size=1 << 20, preserve_all_tensors=True)
    assert (run(it) == X * 4).all()
    assert not kept[0].flags.writeable
    kept[1][...] = 7
    assert (it.get_tensor(1) == X * 2).all()
    it.close()
    del it
    gc.collect()
    big = [np.full(1 << 18, 0x5A, np.uint8) for _ in range(8)]  # reuse what was freed
    assert (kept[0] == X).all() and (kept[1] == 7).all()
    kept[1][...] = 9
    assert all((b == 0x5A).all() for b in big)


def test_outputs_hold_their_current_bytes():
    """As a view did: an operator may read the state it left in its output last time."""
    seen = []

    class Counts(TimesTwo):
        def invoke(self, inputs, outputs):
            seen.append(outputs[0].copy())
            outputs[0][...] = outputs[0] + 1

    it = picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": Counts()},
                              preserve_all_tensors=True)
    for _ in range(3):
        run(it)
    assert [s[0, 0] for s in seen] == [0, 1, 2]


def test_bad_custom_ops_argument():
    with pytest.raises(TypeError, match="needs prepare"):
        picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": 1})
    with pytest.raises(TypeError, match="must be a dict"):
        picolite.Interpreter(model_content=custom_then_add(), custom_ops=[TimesTwo()])


def test_operator_objects_are_released_with_the_interpreter():
    import weakref
    op = TimesTwo()
    ref = weakref.ref(op)
    it = picolite.Interpreter(model_content=custom_then_add(), custom_ops={"TimesTwo": op})
    run(it)
    del it, op
    gc.collect()
    assert ref() is None
