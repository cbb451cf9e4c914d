"""picolite's pytest plugin (registered through the ``pytest11`` entry point: installing
picolite is enough). Golden tests of a model on a target firmware::

    def test_kws(picolite_golden):
        picolite_golden.check("kws_int8.tflite", x_samples)       # samples first

    def test_arena(picolite_interpreter):
        it = picolite_interpreter("kws_int8.tflite")             # allocated, on the target
        assert it.arena_used_bytes() < 64 * 1024

``pytest --picolite-update-goldens`` records each check's outputs (``.npz``) and its arena
figures and per-layer fingerprints (``.json``) in a ``<test file>.goldens/`` folder beside
the test; a later run compares with them, on the metrics of :mod:`picolite.validate`
within the check's tolerances. A failure names the sample, the output, the metric and the
first layer whose output differs from the recorded one. ``--picolite-target T`` runs every
check on target ``T`` (default ``tflm``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pytest

# metric -> True when a larger value is better (the tolerance is then a minimum)
HIGHER_IS_BETTER = {"cos": True, "nse": True, "top1": True, "rmse": False, "mae": False,
                    "l2r": False, "max_abs": False, "mean": False, "std": False}
EXACT = {"max_abs": 0.0}  # the default: every output identical to the recorded one


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("picolite", "picolite golden tests")
    group.addoption("--picolite-target", default="tflm",
                    help="the firmware picolite's checks run as (picolite.TARGETS; "
                         "default tflm)")
    group.addoption("--picolite-update-goldens", action="store_true", default=False,
                    help="record the outputs and arena figures of every picolite_golden "
                         "check instead of comparing")


@pytest.fixture
def picolite_target(request: Any) -> str:
    """The target named by --picolite-target."""
    return request.config.getoption("--picolite-target")


@pytest.fixture
def picolite_interpreter(picolite_target: str):
    """A factory: ``picolite_interpreter(model, **options)`` is an allocated
    picolite.Interpreter on the session's target; closed after the test."""
    import picolite

    made: List[Any] = []

    def make(model: Any, **options: Any) -> "picolite.Interpreter":
        options.setdefault("target", picolite_target)
        if isinstance(model, (bytes, bytearray, memoryview)):
            it = picolite.Interpreter(model_content=bytes(model), **options)
        else:
            it = picolite.Interpreter(str(model), **options)
        it.allocate_tensors()
        made.append(it)
        return it

    yield make
    for it in made:
        it.close()


@pytest.fixture
def picolite_golden(request: Any, picolite_target: str) -> "Golden":
    """Golden checks bound to this test: ``picolite_golden.check(model, samples, ...)``."""
    return Golden(request, picolite_target,
                  request.config.getoption("--picolite-update-goldens"))


def _fingerprint(x: np.ndarray) -> Dict[str, Any]:
    v = np.asarray(x)
    f = v.astype(np.float64)
    return {"sha1": hashlib.sha1(v.tobytes()).hexdigest()[:16],
            "mean": float(f.mean()) if f.size else 0.0,
            "std": float(f.std()) if f.size else 0.0}


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name)[:120]


class GoldenMismatch(AssertionError):
    """A check differed from its recorded golden: the message names where."""


