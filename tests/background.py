"""Long jobs outside Python (C builds, ctest, qemu runs), started as soon as the session's
tests are known, so that they use the machine's other core while the Python tests run.

A test module registers a job by name (`register`) and marks the tests that check it with
`@pytest.mark.background(name)`. When the session selects such a test, conftest starts the
job and moves the marked tests to the end of the session, where `result` waits for the job.
A job nobody selected never starts. The jobs run at a lower priority than the Python tests,
and they are stopped when the session ends.
"""

import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field

_FACTORIES = {}
_JOBS = {}


@dataclass
class Step:
    argv: list
    cwd: object = None
    env: dict = None
    timeout: float = 1800
    keep_going: bool = False  # the next steps run even if this one fails


@dataclass
class Outcome:
    """What a job did: its folder, and each step's CompletedProcess until the job ended (a
    step that timed out has returncode None and its partial output)."""
    folder: str
    done: list = field(default_factory=list)

    @property
    def ok(self):
        return all(r.returncode == 0 for r in self.done)

    def failure(self):
        """The failed step's command and output's tail, for an assertion message."""
        bad = next((r for r in self.done if r.returncode != 0), None)
        if bad is None:
            return f"no step failed: {len(self.done)} ran"
        return f"{' '.join(map(str, bad.args))} (exit {bad.returncode}):\n" \
               f"{bad.stdout[-4000:]}\n{bad.stderr[-4000:]}"


class Job:
    """Steps made by plan(folder) from a fresh temporary folder, run one after another in a
    thread; the first failing step ends the job unless it says keep_going."""

    def __init__(self, name, plan):
        self.name = name
        self.folder = tempfile.mkdtemp(prefix=f"picolite-{name}-")
        self.steps = plan(self.folder)
        self.outcome = Outcome(self.folder)
        self._process = None
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self):
        self._thread.start()

    def _run(self):
        for step in self.steps:
            if self._stopped:
                return
            try:
                self._process = subprocess.Popen(
                    [str(a) for a in step.argv], cwd=step.cwd, env=step.env, text=True,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except OSError as e:  # a missing program
                self.outcome.done.append(subprocess.CompletedProcess(step.argv, 127, "", str(e)))
                return
            _lower_priority(self._process.pid)
            try:
                out, err = self._process.communicate(timeout=step.timeout)
                code = self._process.returncode
            except subprocess.TimeoutExpired:
                self._process.kill()
                out, err = self._process.communicate()
                code = None
            self.outcome.done.append(subprocess.CompletedProcess(step.argv, code, out, err))
            if code != 0 and not step.keep_going:
                return

    def wait(self):
        self._thread.join()
        return self.outcome

    def stop(self):
        self._stopped = True
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
        self._thread.join(timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)


def _lower_priority(pid):
    """Set from here, not in the child before exec (preexec_fn is unsafe with threads); what
    the step starts from then on inherits it."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 5)
    except OSError:  # gone already, or not permitted: the job runs at the usual priority
        pass


def register(name, plan):
    """plan(folder) -> the list of Steps of job name; called only if a test selects it."""
    _FACTORIES[name] = plan


def start(name):
    if name not in _JOBS:
        _JOBS[name] = Job(name, _FACTORIES[name])
        _JOBS[name].start()


def result(name):
    """The Outcome of job name, waiting for it (started on demand if conftest did not)."""
    start(name)
    return _JOBS[name].wait()


def stop_all():
    for job in _JOBS.values():
        job.stop()
    _JOBS.clear()
