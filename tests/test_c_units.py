"""Runs the C unit tests (ctest) so the README's one test command checks everything."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
C_TESTS = sorted(p.stem for p in (ROOT / "tests" / "c").glob("test_*.c"))


@pytest.fixture(scope="session")
def ctest_build(tmp_path_factory):
    if shutil.which("cmake") is None:
        pytest.fail("cmake is required to build the C unit tests")
    build = tmp_path_factory.mktemp("ctest-build")
    # What a fresh clone's `cmake -DCMAKE_BUILD_TYPE=Release` builds (tests and -Werror are
    # on for a top-level project): -O3 finds warnings -O2 does not (gcc 12's
    # maybe-uninitialized in the PL_NO_MESSAGES variants)
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    result = subprocess.run(["cmake", "--build", str(build), "-j2"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return build


def run_ctest(build, name):
    result = subprocess.run(["ctest", "--output-on-failure", "-R", f"^{name}$"], cwd=build,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 tests passed" in result.stdout or "100% tests passed" in result.stdout


@pytest.mark.parametrize("name", C_TESTS)
def test_c_unit(ctest_build, name):
    run_ctest(ctest_build, name)


def test_a_fresh_clone_builds_in_release_with_warnings_as_errors(ctest_build):
    """The fixture's build is that of `cmake -DCMAKE_BUILD_TYPE=Release` on a fresh clone,
    firmware option variants included; it succeeded, or the fixture failed already."""
    cache = (ctest_build / "CMakeCache.txt").read_text()
    assert "CMAKE_BUILD_TYPE:STRING=Release" in cache
    assert "PL_WERROR:BOOL=ON" in cache and "PL_BUILD_TESTS:BOOL=ON" in cache
    assert any(ctest_build.glob("tests/c/**/pl_options_trimmed.dir/**/flexbuffer.c.o"))


def test_core_has_no_malloc_or_stdio(ctest_build):
    run_ctest(ctest_build, "core_has_no_malloc_or_stdio")


def test_readme_c_example_runs_the_demo_model(ctest_build):
    run_ctest(ctest_build, "readme_c_example")


def test_c_units_pass_under_address_and_undefined_sanitizers(tmp_path_factory):
    """The whole C suite again with ASan + UBSan: out-of-bounds reads and undefined
    behaviour fail here even when the results happen to be right."""
    build = tmp_path_factory.mktemp("ctest-asan")
    configure = subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), "-DPL_BUILD_TESTS=ON",
         "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DPL_WERROR=ON",
         "-DPL_SANITIZE=address,undefined"], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    result = subprocess.run(["cmake", "--build", str(build), "-j2"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    env = dict(os.environ, UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               ASAN_OPTIONS="detect_leaks=0")
    result = subprocess.run(["ctest", "--output-on-failure", "-E", "core_has_no"], cwd=build,
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_fuzz_regressions_replay_cleanly(ctest_build):
    run_ctest(ctest_build, "fuzz_regressions")
