"""resize_tensor_input on models with control flow (tests/models/subgraphs/*_batch_*).

TFLite's IF and WHILE resize the inputs of the subgraphs they invoke to their own input
shapes and allocate those subgraphs in their Prepare; picolite prepares each such subgraph
from its caller's prepare with the caller's shapes, in the one planned arena. Each model is
resized to several batches in picolite and in LiteRT (BUILTIN_REF): int8 outputs identical,
float32 within 1e-5 relative, every branch taken. What TFLite can only run with tensors it resizes during
invoke (tests/models/subgraphs/dynamic/) picolite refuses at allocation, naming why.
"""

import json

import numpy as np
import pytest

import picolite
from conftest import ZOO

pytestmark = pytest.mark.usefixtures("litert")

SUB = ZOO / "subgraphs"
MANIFEST = json.loads((SUB / "MANIFEST.json").read_text())
BATCH_MODELS = [e["file"] for e in MANIFEST["models"] if "_batch_" in e["file"]]
DYNAMIC = {e["file"]: e for e in MANIFEST["dynamic"]}
BATCHES = (1, 2, 5, 17)
STEPS = 3  # invokes per interpreter: the variable model's state moves every step


def batch_of(details, batch):
    """Every input's shape with a -1 in its signature set to batch there."""
    return [[batch if s == -1 else int(d) for s, d in zip(x["shape_signature"], x["shape"])]
            for x in details]


def resized(make, path, batch):
    it = make(path)
    for d, shape in zip(it.get_input_details(), batch_of(it.get_input_details(), batch)):
        it.resize_tensor_input(d["index"], shape)
    it.allocate_tensors()
    return it


def ours(path):
    return picolite.Interpreter(model_path=path, target="litert")  # compared with LiteRT


def litert(path):
    from reference import make_interpreter

    return make_interpreter(path)


def feed(its, step, rs):
    """The same inputs to each interpreter: random floats, the condition alternating."""
    for d in its[0].get_input_details():
        if d["dtype"] == np.bool_:
            x = np.array(step % 2 == 0)
        elif np.issubdtype(d["dtype"], np.integer):
            x = rs.randint(-128, 128, d["shape"]).astype(d["dtype"])
        else:
            x = rs.uniform(-2, 2, d["shape"]).astype(d["dtype"])
        for it in its:
            it.set_tensor(d["index"], x)


def test_batch_models_have_a_dynamic_batch_and_control_flow():
    assert len(BATCH_MODELS) >= 4
    for name in BATCH_MODELS:
        it = ours(str(SUB / name))
        assert any(-1 in list(d["shape_signature"]) for d in it.get_input_details()), name
        assert it.num_subgraphs() >= 2, name


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("name", BATCH_MODELS)
def test_resized_control_flow_matches_litert(name, batch):
    path = str(SUB / name)
    a, b = resized(ours, path, batch), resized(litert, path, batch)
    rs = np.random.RandomState(batch)
    for step in range(STEPS):
        feed([a, b], step, rs)
        a.invoke()
        b.invoke()
        for d in b.get_output_details():
            got, want = a.get_tensor(d["index"]), b.get_tensor(d["index"])
            assert got.shape == want.shape and got.shape[0] == batch
            if np.issubdtype(want.dtype, np.floating):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            else:
                assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", [n for n in BATCH_MODELS if "variable" not in n])
def test_called_subgraphs_take_the_callers_shapes(name):
    """The subgraphs IF and WHILE invoke hold batch-17 tensors: the plan grows with the batch
    in every subgraph, not only in the main one (CALL_ONCE's subgraph has no inputs)."""
    path = str(SUB / name)
    small, big = resized(ours, path, 1), resized(ours, path, 17)
    batched = [d for k in range(1, big.num_subgraphs())
               for d in big.get_tensor_details(subgraph_index=k)
               if list(d["shape_signature"])[:1] == [-1]]
    assert batched and all(d["shape"][0] == 17 for d in batched), batched
    assert big.allocations().head > small.allocations().head


@pytest.mark.parametrize("name", BATCH_MODELS)
def test_required_arena_size_is_exact_after_the_resize(name):
    path = str(SUB / name)
    shapes = batch_of(ours(path).get_input_details(), 17)
    need = picolite.required_arena_size(path, input_shapes=shapes, target="picolite")
    it = picolite.Interpreter(model_path=path, arena=picolite.Arena(need), target="picolite")
    for d, shape in zip(it.get_input_details(), shapes):
        it.resize_tensor_input(d["index"], shape)
    it.allocate_tensors()
    assert it.allocations().total <= need
    it = picolite.Interpreter(model_path=path, arena=picolite.Arena(need - 1))
    for d, shape in zip(it.get_input_details(), shapes):
        it.resize_tensor_input(d["index"], shape)
    with pytest.raises(picolite.ArenaTooSmallError):
        it.allocate_tensors()


@pytest.mark.parametrize("name", BATCH_MODELS)
def test_resizing_to_the_models_own_shape_changes_no_figure(name):
    path = str(SUB / name)
    plain = ours(path)
    plain.allocate_tensors()
    same = resized(ours, path, 1)
    assert same.allocations().to_dict() == plain.allocations().to_dict()


