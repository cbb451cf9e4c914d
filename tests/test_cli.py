"""python -m picolite: the model summary, reports, planners, outputs, --compare/--bench/--json."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import picolite
from picolite.__main__ import DEMO_MODEL, main

ADD = "examples/memory_footprint/simple_add_model.tflite"
HELLO = "examples/hello_world/hello_world_int8.tflite"


@pytest.fixture
def add_path(shared_models):
    return str(shared_models / ADD)


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_text_report_has_every_section(add_path, capsys):
    assert main([add_path]) == 0
    out = capsys.readouterr().out
    for section in ("ops", "tensors", "inputs", "outputs", "[RecordingMicroAllocator]",
                    "planners", "lower bound", "arena (the exact minimum", "output 0",
                    "allocations (target tflm)", "outputs (target tflm)"):
        assert section in out, section
    assert "ADD" in out and "zero point" in out


def test_json_report(add_path, capsys):
    r = run_json(capsys, add_path)
    assert r["required_arena_size"] == picolite.required_arena_size(add_path, target="picolite")
    assert r["arena_size"] == r["required_arena_size"]
    assert [o["op_name"] for o in r["ops"]] == ["ADD"]
    assert r["inputs"][0]["quantization"]["zero_point"] == [-2]
    assert [p["planner"] for p in r["planners"]] == list(picolite.PLANNERS)
    for p in r["planners"]:
        assert p["head"] >= p["lower_bound"]
    assert r["allocations"]["target"] == "tflm"
    assert r["allocations_text"].startswith("[RecordingMicroAllocator]")
    assert np.array(r["output_values"][0]).shape == (1, 128, 128, 1)
    assert {t["kind"] for t in r["tensors"]} == {"activation"}
    assert r["tensors"][0]["bytes"] == 128 * 128


def test_random_inputs_are_deterministic(add_path, capsys):
    a = run_json(capsys, add_path)["output_values"]
    b = run_json(capsys, add_path)["output_values"]
    assert a == b
    c = run_json(capsys, add_path, "--seed", "7")["output_values"]
    assert c != a


def test_input_files(add_path, tmp_path, capsys):
    files = []
    for i in range(2):
        f = tmp_path / f"x{i}.npy"
        np.save(f, np.full((1, 128, 128, 1), i + 1, np.int8))
        files += ["--input", str(f)]
    r = run_json(capsys, add_path, *files)
    it = picolite.Interpreter(add_path)
    it.allocate_tensors()
    it.set_input(np.full((1, 128, 128, 1), 1, np.int8), 0)
    it.set_input(np.full((1, 128, 128, 1), 2, np.int8), 1)
    it.invoke()
    assert r["output_values"][0] == it.get_output(0).tolist()


def test_wrong_number_of_inputs_exits(add_path, tmp_path):
    f = tmp_path / "x.npy"
    np.save(f, np.zeros((1, 128, 128, 1), np.int8))
    with pytest.raises(SystemExit, match="2 inputs"):
        main([add_path, "--input", str(f)])


def test_compare_with_litert(add_path, capsys, litert):
    r = run_json(capsys, add_path, "--compare")
    assert r["compare"]["available"] is True
    row = r["compare"]["outputs"][0]
    assert row["identical"] is True and row["max_abs_diff"] == 0.0


def test_compare_text(add_path, capsys, litert):
    assert main([add_path, "--compare"]) == 0
    assert "identical bytes yes" in capsys.readouterr().out


def test_compare_without_litert_says_so(add_path, capsys, monkeypatch):
    import picolite.__main__ as cli

    monkeypatch.setattr(cli, "_litert", lambda: None)
    assert main([add_path, "--compare", "--bench", "2"]) == 0
    out = capsys.readouterr().out
    assert "LiteRT is not installed" in out
    assert "no comparison" in out


def test_bench(add_path, capsys):
    r = run_json(capsys, add_path, "--bench", "3")
    assert r["bench"]["invokes"] == 3 and r["bench"]["picolite_us"] > 0
    assert [op["op_name"] for op in r["bench"]["per_op"]] == ["ADD"]
    if "litert_us" in r["bench"]:
        assert r["bench"]["ratio"] > 0


@pytest.mark.parametrize("planner", picolite.PLANNERS)
def test_planner_option(add_path, capsys, planner):
    """--planner is picolite's own runtime's (a TFLM target plans with TFLM's greedy one)."""
    r = run_json(capsys, add_path, "--planner", planner, "--target", "picolite")
    assert r["allocations"]["planner"] == planner


def test_the_arena_side_by_side(add_path, capsys):
    """The default target's figure (TFLM's) beside picolite's own, each named."""
    rows = {r["target"]: r["bytes"] for r in run_json(capsys, add_path)["arena_by_target"]}
    assert rows == {"tflm": picolite.required_arena_size(add_path),
                    "picolite": picolite.required_arena_size(add_path, target="picolite")}


def test_targets_lists_every_firmware(add_path, capsys):
    assert main([add_path, "--targets"]) == 0
    out = capsys.readouterr().out
    sizes = picolite.required_arena_sizes(add_path)
    for target, size in sizes.items():
        assert any(line.split()[:2] == [target, f"{size:,}"] for line in out.splitlines()), \
            target
    assert {"tflm-cmsis-nn", "tflm-cmsis-nn-mve", "tflm-cmsis-nn-nodsp"} <= set(sizes)


def test_target_names_whose_outputs_and_allocations(add_path, capsys):
    r = run_json(capsys, add_path, "--target", "tflm-cmsis-nn")
    assert r["target"] == "tflm-cmsis-nn"
    assert "target tflm-cmsis-nn" in r["allocations_text"]
    assert [x["target"] for x in r["arena_by_target"]] == ["tflm-cmsis-nn", "picolite"]


def test_arena_size_too_small_is_reported(add_path, capsys):
    assert main([add_path, "--arena-size", "4096"]) == 1
    assert "ArenaTooSmallError" in capsys.readouterr().err


def test_larger_arena_size(add_path, capsys):
    assert run_json(capsys, add_path, "--arena-size", "100000")["arena_size"] == 100000


def test_bad_model_file_is_reported(tmp_path, capsys):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\0" * 64)
    assert main([str(bad)]) == 1
    assert "ModelError" in capsys.readouterr().err


def test_demo_model_by_default(capsys):
    if not DEMO_MODEL.is_file():
        pytest.skip(f"{DEMO_MODEL} is not there yet")
    r = run_json(capsys)
    assert r["model"] == str(DEMO_MODEL) and r["ops"]


def test_python_dash_m(add_path):
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "picolite", add_path, "--json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ops"][0]["op_name"] == "ADD"


