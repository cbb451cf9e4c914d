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


MAIN_C = r"""
#include <stdio.h>
#include <string.h>

#include "cnn.h"

static _Alignas(16) uint8_t arena[CNN_ARENA_SIZE];
static pl_interp_storage record;

int main(void)
{
    pl_error err;
    pl_interp *it;
    pl_interp_options opt = pl_interp_defaults();
    opt.planner = CNN_PLANNER;
    opt.resolver = cnn_resolver();
    opt.storage = &record;
    if (pl_interp_create(cnn_model, cnn_model_size, &opt, arena, sizeof arena, &it, &err) ||
        pl_interp_allocate(it)) {
        printf("FAIL %s\n", err.msg);
        return 1;
    }
    pl_tensor_info in, out;
    pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, 0), &in);
    for (size_t i = 0; i < in.bytes; i++)
        ((uint8_t *)in.data)[i] = (uint8_t)(i * 37u + 11u);
    if (pl_interp_invoke(it) != PL_OK) {
        printf("FAIL %s\n", err.msg);
        return 1;
    }
    pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, 0), &out);
    for (size_t i = 0; i < out.bytes; i++)
        printf("%02x", ((const uint8_t *)out.data)[i]);
    printf("\n");
    return 0;
}
"""


def test_an_export_builds_with_the_installed_package_alone(tmp_path):
    """The wheel had no C headers or sources, so an export compiled only against a clone:
    picolite.c_flags() / c_sources() (picolite --cflags / --sources) are the runtime the
    package ships, and the program computes what the package does."""
    import concurrent.futures
    import shutil
    import subprocess

    import numpy as np

    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    export_c(MODEL, tmp_path, "cnn")
    (tmp_path / "main.c").write_text(MAIN_C)
    flags = picolite.c_flags()
    assert all(str(picolite.csource.c_root()) in s for s in picolite.c_sources())
    sources = [str(tmp_path / "main.c"), str(tmp_path / "cnn.c"), *picolite.c_sources()]

    def compile_one(k):
        obj = tmp_path / f"{k}.o"
        r = subprocess.run([cc, "-O0", "-c", sources[k], "-o", str(obj), *flags],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        return str(obj)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        objects = list(pool.map(compile_one, range(len(sources))))
    exe = tmp_path / "app"
    r = subprocess.run([cc, "-o", str(exe), *objects, "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout
    it = picolite.Interpreter(str(MODEL), kernels="portable")
    it.allocate_tensors()
    d = it.get_input_details()[0]
    n = int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize
    x = np.frombuffer(bytes((i * 37 + 11) % 256 for i in range(n)), d["dtype"])
    it.set_tensor(d["index"], x.reshape(d["shape"]))
    it.invoke()
    assert out.stdout.strip() == it.get_tensor(it.get_output_details()[0]["index"]).tobytes().hex()