@pytest.mark.parametrize("batch", [1, 3])
def test_a_loop_variable_that_grows_is_refused_naming_it(batch):
    """LiteRT runs the loop with dynamic tensors (its output is 8 times the input's batch);
    picolite plans the arena once, and says which loop variable changes shape and how."""
    path = str(SUB / "dynamic" / "while_grow_float32.tflite")
    ref = resized(litert, path, batch)
    ref.set_tensor(ref.get_input_details()[0]["index"], np.ones((batch, 4), np.float32))
    ref.invoke()
    assert ref.get_tensor(ref.get_output_details()[0]["index"]).shape == (8 * batch, 4)
    with pytest.raises(picolite.UnsupportedOpError,
                       match=rf"^node 0 \(WHILE\): loop variable 1: dim 0 is {batch} into the "
                             rf"body, {2 * batch} out of it: its shape changes every "
                             r"iteration.*picolite plans the arena once") as e:
        resized(ours, path, batch)
    assert e.value.op_name == "WHILE" and e.value.node_index == 0


def test_branches_of_different_shapes_are_refused_naming_them():
    path = str(SUB / "dynamic" / "cond_unequal_float32.tflite")
    ref = resized(litert, path, 3)
    for d in ref.get_input_details():
        ref.set_tensor(d["index"], np.array(True) if d["dtype"] == np.bool_
                       else np.ones((3, 4), np.float32))
    ref.invoke()
    assert ref.get_tensor(ref.get_output_details()[0]["index"]).shape == (6, 4)
    with pytest.raises(picolite.UnsupportedOpError,
                       match=r"^node 0 \(IF\): output 0: dim 0 is 6 from the then branch, 3 "
                             r"from the else branch: TFLite makes the IF output a dynamic"):
        resized(ours, path, 3)


def test_tflm_keeps_the_if_outputs_declared_shape():
    """TFLM plans the IF output with its declared shape and fails only the invoke whose
    branch gives another byte count (the M4 firmware ran this model: its else branch)."""
    path = str(SUB / "dynamic" / "cond_unequal_float32.tflite")
    it = picolite.Interpreter(model_path=path, target="tflm")
    it.allocate_tensors()
    x, cond = sorted(it.get_input_details(), key=lambda d: d["dtype"] == np.bool_)
    it.set_tensor(x["index"], np.arange(4, dtype=np.float32).reshape(1, 4))
    it.set_tensor(cond["index"], np.array(False))
    it.invoke()
    assert it.get_output(0).shape == (1, 4)
    it.set_tensor(cond["index"], np.array(True))  # the then branch doubles dim 0
    with pytest.raises(picolite.ModelError, match=r"has 32 bytes, the tensor 2 it is copied "
                                                  r"to 16"):
        it.invoke()


def test_dynamic_models_stay_out_of_the_zoo_list():
    """test_golden and the TFLM comparisons run every listed model as it is: these have no
    answer picolite can give, so they are listed apart."""
    listed = {e["file"] for e in MANIFEST["models"]}
    assert DYNAMIC and not listed & set(DYNAMIC)
    assert all(f.startswith("dynamic/") and (SUB / f).exists() for f in DYNAMIC)


def crafted(name, change):
    """Model name with change(ModelT) applied (LiteRT's schema module)."""
    from conftest import require

    flatbuffers = require("flatbuffers")
    schema = require("ai_edge_litert.schema_py_generated")
    data = (SUB / name).read_bytes()
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    change(model, schema)
    b = flatbuffers.Builder(1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def test_a_subgraph_that_calls_itself_is_refused_while_preparing():
    def call_main(m, schema):
        m.subgraphs[0].operators[0].builtinOptions.initSubgraphIndex = 0  # CALL_ONCE

    it = picolite.Interpreter(model_content=crafted("variable_batch_float32.tflite", call_main))
    it.resize_tensor_input(it.get_input_details()[0]["index"], [3, 4])
    with pytest.raises(picolite.ModelError, match=r"^node 0 \(CALL_ONCE\): control flow invokes "
                                                  r"subgraph 0, which is being prepared "
                                                  r"\(recursion\)"):
        it.allocate_tensors()


def test_a_branch_input_of_another_type_is_refused_naming_both():
    def int_branch_input(m, schema):
        m.subgraphs[1].tensors[m.subgraphs[1].inputs[1]].type = schema.TensorType.INT32

    it = picolite.Interpreter(model_content=crafted("cond_batch_float32.tflite",
                                                    int_branch_input))
    with pytest.raises(picolite.ModelError, match=r"^node 0 \(IF\): subgraph 1 input 1 is "
                                                  r"INT32, the node gives FLOAT32"):
        it.allocate_tensors()


def test_a_branch_two_nodes_call_with_different_shapes_is_refused():
    """A second IF calls the same branches with the first IF's [1, 3] result where the first
    passed the [1, 4] input: one memory plan holds one shape per tensor."""
    import copy

    def second_if(m, schema):
        main = m.subgraphs[0]
        first, add = main.operators
        extra = copy.deepcopy(main.tensors[first.outputs[0]])
        extra.name = b"second_if"
        main.tensors.append(extra)
        op = copy.deepcopy(first)
        op.inputs[2] = add.outputs[0]  # [1, 3] where the branches took x, [1, 4]
        op.outputs = [len(main.tensors) - 1]
        main.operators.append(op)

    it = picolite.Interpreter(model_content=crafted("cond_batch_float32.tflite", second_if))
    assert list(it.get_input_details()[0]["shape_signature"]) == [-1, 4]
    with pytest.raises(picolite.ModelError, match=r"^node 2 \(IF\): subgraph 2 was prepared "
                                                  r"with input 1 of shape \[1, 4\], this node "
                                                  r"gives \[1, 3\] \(one memory plan holds one "
                                                  r"shape per tensor\)"):
        it.allocate_tensors()
