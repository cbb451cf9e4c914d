"""picolite.plan_memory and required_arena_size: the planners seen from Python."""

import itertools

import pytest

import picolite

HELLO = "examples/hello_world/hello_world_int8.tflite"
ADD = "examples/memory_footprint/simple_add_model.tflite"
CASE = [(100, 0, 1), (80, 2, 3), (50, 1, 2)]


def assert_valid(buffers, result):
    assert len(result.offsets) == len(buffers)
    for (size, _, _, *_), off in zip(buffers, result.offsets):
        assert off + size <= result.total
    for i, j in itertools.combinations(range(len(buffers)), 2):
        (sa, fa, la, *_), (sb, fb, lb, *_) = buffers[i], buffers[j]
        if fa <= lb and fb <= la:
            oa, ob = result.offsets[i], result.offsets[j]
            assert oa + sa <= ob or ob + sb <= oa, (i, j)


def test_planner_names():
    assert picolite.PLANNERS == ("greedy", "bestfit", "linear", "optimal")


def test_header_example():
    r = picolite.plan_memory(CASE)
    assert r.offsets == [0, 0, 100]
    assert r.total == 150
    assert r.planner == "greedy"


def test_lower_bound():
    assert picolite.plan_memory(CASE).lower_bound == 150


@pytest.mark.parametrize("planner", picolite.PLANNERS)
def test_every_planner_is_valid_and_above_the_lower_bound(planner):
    bufs = [(64 * (i % 5 + 1), i % 7, i % 7 + i % 3, ) for i in range(30)]
    r = picolite.plan_memory(bufs, planner)
    assert_valid(bufs, r)
    assert r.total >= r.lower_bound
    assert r.planner == planner


def test_linear_is_the_sum():
    r = picolite.plan_memory(CASE, "linear")
    assert r.total == 230 and r.offsets == [0, 100, 180]


def test_optimal_never_worse_than_greedy_and_bestfit():
    bufs = [(48 * (i % 4 + 1), (3 * i) % 11, (3 * i) % 11 + i % 4) for i in range(24)]
    best = min(picolite.plan_memory(bufs, p).total for p in ("greedy", "bestfit"))
    assert picolite.plan_memory(bufs, "optimal").total <= best


def test_offline_offsets_are_kept():
    bufs = [(100, 0, 1, 200), (80, 0, 3), (50, 1, 2, 0)]
    r = picolite.plan_memory(bufs)
    assert r.offsets[0] == 200 and r.offsets[2] == 0
    assert_valid(bufs, r)


def test_empty_plan():
    r = picolite.plan_memory([])
    assert r.offsets == [] and r.total == 0 and r.lower_bound == 0


def test_lists_work_as_well_as_tuples():
    assert picolite.plan_memory([list(b) for b in CASE]).offsets == [0, 0, 100]


def test_to_dict():
    assert picolite.plan_memory(CASE).to_dict() == {
        "offsets": [0, 0, 100], "total": 150, "lower_bound": 150, "planner": "greedy"}


def test_bad_lifetime_is_value_error():
    with pytest.raises(ValueError, match="lifetime"):
        picolite.plan_memory([(10, 3, 1)])


def test_overlapping_offline_buffers_are_value_error():
    with pytest.raises(ValueError, match="overlap"):
        picolite.plan_memory([(10, 0, 1, 0), (10, 0, 1, 5)])


def test_malformed_buffer_is_type_error():
    with pytest.raises(TypeError):
        picolite.plan_memory([(10, 0)])
    with pytest.raises(TypeError):
        picolite.plan_memory([10])


def test_unknown_planner_is_value_error():
    with pytest.raises(ValueError, match="unknown planner"):
        picolite.plan_memory(CASE, "fastest")


# --- required_arena_size -------------------------------------------------------------------

def test_path_and_bytes_agree(shared_models):
    path = shared_models / ADD
    assert picolite.required_arena_size(path) == picolite.required_arena_size(
        str(path)) == picolite.required_arena_size(path.read_bytes())


def test_bytearray_and_memoryview(shared_models):
    data = (shared_models / ADD).read_bytes()
    n = picolite.required_arena_size(data)
    assert picolite.required_arena_size(bytearray(data)) == n
    assert picolite.required_arena_size(memoryview(data)) == n


@pytest.mark.parametrize("planner", picolite.PLANNERS)
def test_required_size_matches_the_report(shared_models, planner):
    data = (shared_models / ADD).read_bytes()
    n = picolite.required_arena_size(data, planner=planner, target="picolite")
    it = picolite.Interpreter(model_content=data, arena_size=n, planner=planner, target="picolite")
    it.allocate_tensors()
    assert it.allocations().required == n
    assert it.arena_used_bytes() <= n


def test_preserve_all_tensors_size_is_exact_too(shared_models):
    data = (shared_models / HELLO).read_bytes()
    n = picolite.required_arena_size(data, preserve_all_tensors=True, target="picolite")
    it = picolite.Interpreter(model_content=data, arena_size=n, preserve_all_tensors=True,
                              target="picolite")
    it.allocate_tensors()
    with pytest.raises(picolite.ArenaTooSmallError) as info:
        picolite.Interpreter(model_content=data, arena_size=n - 16,
                             preserve_all_tensors=True, target="picolite").allocate_tensors()
    assert info.value.required == n


def test_required_size_is_at_least_head_plus_tail(shared_models):
    data = (shared_models / ADD).read_bytes()
    it = picolite.Interpreter(model_content=data, target="picolite")
    it.allocate_tensors()
    rec = it.allocations()
    assert picolite.required_arena_size(data, target="picolite") >= rec.head + rec.tail


def test_plan_of_a_model_is_at_the_lower_bound_for_optimal(shared_models):
    data = (shared_models / ADD).read_bytes()
    it = picolite.Interpreter(model_content=data, planner="optimal")
    it.allocate_tensors()
    plan = it.memory_plan()
    assert plan.head >= plan.lower_bound
    assert plan.planner == "optimal"


def test_negative_size_is_value_error():
    with pytest.raises(ValueError, match="size"):
        picolite.plan_memory([(-1, 0, 1)])


def test_numpy_integers_are_accepted():
    import numpy as np

    bufs = [tuple(np.int64(v) for v in b) for b in CASE]
    assert picolite.plan_memory(bufs).offsets == [0, 0, 100]