class Golden:
    """The golden checks of one test."""

    def __init__(self, request: Any, target: str, update: bool):
        self.request = request
        self.target = target
        self.update = update
        test_file = Path(str(request.node.fspath))
        self.folder = test_file.parent / f"{test_file.stem}.goldens"

    def path(self, name: str = "") -> Path:
        stem = _safe(self.request.node.name + (f"-{name}" if name else ""))
        return self.folder / stem

    # --- running -------------------------------------------------------------------

    def _run(self, content: bytes, samples: List[List[np.ndarray]], layers: bool):
        import picolite
        from picolite.validate import _fit

        it = picolite.Interpreter(model_content=content, target=self.target,
                                  preserve_all_tensors=layers)
        it.allocate_tensors()
        ins, outs = it.get_input_details(), it.get_output_details()
        ops = it._get_ops_details()
        outputs: List[List[np.ndarray]] = [[] for _ in outs]
        prints: List[List[Dict[str, Any]]] = []
        for s in samples:
            if len(s) != len(ins):
                raise ValueError(f"a sample has {len(s)} arrays, the model {len(ins)} inputs")
            for d, x in zip(ins, s):
                it.set_tensor(d["index"], _fit(x, d, False))
            it.invoke()
            for o, d in zip(outputs, outs):
                o.append(it.get_tensor(d["index"]).copy())
            if layers:
                prints.append([_fingerprint(it.get_tensor(int(op["outputs"][0])))
                               for op in ops])
        arena = {"required": picolite.required_arena_size(content),
                 "head": it.allocations().head, "tail": it.allocations().tail}
        names = [f"{op['index']} {op['op_name']}" for op in ops]
        it.close()
        return [np.stack(o) for o in outputs], arena, prints, names, outs

    # --- the check -----------------------------------------------------------------

    def check(self, model: Any, samples: Any, *, name: str = "",
              tolerances: Optional[Dict[str, float]] = None, arena: str = "equal") -> None:
        """Runs ``samples`` through ``model`` on the session's target and compares outputs
        and arena figures with the recorded golden (or records them with
        --picolite-update-goldens). ``tolerances``: metric -> bound, per output (rmse, mae,
        l2r, max_abs, mean, std: at most; cos, nse, top1: at least); default identical
        outputs. ``arena``: "equal" (default), "no-larger" or "ignore"."""
        __tracebackhide__ = True  # a mismatch shows the test's line, not the plugin's
        from picolite.validate import load_samples, metrics

        content = bytes(model) if isinstance(model, (bytes, bytearray, memoryview)) else \
            Path(model).read_bytes()
        data = load_samples(samples)
        outputs, figures, prints, names, outs = self._run(content, data, True)
        base = self.path(name)
        npz, meta = base.with_suffix(".npz"), base.with_suffix(".json")
        if self.update:
            self.folder.mkdir(parents=True, exist_ok=True)
            np.savez(npz, **{f"output_{i}": o for i, o in enumerate(outputs)})
            meta.write_text(json.dumps({"target": self.target, "arena": figures,
                                        "samples": len(data), "layers": names,
                                        "fingerprints": prints}, indent=1) + "\n")
            return
        if not npz.is_file() or not meta.is_file():
            pytest.fail(f"no golden {npz.name} for this check: record it with pytest "
                        "--picolite-update-goldens", pytrace=False)
        recorded = json.loads(meta.read_text())
        with np.load(npz) as z:
            golden = [z[f"output_{i}"] for i in range(len(z.files))]
        problems = []
        if len(golden) != len(outputs) or recorded["samples"] != len(data):
            raise GoldenMismatch(f"{npz.name}: recorded {len(golden)} outputs over "
                                 f"{recorded['samples']} samples, got {len(outputs)} over "
                                 f"{len(data)}")
        tol = dict(EXACT if tolerances is None else tolerances)
        for i, (got, want) in enumerate(zip(outputs, golden)):
            if got.shape != want.shape:
                problems.append(f"output {i}: shape {got.shape}, recorded {want.shape}")
                continue
            for s in range(len(data)):
                m = metrics(got[s][None], want[s][None])
                m["max_abs"] = float(np.max(np.abs(got[s].astype(np.float64) -
                                                   want[s].astype(np.float64)), initial=0))
                for metric, bound in tol.items():
                    value = m.get(metric)
                    if value is None:
                        raise ValueError(f"unknown metric {metric!r} (one of "
                                         f"{sorted(HIGHER_IS_BETTER)})")
                    bad = value < bound if HIGHER_IS_BETTER[metric] else abs(value) > bound
                    if bad or math.isnan(value):
                        layer = self._first_layer(recorded, prints, s)
                        problems.append(
                            f"sample {s}, output {i} ({outs[i]['name']}): {metric} "
                            f"{value:.6g} {'<' if HIGHER_IS_BETTER[metric] else '>'} "
                            f"{bound:g}; first diverging layer: {layer}")
                        break
                else:
                    continue
                break  # one line per output: its first failing sample
        problems += self._arena_problems(recorded["arena"], figures, arena)
        if problems:
            raise GoldenMismatch(f"{npz.name} on target {self.target}:\n  " +
                                 "\n  ".join(problems))

    @staticmethod
    def _first_layer(recorded: Dict[str, Any], prints: List[List[Dict[str, Any]]],
                     sample: int) -> str:
        old = recorded.get("fingerprints", [])
        if sample >= len(old) or sample >= len(prints):
            return "unknown (no per-layer record)"
        names = recorded.get("layers", [])
        for k, (a, b) in enumerate(zip(old[sample], prints[sample])):
            if a["sha1"] != b["sha1"]:
                return (f"node {names[k] if k < len(names) else k} (mean {b['mean']:.6g}, "
                        f"recorded {a['mean']:.6g})")
        if len(old[sample]) != len(prints[sample]):
            return f"the model has {len(prints[sample])} layers, recorded {len(old[sample])}"
        return "none (every layer's output is the recorded one)"

    @staticmethod
    def _arena_problems(old: Dict[str, int], new: Dict[str, int], rule: str) -> List[str]:
        if rule == "ignore":
            return []
        out = []
        for k in ("required", "head", "tail"):
            if rule == "equal" and new[k] != old[k] or rule == "no-larger" and new[k] > old[k]:
                out.append(f"arena {k}: {new[k]} bytes, recorded {old[k]}")
        return out
