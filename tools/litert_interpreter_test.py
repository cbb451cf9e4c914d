"""Runs LiteRT's own tflite/python/interpreter_test.py against LiteRT's pip wheel and against
picolite, with the test's import lines changed as the README's migration section says.

    python tools/litert_interpreter_test.py --litert-repo PATH [--rev HEAD] [--work DIR]
        [--tf-python PY] [--litert-python PY] [--picolite-python PY] [--delegate]

--litert-repo is a clone of google-ai-edge/LiteRT (bare or not); nothing of it is copied into
this repository. Into --work (default /tmp/litert-interpreter-test) go, laid out as in
LiteRT's tree so that the test's resource_loader paths resolve:

- tflite/python/interpreter_test.orig.py, LiteRT's file at --rev;
- its test models, rebuilt as tflite/python/testdata/BUILD builds them (build_def.bzl's
  tf_to_tflite: ``tflite_convert --enable_v1_converter --graph_def_file=SRC
  --output_file=OUT`` plus the rule's options) with the TensorFlow of --tf-python; pc_conv.bin
  and tflite/testdata/sparse_tensor.bin as checked in; two_signatures.tflite, a binary the
  BUILD lists but the repository lacks, from a tf.Module with signatures "add" (x + 10) and
  "multiply" (x * 3) on x: float32[1] (the names the test checks: add_x:0, multiply_x:0);
- with --delegate, testdata/test_delegate.so, compiled with g++ from LiteRT's
  test_delegate.cc and tflite/core/c/common.cc (its Bazel deps); without it the delegate
  tests fail in setUp for both, as with the wheel alone;
- litert_test.py: the import lines for the pip wheel (``tflite.python`` ->
  ``ai_edge_litert``; ``lite`` is TensorFlow's converter module and testEmptyInputTensor's
  ``lite.Interpreter`` the interpreter under test; the Bazel-built
  ``_pywrap_test_registerer`` is in no wheel and becomes None);
- picolite_test.py: litert_test.py with ``ai_edge_litert`` -> ``picolite`` (the README's
  ``from picolite import interpreter as tfl``).

Each runs under pytest (the Python given needs TensorFlow, which the test file imports, and
the package under test); a table of both results follows.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# tflite/python/testdata/BUILD's tf_to_tflite rules: output, source, options
CONVERSIONS = [
    ("permute_float.tflite", "permute.pbtxt", ["--input_arrays=input", "--output_arrays=output"]),
    ("permute_uint8.tflite", "permute.pbtxt",
     ["--input_arrays=input", "--output_arrays=output", "--inference_type=QUANTIZED_UINT8",
      "--std_dev_values=1", "--mean_values=0", "--default_ranges_min=0",
      "--default_ranges_max=255"]),
    ("gather_string.tflite", "gather.pbtxt",
     ["--input_arrays=input,indices", "--output_arrays=output"]),
    ("gather_string_0d.tflite", "gather_0d.pbtxt",
     ["--input_arrays=input,indices", "--output_arrays=output"]),
]

TWO_SIGNATURES = '''
import sys, tempfile
import tensorflow as tf

class TwoSignatures(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32)])
    def add(self, x):
        return {"output_0": x + 10.0}

    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32)])
    def multiply(self, x):
        return {"output_0": x * 3.0}

m = TwoSignatures()
d = tempfile.mkdtemp()
tf.saved_model.save(m, d, signatures={"add": m.add.get_concrete_function(),
                                      "multiply": m.multiply.get_concrete_function()})
conv = tf.lite.TFLiteConverter.from_saved_model(d, signature_keys=["add", "multiply"])
open(sys.argv[1], "wb").write(conv.convert())
'''

# (pattern, replacement) on LiteRT's file, giving the pip wheel's import lines
WHEEL_IMPORTS = [
    (r"^from tflite\.python import interpreter as interpreter_wrapper$",
     "from ai_edge_litert import interpreter as interpreter_wrapper"),
    (r"^from tflite\.python import lite$",
     "from tensorflow.lite.python import lite  # the converter only"),
    (r"lite\.Interpreter\(model_content=model\)",
     "interpreter_wrapper.Interpreter(model_content=model)"),
    (r"^from tflite\.python\.metrics import metrics$",
     "from ai_edge_litert import metrics_portable as metrics"),
    (r"^from tflite\.python\.testdata import _pywrap_test_registerer as test_registerer$",
     "test_registerer = None  # a Bazel pybind_extension of LiteRT's tree, in no wheel"),
]


def git_show(repo: Path, rev: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"], check=True,
                          stdout=subprocess.PIPE).stdout


def quiet(cmd, **kw) -> None:
    """Runs cmd, showing its output (TensorFlow's logging) only if it fails."""
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if done.returncode:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}")


