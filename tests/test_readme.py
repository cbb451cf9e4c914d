"""The README's tables and snippets against the code: its arena figures are what picolite
computes (and TFLM's what TFLM_ARENA.tsv records), its model count is the table's, and its
Python snippets run as written."""

import csv
import os
import re
import shutil

import numpy as np
import pytest

import picolite
from conftest import ROOT, SHARED_MODELS

README = (ROOT / "README.md").read_text()
DEMO = ROOT / "python" / "picolite" / "data" / "demo.tflite"


def _tables(header_start):
    """Every markdown table whose header row starts with header_start: rows of cells."""
    tables, lines = [], README.splitlines()
    for k, line in enumerate(lines):
        if line.startswith(header_start):
            head = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            for row in lines[k + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(head, (c.strip() for c in row.strip("|").split("|")))))
            tables.append(rows)
    return tables


def _tsv():
    with open(SHARED_MODELS / "TFLM_ARENA.tsv") as f:
        return {r["model"].rsplit("/", 1)[-1][:-len(".tflite")]: r
                for r in csv.DictReader(f, delimiter="\t")}


def test_arena_tables_are_the_codes_figures(shared_models):
    """Four rows disagreed with benchmarks/arena_table.py (trained_lstm_int8, dtln, both
    audio preprocessors in their own table)."""
    tsv = _tsv()
    tables = _tables("| model | picolite total | head | tail |")
    assert len(tables) == 2 and all(tables)
    for row in [r for t in tables for r in t]:
        path = shared_models / tsv[row["model"]]["model"]
        it = picolite.Interpreter(str(path), target="picolite")  # the tables are picolite's
        it.allocate_tensors()
        a = it.allocations()
        assert (int(row["picolite total"]), int(row["head"]), int(row["tail"])) == \
            (a.total, a.head, a.tail), row["model"]
        if "lower bound" in row:
            assert int(row["lower bound"]) == a.lower_bound, row["model"]
        assert int(row["TFLM plain total"]) == int(tsv[row["model"]]["tflm_arena_used_plain"])
        assert int(row["TFLM head"]) == int(tsv[row["model"]]["tflm_head"])


def test_the_cmsis_nn_table_is_the_codes_figures():
    """The per-core-family arena table: each cell is required_arena_size on its target."""
    tables = _tables("| model | tflm | tflm-cmsis-nn")
    assert len(tables) == 1 and tables[0]
    for row in tables[0]:
        name = row["model"].split()[0]
        path = ROOT / "tests" / "models" / "mlperf_tiny" / f"{name}.tflite"
        for head, cell in row.items():
            if head == "model":
                continue
            target = head.split()[0]
            assert picolite.required_arena_size(str(path), target=target) == \
                int(cell.replace(",", "")), (name, target)


def test_the_model_count_is_the_tables(shared_models):
    """"On all 140 models" against 138 rows."""
    count = int(re.search(r"On all (\d+) models", README).group(1))
    assert count == len(_tsv())


def _python_block(after):
    """The first ```python block after the line containing `after`."""
    at = README.index(after)
    start = README.index("```python\n", at) + len("```python\n")
    return README[start:README.index("```", start)]


@pytest.fixture
def model_dir(tmp_path):
    shutil.copy(DEMO, tmp_path / "model.tflite")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(cwd)


@pytest.mark.parametrize("section", ["## Python tour", "### Custom operators in Python",
                                     "`Interpreter.kernels` says which set runs"])
def test_python_snippets_run_as_written(section, model_dir, litert):
    """The tour used `data` without defining it; the speed snippet read arena_used_bytes()
    before allocate_tensors(); the custom-op snippet needed a model that shipped nowhere."""
    exec(compile(_python_block(section), f"README {section}", "exec"),
         {"picolite": picolite, "np": np})


def test_the_dask_snippet_guards_its_main():
    """Client() starts worker processes that import the script: without the guard each
    would start a cluster of its own."""
    code = _python_block("several inputs. Samples are independent")
    client = code.index("Client()")
    assert 'if __name__ == "__main__":' in code[:client]


def test_the_arm64_lines_build_before_testing():
    lines = [line for line in README.splitlines() if "build-arm64" in line]
    ctest = next(k for k, line in enumerate(lines) if "ctest --test-dir build-arm64" in line)
    assert any("cmake --build build-arm64" in line for line in lines[:ctest + 1])


def test_the_cmsis_nn_table_is_the_goldens():
    """"made 125 random models ... 20 differ": the counts and the operators of the section
    "Where CMSIS-NN's bytes differ" against tests/goldens/tflm/m4-cmsis-nn/ops/."""
    import json
    files = sorted((ROOT / "tests" / "goldens" / "tflm" / "m4-cmsis-nn" / "ops").glob("*.json"))
    goldens = [json.loads(p.read_text()) for p in files]
    made = re.search(r"made\s+(\d+)\s+random\s+models", README)
    differ = re.search(r"\):\s+(\d+)\s+differ,\s+for\s+the\s+reasons\s+below", README)
    assert int(made.group(1)) == len(goldens)
    assert int(differ.group(1)) == sum(g["differs"] for g in goldens)
    rows = _tables("| operator | dtypes | CMSIS-NN |")
    assert len(rows) == 1
    listed = {r["operator"] for r in rows[0]}
    for g in goldens:
        if g["differs"] and not g.get("cmsis_nn_undefined_outputs"):
            assert set(g["operators"]) <= listed, g["model"]
