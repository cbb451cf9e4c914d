"""Runs the C unit tests (ctest) so the README's one test command checks everything: a
Release build and a sanitized one, each built and run as a background job (background.py)."""

import os
import pathlib
import shutil
from xml.etree import ElementTree

import pytest

import background
from background import Step

ROOT = pathlib.Path(__file__).resolve().parents[1]
C_TESTS = sorted(p.stem for p in (ROOT / "tests" / "c").glob("test_*.c"))


def _release_plan(folder):
    # What a fresh clone's `cmake -DCMAKE_BUILD_TYPE=Release` builds (tests and -Werror are
    # on for a top-level project): -O3 finds warnings -O2 does not (gcc 12's
    # maybe-uninitialized in the PL_NO_MESSAGES variants)
    return [Step(["cmake", "-S", ROOT, "-B", folder, "-DCMAKE_BUILD_TYPE=Release"]),
            Step(["cmake", "--build", folder, "-j2"]),
            Step(["ctest", "-j2", "--output-junit", "ctest.xml"], cwd=folder)]


def _sanitized_plan(folder):
    # -g1: line numbers in the reports at a third less build time than -g
    env = dict(os.environ, UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               ASAN_OPTIONS="detect_leaks=0")
    return [Step(["cmake", "-S", ROOT, "-B", folder, "-DPL_BUILD_TESTS=ON",
                  "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1",
                  "-DPL_WERROR=ON", "-DPL_SANITIZE=address,undefined"]),
            Step(["cmake", "--build", folder, "-j2"]),
            Step(["ctest", "--output-on-failure", "-E", "core_has_no"], cwd=folder, env=env)]


background.register("ctest-release", _release_plan)
background.register("ctest-sanitized", _sanitized_plan)


@pytest.fixture(scope="session")
def ctest_build():
    """The Release build's folder and each ctest test's junit record, by name."""
    if shutil.which("cmake") is None:
        pytest.fail("cmake is required to build the C unit tests")
    outcome = background.result("ctest-release")
    built = outcome.done[:2]
    assert len(built) == 2 and all(r.returncode == 0 for r in built), outcome.failure()
    report = pathlib.Path(outcome.folder) / "ctest.xml"
    assert report.exists(), outcome.failure()
    cases = {case.get("name"): case for case in ElementTree.parse(report).iter("testcase")}
    return pathlib.Path(outcome.folder), cases


def run_ctest(ctest_build, name):
    _, cases = ctest_build
    assert name in cases, f"ctest ran no test named {name}"
    case = cases[name]
    output = case.findtext("system-out") or ""
    assert case.get("status") == "run" and case.find("failure") is None, output


@pytest.mark.background("ctest-release")
@pytest.mark.parametrize("name", C_TESTS)
def test_c_unit(ctest_build, name):
    run_ctest(ctest_build, name)


@pytest.mark.background("ctest-release")
def test_a_fresh_clone_builds_in_release_with_warnings_as_errors(ctest_build):
    """The fixture's build is that of `cmake -DCMAKE_BUILD_TYPE=Release` on a fresh clone,
    firmware option variants included; it succeeded, or the fixture failed already."""
    build, _ = ctest_build
    cache = (build / "CMakeCache.txt").read_text()
    assert "CMAKE_BUILD_TYPE:STRING=Release" in cache
    assert "PL_WERROR:BOOL=ON" in cache and "PL_BUILD_TESTS:BOOL=ON" in cache
    assert any(build.glob("tests/c/**/pl_options_trimmed.dir/**/flexbuffer.c.o"))


@pytest.mark.background("ctest-release")
def test_core_has_no_malloc_or_stdio(ctest_build):
    run_ctest(ctest_build, "core_has_no_malloc_or_stdio")


@pytest.mark.background("ctest-release")
def test_readme_c_example_runs_the_demo_model(ctest_build):
    run_ctest(ctest_build, "readme_c_example")


@pytest.mark.background("ctest-sanitized")
def test_c_units_pass_under_address_and_undefined_sanitizers():
    """The whole C suite again with ASan + UBSan: out-of-bounds reads and undefined
    behaviour fail here even when the results happen to be right."""
    outcome = background.result("ctest-sanitized")
    assert len(outcome.done) == 3 and outcome.ok, outcome.failure()


@pytest.mark.background("ctest-release")
def test_fuzz_regressions_replay_cleanly(ctest_build):
    run_ctest(ctest_build, "fuzz_regressions")
