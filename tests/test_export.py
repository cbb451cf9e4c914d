"""picolite export-c: the model array, a resolver of its kernels only, the exact arena size.
(tests/test_mcu.py compiles and runs exports on emulated microcontrollers.)"""

import re

import pytest

import picolite
from conftest import ZOO
from picolite.__main__ import main
from picolite.export import c_identifier, export_c

MODEL = ZOO / "net_cnn_int8.tflite"


@pytest.fixture
def exported(tmp_path):
    c, h = export_c(MODEL, tmp_path, "cnn")
    return c.read_text(), h.read_text()


def test_arena_constant_is_the_exact_size(exported):
    _, h = exported
    size = int(re.search(r"#define CNN_ARENA_SIZE (\d+)u", h).group(1))
    assert size == picolite.required_arena_size(MODEL, target="picolite")
    assert "#define CNN_PLANNER PL_PLANNER_GREEDY" in h


def test_model_array_holds_the_file_aligned(exported):
    c, _ = exported
    body = re.search(r"_Alignas\(16\) const unsigned char cnn_model\[(\d+)\] = \{(.*?)\};", c,
                     re.S)
    data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", body.group(2)))
    assert data == MODEL.read_bytes() and int(body.group(1)) == len(data)
    assert f"const size_t cnn_model_size = {len(data)};" in c


def test_resolver_lists_only_the_models_operators(exported):
    c, h = exported
    entries = re.findall(r"\{(\d+), NULL, (pl_\w+_registration)\}, /\* (\w+) \*/", c)
    it = picolite.Interpreter(str(MODEL))
    ops = list(dict.fromkeys(d["op_name"] for d in it._get_ops_details()))
    assert [e[2] for e in entries] == ops
    assert ("3", "pl_conv_registration", "CONV_2D") in entries
    assert f"static const pl_kernel_list kernel_list = {{kernels, {len(ops)}}};" in c
    assert "const pl_resolver *cnn_resolver(void);" in h
    assert "pl_builtin_resolver" not in c


def test_resolver_covers_every_subgraphs_operators(tmp_path):
    """A WHILE's body runs operators subgraph 0 never names (CAST here): the exported
    resolver must register them, or the firmware fails at allocate."""
    model = ZOO / "subgraphs" / "while_float32.tflite"
    c, _ = export_c(model, tmp_path, "loop")
    names = re.findall(r"\{\d+, NULL, pl_\w+_registration\}, /\* (\w+) \*/", c.read_text())
    it = picolite.Interpreter(str(model))
    assert [d["op_name"] for d in it._get_ops_details()] == ["WHILE"]
    assert names[0] == "WHILE" and "CAST" in names and len(names) == len(set(names)) > 1


def test_names_become_c_identifiers():
    assert c_identifier("net-cnn 8") == "net_cnn_8"
    assert c_identifier("8bit") == "_8bit"


def test_the_default_name_is_the_files_stem(tmp_path):
    c, h = export_c(MODEL, tmp_path)
    assert c.name == "net_cnn_int8.c" and h.name == "net_cnn_int8.h"
    assert "NET_CNN_INT8_ARENA_SIZE" in h.read_text()


def test_planner_changes_the_constant(tmp_path):
    path = ZOO / "net_mobilenet_v1_025_int8.tflite"
    _, h = export_c(path, tmp_path, "m", planner="optimal")
    size = int(re.search(r"#define M_ARENA_SIZE (\d+)u", h.read_text()).group(1))
    assert size == picolite.required_arena_size(path, "optimal", target="picolite") < \
        picolite.required_arena_size(path, target="picolite")
    with pytest.raises(ValueError, match="planner"):
        export_c(path, tmp_path, "m", planner="fast")


def test_a_broken_model_is_refused(tmp_path):
    with pytest.raises(picolite.ModelError):
        export_c(b"\x10\x00\x00\x00TFL3" + bytes(40), tmp_path, "bad")
    assert not list(tmp_path.iterdir())


def test_cli_export_c(tmp_path, capsys):
    assert main(["export-c", str(MODEL), "--name", "k", "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / "k.c").exists() and (tmp_path / "k.h").exists()
    assert "k.c" in capsys.readouterr().out


def test_cli_plan_write(tmp_path, capsys):
    out = tmp_path / "planned.tflite"
    path = ZOO / "net_mobilenet_v1_025_int8.tflite"
    assert main(["plan", str(path), "--write", str(out)]) == 0
    assert b"OfflineMemoryAllocation" in out.read_bytes()
    assert "optimal plan, head 13824 bytes" in capsys.readouterr().out


def test_cli_reports_a_bad_model(tmp_path, capsys):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"junk" * 10)
    assert main(["plan", str(bad), "--write", str(tmp_path / "o.tflite")]) == 1
    assert "picolite:" in capsys.readouterr().err


def test_custom_operators_are_listed_by_name(tmp_path):
    path = ZOO / "signal" / "energy_257.tflite"
    if not path.exists():
        pytest.skip(f"{path} is missing")
    c, _ = export_c(path, tmp_path, "energy")
    assert '{32, "SignalEnergy", pl_signal_energy_registration},' in c.read_text()
