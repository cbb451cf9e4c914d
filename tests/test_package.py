import ast
import importlib
import pathlib
import subprocess

import pytest

import picolite
from picolite import _picolite


def test_version_matches_c_runtime():
    assert picolite.__version__ == _picolite.version()
    assert picolite.__version__.count(".") == 2


# --- the package's shape: one job per module, no cycles, each audience its own names -----

PACKAGE = pathlib.Path(picolite.__file__).resolve().parent
SOURCE = pathlib.Path(__file__).resolve().parent.parent / "python" / "picolite"
MAX_LINES = 600

# The peers' own Interpreter names (dir() less dunders) at the versions tested against:
# tflite_micro.python.tflite_micro.runtime.Interpreter and ai_edge_litert's.
TFLM_NAMES = {"GetTensor", "from_bytes", "from_file", "get_input_details", "get_output",
              "get_output_details", "invoke", "print_allocations", "reset", "set_input"}
LITERT_NAMES = {"_ensure_safe", "_get_full_signature_list", "_get_op_details",
                "_get_ops_details", "_get_tensor_details", "_native_handle", "_safe_to_run",
                "allocate_tensors", "experimental_compress_quantization_zero_points",
                "get_input_details", "get_output_details", "get_signature_list",
                "get_signature_runner", "get_tensor", "get_tensor_details", "invoke",
                "num_subgraphs", "reset_all_variables", "resize_tensor_input", "set_tensor",
                "tensor"}


def _sources():
    # the checkout's files when the tests run from one, else the installed package's
    root = SOURCE if (SOURCE / "__init__.py").is_file() else PACKAGE
    return sorted(root.glob("*.py"))


def _imports(path):
    """The picolite modules ``path`` imports, at module level or inside functions."""
    names = {p.stem for p in _sources()} | {"_picolite"}  # the extension too
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "picolite"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("picolite"):
            if node.module == "picolite":  # a submodule, or a name from __init__
                found |= {f"picolite.{a.name}" if a.name in names else "picolite"
                          for a in node.names}
            else:
                found.add(node.module)
    return {m for m in found if m == "picolite" or m.split(".")[1] in names}


def _module(path):
    return "picolite" if path.stem == "__init__" else f"picolite.{path.stem}"


def test_no_import_cycle_inside_picolite():
    graph = {_module(p): _imports(p) - {_module(p)} for p in _sources()}
    done, path = set(), []

    def visit(m):
        if m in path:
            cycle = path[path.index(m):] + [m]
            pytest.fail(f"import cycle: {' -> '.join(cycle)}")
        if m in done:
            return
        path.append(m)
        for dep in sorted(graph.get(m, ())):
            visit(dep)
        path.pop()
        done.add(m)

    for m in sorted(graph):
        visit(m)


def test_the_cycle_check_sees_imports_inside_functions(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from picolite.evaluate import run_batch\n")
    assert _imports(a) == {"picolite.evaluate"}


def test_no_python_module_over_600_lines():
    long = {p.name: n for p in _sources() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def _names(cls):
    return {n for n in dir(cls) if not n.startswith("__")}


def _peer_names(module):
    """The installed peer's Interpreter names, or none when it is not installed."""
    try:
        return _names(importlib.import_module(module).Interpreter)
    except ImportError:
        return set()


def test_each_peer_module_has_only_its_peers_names():
    from picolite import interpreter, runtime

    tflm = TFLM_NAMES | _peer_names("tflite_micro.python.tflite_micro.runtime")
    litert = LITERT_NAMES | _peer_names("ai_edge_litert.interpreter")
    ours_litert, ours_tflm = _names(interpreter.Interpreter), _names(runtime.Interpreter)
    assert not ours_litert & (tflm - litert), "TFLM's names on picolite.interpreter"
    assert not ours_tflm & (litert - tflm), "LiteRT's names on picolite.runtime"
    # each keeps its peer's names (less LiteRT's handles to its C++ objects), and
    # picolite.Interpreter has both sets (less the echo of a LiteRT-only keyword)
    kept_litert = LITERT_NAMES - {"_ensure_safe", "_native_handle"}
    assert TFLM_NAMES <= ours_tflm and kept_litert <= ours_litert
    assert (TFLM_NAMES | kept_litert) - {"experimental_compress_quantization_zero_points"} <= \
        _names(picolite.Interpreter)


# --- what the wheel and the sdist hold ---------------------------------------------------

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_installed_package_ships_the_c_runtime():
    """The wheel had no C headers or sources: an export compiled only against a clone
    (tests/test_export.py builds one with these alone)."""
    root = picolite.csource.c_root()
    assert (root / "include" / "picolite" / "picolite.h").is_file()
    shipped = {pathlib.Path(p).relative_to(root).as_posix() for p in picolite.c_sources()}
    wanted = {p.relative_to(ROOT / "csrc").as_posix() for p in (ROOT / "csrc").rglob("*.c")
              if "fast" not in p.relative_to(ROOT / "csrc").parts}
    assert shipped == wanted and len(shipped) > 100
    assert {f"-I{root / 'include'}", f"-I{root}", "-ffp-contract=off"} <= set(picolite.c_flags())


def test_the_package_is_typed():
    """No py.typed and no stub for the extension: type checkers saw nothing."""
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_picolite.pyi").read_text()
    tree = ast.parse(stub)
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    public = {n for n in dir(_picolite) if not n.startswith("__")}
    assert public <= names | {"__version__"}, public - names


def test_metadata_has_classifiers():
    from importlib.metadata import metadata

    meta = metadata("picolite")
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("License :: OSI Approved :: Apache") for c in classifiers)


def test_the_sdist_leaves_build_folders_out(tmp_path):
    """`python -m build --sdist` packed build folders (7 MB): the README's build-asan,
    build32, build-arm64 are built in the source tree."""
    import tarfile

    from scikit_build_core.build import build_sdist  # in the test extras: never skipped
    probe = ROOT / "build-sdist-probe"
    probe.mkdir(exist_ok=True)
    (probe / "blob.o").write_bytes(bytes(1 << 20))
    cwd = pathlib.Path.cwd()
    try:
        import os

        os.chdir(ROOT)
        name = build_sdist(str(tmp_path))
    finally:
        os.chdir(cwd)
        (probe / "blob.o").unlink()
        probe.rmdir()
    with tarfile.open(tmp_path / name) as tar:
        names = tar.getnames()
    tops = {n.split("/")[1] for n in names if n.count("/") >= 1}
    assert not any(t.startswith("build") for t in tops), sorted(tops)
    assert {"csrc", "src", "python", "pyproject.toml", "CMakeLists.txt"} <= tops
    assert not any("build-sdist-probe" in n for n in names)
    # Nothing but the repository's own files (the goldens make it large, not build outputs).
    if (ROOT / ".git").exists():
        tracked = set(
            subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.splitlines()
        )
        packed = {n.split("/", 1)[1] for n in names if n.count("/") >= 1}
        files = {n for n in packed if not (ROOT / n).is_dir()} - {"PKG-INFO"}
        assert files <= tracked, sorted(files - tracked)[:10]
