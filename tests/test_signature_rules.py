"""Malformed signature defs, picolite against LiteRT: models crafted from
tests/models/subgraphs/two_signatures_float32.tflite with LiteRT's own schema module.

LiteRT refuses a signature without a key, leaves a TensorMap without a name out of its
signature, and keeps the first of two signatures with one key; picolite does the same. An
out-of-range subgraph index crashes LiteRT's process and an out-of-range tensor index fails
only when the runner is made: picolite's verifier refuses both when the model is opened."""

import pytest

import picolite
from conftest import ZOO, require

SIGS = ZOO / "subgraphs" / "two_signatures_float32.tflite"


def crafted(change):
    """The two-signature model with change(ModelT) applied."""
    flatbuffers = require("flatbuffers")
    schema = require("ai_edge_litert.schema_py_generated")
    data = SIGS.read_bytes()
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    change(model)
    b = flatbuffers.Builder(1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def no_key(m):
    m.signatureDefs[0].signatureKey = None


def unnamed_input(m):
    m.signatureDefs[0].inputs[0].name = None


def repeated_key(m):
    m.signatureDefs[1].signatureKey = m.signatureDefs[0].signatureKey


def no_inputs(m):
    m.signatureDefs[0].inputs = None


def test_signature_without_key_is_refused_as_litert_does(litert):
    data = crafted(no_key)
    with pytest.raises(ValueError, match="Missing exported method name"):
        litert.Interpreter(model_content=data)
    with pytest.raises(picolite.ModelError, match="signature 0: no signature_key"):
        picolite.Interpreter(model_content=data)


@pytest.mark.parametrize("change", [unnamed_input, repeated_key, no_inputs],
                         ids=lambda f: f.__name__)
def test_signature_lists_equal_litert(litert, change):
    data = crafted(change)
    ours, ref = picolite.Interpreter(model_content=data), litert.Interpreter(model_content=data)
    assert ours.get_signature_list() == ref.get_signature_list()
    assert ours._get_full_signature_list() == ref._get_full_signature_list()
    for key in ref.get_signature_list():
        assert (sorted(ours.get_signature_runner(key).get_input_details()) ==
                sorted(ref.get_signature_runner(key).get_input_details()))


@pytest.mark.parametrize("field,value,message", [
    ("subgraphIndex", 7, "signature 0: subgraph 7 out of range (2 subgraphs)"),
    ("inputs", 999, "signature 0 (inputs): entry 0 is tensor 999, out of range"),
    ("outputs", 999, "signature 0 (outputs): entry 0 is tensor 999, out of range"),
])
def test_out_of_range_indices_are_refused_at_open(field, value, message):
    def change(m):
        if field == "subgraphIndex":
            m.signatureDefs[0].subgraphIndex = value
        else:
            getattr(m.signatureDefs[0], field)[0].tensorIndex = value

    with pytest.raises(picolite.ModelError) as e:
        picolite.Interpreter(model_content=crafted(change))
    assert message in str(e.value)
