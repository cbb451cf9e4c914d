"""picolite's exceptions: the hierarchy, the fields, and the exact arena size they report."""

import numpy as np
import pytest

import picolite

HELLO = "examples/hello_world/hello_world_int8.tflite"
ADD = "examples/memory_footprint/simple_add_model.tflite"
CUSTOM = "examples/micro_speech/audio_preprocessor_int8.tflite"


def unknown_custom(shared_models):
    """TFLM's audio preprocessor with its first custom op renamed to one nobody registers."""
    return (shared_models / CUSTOM).read_bytes().replace(b"SignalWindow", b"SignalWindoX")


@pytest.fixture
def add(shared_models):
    return (shared_models / ADD).read_bytes()


def allocate(content, **kw):
    it = picolite.Interpreter(model_content=content, **kw)
    it.allocate_tensors()
    return it


def test_every_error_derives_from_picolite_error():
    for cls in (picolite.ModelError, picolite.ArenaTooSmallError,
                picolite.UnsupportedOpError, picolite.StateError):
        assert issubclass(cls, picolite.Error)
    assert issubclass(picolite.Error, Exception)


def test_model_error_is_a_value_error_and_state_error_a_runtime_error():
    assert issubclass(picolite.ModelError, ValueError)
    assert issubclass(picolite.StateError, RuntimeError)


def test_exceptions_are_module_attributes():
    from picolite import _picolite

    assert picolite.Error is _picolite.Error
    assert picolite.ArenaTooSmallError is _picolite.ArenaTooSmallError


def test_user_made_instances_have_none_fields():
    e = picolite.ArenaTooSmallError("x")
    assert e.required is None and e.available is None
    u = picolite.UnsupportedOpError("y")
    assert u.op_name is None and u.node_index is None


def test_arena_too_small_fields(add):
    need = picolite.required_arena_size(add)
    with pytest.raises(picolite.ArenaTooSmallError) as info:
        allocate(add, arena_size=need - 16)
    e = info.value
    assert e.required == need
    assert e.available == need - 16
    assert str(need) in str(e)


def test_arena_size_sweep_below_required_reports_the_exact_size(add):
    need = picolite.required_arena_size(add)
    for size in range(need - 64, need, 16):
        with pytest.raises(picolite.ArenaTooSmallError) as info:
            allocate(add, arena_size=size)
        assert info.value.required == need, size
        assert info.value.available <= size


def test_arena_size_sweep_one_byte_short(add):
    need = picolite.required_arena_size(add)
    with pytest.raises(picolite.ArenaTooSmallError):
        allocate(add, arena_size=need - 1)


def test_exactly_required_succeeds(add):
    it = allocate(add, arena_size=picolite.required_arena_size(add))
    it.invoke()


@pytest.mark.parametrize("planner", picolite.PLANNERS)
def test_sweep_for_every_planner(add, planner):
    need = picolite.required_arena_size(add, planner=planner, target="picolite")
    allocate(add, arena_size=need, planner=planner, target="picolite")
    for size in range(need - 64, need, 16):
        with pytest.raises(picolite.ArenaTooSmallError) as info:
            allocate(add, arena_size=size, planner=planner, target="picolite")
        assert info.value.required == need


def test_hello_world_sweep(shared_models):
    content = (shared_models / HELLO).read_bytes()
    need = picolite.required_arena_size(content)
    allocate(content, arena_size=need)
    for size in range(need - 64, need, 16):
        with pytest.raises(picolite.ArenaTooSmallError) as info:
            allocate(content, arena_size=size)
        assert info.value.required == need


def test_tiny_arena_never_crashes(add):
    for size in (1, 16, 64, 100, 1000, 4000):
        with pytest.raises(picolite.ArenaTooSmallError) as info:
            allocate(add, arena_size=size)
        assert info.value.required is None or info.value.required > info.value.available


def test_unsupported_custom_op(shared_models):
    with pytest.raises(picolite.UnsupportedOpError) as info:
        allocate(unknown_custom(shared_models), arena_size=1 << 20)
    assert info.value.op_name == "SignalWindoX"
    assert info.value.node_index == 0
    assert "custom operator 'SignalWindoX'" in str(info.value)


def test_unsupported_op_surfaces_at_allocate_like_tflite(shared_models):
    it = picolite.Interpreter(model_content=unknown_custom(shared_models))  # default arena
    it.get_input_details()  # the model itself is fine
    with pytest.raises(picolite.UnsupportedOpError) as info:
        it.allocate_tensors()
    assert info.value.op_name == "SignalWindoX"


def test_required_arena_size_of_an_unsupported_model_raises(shared_models):
    with pytest.raises(picolite.UnsupportedOpError):
        picolite.required_arena_size(unknown_custom(shared_models))


def test_truncated_model_is_model_error(add):
    for cut in (0, 8, 100, len(add) // 2):
        with pytest.raises(picolite.ModelError):
            picolite.Interpreter(model_content=add[:cut], arena_size=1 << 16)


def test_corrupted_model_never_crashes(add):
    rng = np.random.default_rng(0)
    for _ in range(30):
        data = bytearray(add)
        for pos in rng.integers(0, min(len(data), 2048), size=8):
            data[pos] = int(rng.integers(0, 256))
        try:
            it = picolite.Interpreter(model_content=bytes(data), arena_size=1 << 17)
            it.allocate_tensors()
        except picolite.Error:
            pass


def test_model_error_from_required_arena_size():
    with pytest.raises(picolite.ModelError):
        picolite.required_arena_size(b"\x00" * 32)


def test_unknown_planner_lists_the_known_ones(add):
    with pytest.raises(ValueError, match="greedy, bestfit, linear, optimal"):
        picolite.required_arena_size(add, planner="nope")


def test_state_error_message_names_the_fix(add):
    it = picolite.Interpreter(model_content=add)
    with pytest.raises(picolite.StateError, match=r"allocate_tensors\(\)"):
        it.invoke()


# --- hostile models (tests/hostile/make_hostile.py): clear errors, picolite's classes ------

HOSTILE = __import__("pathlib").Path(__file__).parent / "hostile"


def test_a_scale_without_a_zero_point_is_refused_at_load_as_litert_refuses_it():
    """It loaded, then get_input_details() raised IndexError."""
    with pytest.raises(picolite.ModelError, match="Quantization parameters has non-null scale "
                                                  "but null zero_point"):
        picolite.Interpreter(str(HOSTILE / "scale_without_zero_point.tflite"))


def test_a_zero_point_outside_int32_is_refused_at_load():
    """2**40 in the schema's int64: get_tensor_details() raised OverflowError. TFLite and TFLM
    keep zero points in int32."""
    with pytest.raises(picolite.ModelError, match="zero point 1099511627776 .*outside int32"):
        picolite.Interpreter(str(HOSTILE / "zero_point_2_40.tflite"))


def test_a_custom_op_name_that_is_not_utf8_is_an_unsupported_op():
    """Its bytes are shown; it raised UnicodeDecodeError."""
    it = picolite.Interpreter(str(HOSTILE / "custom_name_not_utf8.tflite"))
    with pytest.raises(picolite.UnsupportedOpError, match=r"custom operator '\\xff\\xfe'") as e:
        it.allocate_tensors()
    assert e.value.op_name == "\\xff\\xfe" and e.value.node_index == 0
    with pytest.raises(picolite.UnsupportedOpError):
        picolite.required_arena_size(str(HOSTILE / "custom_name_not_utf8.tflite"))
