"""picolite.supported_ops() and `picolite --ops`: the operators the builtin resolver runs.

That the listing is exactly what the resolver resolves (every entry resolves under its name,
and the builtin count equals the number of builtin codes that resolve) is tests/c/
test_registry.c; here: the Python and CLI surfaces, and the zoo's operators all listed.
"""

import json

import pytest

import picolite
from conftest import zoo_manifest, require
from picolite.__main__ import main


def test_names_are_unique_strings():
    ops = picolite.supported_ops()
    assert all(isinstance(o, str) and o for o in ops)
    assert len(set(ops)) == len(ops)


def test_builtins_then_customs():
    """Builtins (BuiltinOperator names) come first, then custom names, none a builtin's; each
    custom operator is one some zoo model runs."""
    sch = require("ai_edge_litert.schema_py_generated")
    schema_names = {n for n in vars(sch.BuiltinOperator) if n.isupper()}
    ops = picolite.supported_ops()
    k = 0
    while k < len(ops) and ops[k] in schema_names:
        k += 1
    customs = ops[k:]
    assert k > 0 and not set(customs) & schema_names
    used = {op for e in zoo_manifest() for op in e["ops"]}
    assert set(customs) <= used, sorted(set(customs) - used)


def test_every_zoo_operator_is_listed():
    ops = set(picolite.supported_ops())
    used = {op for e in zoo_manifest() for op in e["ops"]}
    assert used and used <= ops, sorted(used - ops)


def test_cli_prints_one_name_a_line(capsys):
    assert main(["--ops"]) == 0
    assert capsys.readouterr().out.split() == picolite.supported_ops()


def test_cli_prints_a_json_list(capsys):
    assert main(["--ops", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == picolite.supported_ops()