def substitute(text: str, rules) -> str:
    for pattern, repl in rules:
        text, n = re.subn(pattern, repl, text, flags=re.M)
        if n != 1:
            sys.exit(f"the test file changed: {pattern!r} matched {n} times")
    return text


def prepare(args: argparse.Namespace) -> Path:
    work = Path(args.work)
    py, data = work / "tflite" / "python", work / "tflite" / "python" / "testdata"
    data.mkdir(parents=True, exist_ok=True)
    (work / "tflite" / "testdata").mkdir(exist_ok=True)
    repo, rev = Path(args.litert_repo), args.rev
    orig = git_show(repo, rev, "tflite/python/interpreter_test.py").decode()
    (py / "interpreter_test.orig.py").write_text(orig)
    for name in ("permute.pbtxt", "gather.pbtxt", "gather_0d.pbtxt", "pc_conv.bin"):
        (data / name).write_bytes(git_show(repo, rev, f"tflite/python/testdata/{name}"))
    (work / "tflite" / "testdata" / "sparse_tensor.bin").write_bytes(
        git_show(repo, rev, "tflite/testdata/sparse_tensor.bin"))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    convert = [args.tf_python, "-m", "tensorflow.lite.python.tflite_convert"]
    for out, src, options in CONVERSIONS:
        quiet(convert + ["--enable_v1_converter", f"--graph_def_file={data / src}",
                         f"--output_file={data / out}"] + options, env=env)
    quiet([args.tf_python, "-c", TWO_SIGNATURES, str(data / "two_signatures.tflite")], env=env)
    so = data / "test_delegate.so"
    if args.delegate:
        src = work / "delegate_src"
        for path in ("tflite/core/c/common.h", "tflite/core/c/common.cc",
                     "tflite/core/c/c_api_types.h", "tflite/core/c/allocator_internal.h",
                     "tflite/tensorflow_profiler_logger.h", "tflite/core/macros.h",
                     "tflite/converter/core/c/tflite_types.h",
                     "tflite/python/testdata/test_delegate.cc"):
            (src / path).parent.mkdir(parents=True, exist_ok=True)
            (src / path).write_bytes(git_show(repo, rev, path))
        quiet(["g++", "-O1", "-std=c++17", "-shared", "-fPIC", f"-I{src}",
               str(src / "tflite/python/testdata/test_delegate.cc"),
               str(src / "tflite/core/c/common.cc"), "-o", str(so)])
    elif so.exists():
        so.unlink()
    wheel = substitute(orig, WHEEL_IMPORTS)
    (py / "litert_test.py").write_text(wheel)
    # the README's migration: "from ai_edge_litert import ..." -> "from picolite import ..."
    (py / "picolite_test.py").write_text(wheel.replace("ai_edge_litert", "picolite"))
    return py


def run(python: str, test: Path) -> dict:
    out = subprocess.run([python, "-m", "pytest", "-v", "-p", "no:cacheprovider", test.name],
                         cwd=test.parent, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    found = re.findall(r"::(\w+::test[A-Z]\w*) (PASSED|FAILED|ERROR|SKIPPED)", out)
    if not found:
        sys.exit(f"{python} ran no test of {test.name}:\n{out[-3000:]}")
    return dict(found)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--litert-repo", required=True)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--work", default="/tmp/litert-interpreter-test")
    ap.add_argument("--tf-python", default=sys.executable,
                    help="a Python with TensorFlow (2.21 here) to convert the test models")
    ap.add_argument("--litert-python", default=sys.executable,
                    help="a Python with TensorFlow and ai-edge-litert")
    ap.add_argument("--picolite-python", default=sys.executable,
                    help="a Python with TensorFlow and picolite")
    ap.add_argument("--delegate", action="store_true",
                    help="build testdata/test_delegate.so from LiteRT's sources (g++)")
    args = ap.parse_args()
    py = prepare(args)
    litert = run(args.litert_python, py / "litert_test.py")
    pico = run(args.picolite_python, py / "picolite_test.py")
    width = max(map(len, litert))
    print(f"{'test':{width}}  {'LiteRT wheel':12}  picolite")
    for name in sorted(litert, key=list(litert).index):
        print(f"{name:{width}}  {litert[name]:12}  {pico.get(name, 'MISSING')}")
    both = [n for n in litert if litert[n] == "PASSED"]
    print(f"LiteRT's wheel passes {len(both)} of {len(litert)}; picolite passes "
          f"{sum(pico.get(n) == 'PASSED' for n in both)} of those "
          f"({sum(v == 'PASSED' for v in pico.values())} in all)")


if __name__ == "__main__":
    main()
