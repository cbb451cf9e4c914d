"""benchmarks/bench_planner.py reads google/minimalloc's CSV format right: [lower, upper)."""

import importlib.util
import pathlib

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "bench_planner.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_planner", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_half_open_lifetimes_let_back_to_back_buffers_share_bytes(tmp_path, capsys):
    # a lives over nodes 0-1 and b over 2-3: they may share bytes; c overlaps both
    (tmp_path / "tiny.csv").write_text("id,lower,upper,size\na,0,2,32\nb,2,4,32\nc,0,4,16\n")
    bench = _bench()
    assert bench.read_csv(tmp_path / "tiny.csv") == [(32, 0, 1), (32, 2, 3), (16, 0, 3)]
    bench.main(["--instances", str(tmp_path), "--repeat", "1", "--planners", "greedy,linear"])
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("tiny"))
    name, buffers, lower, greedy_ratio, _, linear_ratio, _ = row.split()
    assert (buffers, lower, greedy_ratio, linear_ratio) == ("3", "48", "1.000", "1.667")


def test_empty_lifetime_is_refused(tmp_path):
    (tmp_path / "empty.csv").write_text("id,lower,upper,size\na,3,3,16\n")
    with pytest.raises(ValueError, match=r"buffer a has an empty lifetime \[3, 3\)"):
        _bench().read_csv(tmp_path / "empty.csv")