def test_hello_world(shared_models, capsys, litert):
    r = run_json(capsys, str(shared_models / HELLO), "--compare")
    assert [o["op_name"] for o in r["ops"]] == ["FULLY_CONNECTED"] * 3
    assert all(row["identical"] for row in r["compare"]["outputs"])


def test_input_of_the_wrong_dtype_is_reported(add_path, tmp_path, capsys):
    files = []
    for i in range(2):
        f = tmp_path / f"x{i}.npy"
        np.save(f, np.zeros((1, 128, 128, 1), np.float32))
        files += ["--input", str(f)]
    assert main([add_path, *files]) == 1
    assert "expected type INT8" in capsys.readouterr().err


def test_missing_input_file_is_reported(add_path, tmp_path, capsys):
    missing = str(tmp_path / "absent.npy")
    assert main([add_path, "--input", missing, "--input", missing]) == 1
    assert "absent.npy" in capsys.readouterr().err


# --- help, version, pipes, the bench's peers -----------------------------------------------

def test_help_lists_the_subcommands_and_the_build_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for words in ("picolite export-c MODEL", "picolite plan MODEL --write OUT", "--version",
                  "$(picolite --cflags) $(picolite --sources)"):
        assert words in out


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"picolite {picolite.__version__} (C runtime {picolite._picolite.version()})")


def test_a_reader_that_leaves_early_is_no_error():
    """`picolite --ops | head` ended in a BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "picolite", "--ops"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_bench_names_litert_s_kernels_and_divides_as_the_readme(add_path, capsys, litert):
    """--bench timed LiteRT's reference kernels without saying so and printed
    picolite/LiteRT, the README's tables LiteRT default / picolite."""
    r = run_json(capsys, add_path, "--bench", "5")["bench"]
    assert r["litert_ref_us"] > 0
    assert r["ratio"] == pytest.approx(r["litert_us"] / r["picolite_us"])
    assert main([add_path, "--bench", "5"]) == 0
    out = capsys.readouterr().out
    assert "LiteRT default kernels (XNNPACK, 1 thread)" in out
    assert "LiteRT reference kernels" in out
    assert "LiteRT default / picolite" in out and "above 1: picolite is faster" in out
