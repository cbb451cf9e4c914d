"""Export a model for a microcontroller build: ``picolite export-c model.tflite``.

:func:`export_c` writes ``NAME.c`` and ``NAME.h``: the model bytes as a 16-byte-aligned
constant array, a resolver that registers only the kernels this model uses (so a firmware
links nothing else) and the exact arena size as a constant::

    #include "NAME.h"
    static _Alignas(16) uint8_t arena[NAME_ARENA_SIZE];
    static pl_interp_storage record;
    pl_interp_options opt = pl_interp_defaults();
    opt.planner = NAME_PLANNER;
    opt.resolver = NAME_resolver();
    opt.storage = &record;
    pl_interp_create(NAME_model, NAME_model_size, &opt, arena, sizeof arena, &it, &err);

The model is verified on the host while exporting, so a device build may define
``PL_NO_VERIFIER``.
"""

import re
from pathlib import Path
from typing import Dict, List, Tuple, Union

from picolite import _picolite as _c
from picolite._core import required_arena_size
from picolite._errors import UnsupportedOpError
from picolite._model import ModelLike, read_model
from picolite._unified import Interpreter

CUSTOM = 32  # BuiltinOperator CUSTOM: the kernel is found by its name

_PLANNER_CONSTANTS = {"greedy": "PL_PLANNER_GREEDY", "bestfit": "PL_PLANNER_BESTFIT",
                      "linear": "PL_PLANNER_LINEAR", "optimal": "PL_PLANNER_OPTIMAL"}


def c_identifier(text: str) -> str:
    """``text`` as a C identifier prefix: other characters become ``_``, a leading digit
    gets one (the names written are NAME_model, NAME_resolver: never a bare keyword)."""
    name = re.sub(r"\W", "_", text, flags=re.ASCII)
    if not name or name[0].isdigit():
        name = "_" + name
    return name


def model_kernels(content: bytes) -> List[Tuple[int, str, str]]:
    """The (builtin code, operator name, registration function) of every kernel the model
    uses in any subgraph, in first-use order; CUSTOM operators (code 32) by name. Raises UnsupportedOpError
    for an operator picolite has no kernel for."""
    table = {(k[0], k[1] if k[0] == CUSTOM else ""): k for k in _c._builtin_kernels()}
    it = Interpreter(model_content=content)
    it.allocate_tensors()  # verifies the model and resolves every operator
    used: Dict[Tuple[int, str], Tuple[int, str, str]] = {}
    for sg in range(it.num_subgraphs()):  # control flow's bodies and branches too
        with it._subgraph(sg):
            for i in range(it._c.counts[1]):
                node = it._c.node_info(i)
                code = int(node["builtin_code"])
                key = (code, node["op_name"] if code == CUSTOM else "")
                if key not in table:
                    raise UnsupportedOpError(
                        f"subgraph {sg} node {i}: operator {node['op_name']} (builtin code "
                        f"{code}) has no kernel to export")
                used.setdefault(key, table[key])
    return list(used.values())


def _array(data: bytes) -> str:
    rows = []
    for at in range(0, len(data), 16):
        rows.append("    " + ", ".join(f"0x{b:02x}" for b in data[at:at + 16]) + ",")
    return "\n".join(rows)


def _header(name: str, source: str, arena: int, planner: str,
            kernels: List[Tuple[int, str, str]]) -> str:
    guard = f"PL_EXPORT_{name.upper()}_H"
    ops = ", ".join(k[1] for k in kernels)
    return f"""/* {name}.h - {source} for picolite: the model, its kernels, its exact arena size.
** Written by `picolite export-c`; the model was verified on the host. */
#ifndef {guard}
#define {guard}

#include <stddef.h>

#include "picolite/picolite.h"

#ifdef __cplusplus
extern "C" {{
#endif

/* The exact arena for a 16-byte-aligned buffer with {name.upper()}_PLANNER and the
** interpreter's record in the caller's storage (opt.storage = &a static pl_interp_storage;
** without it the record takes PL_INTERP_RECORD_BYTES more): allocation succeeds with this
** many bytes and fails with one byte less. */
#define {name.upper()}_ARENA_SIZE {arena}u
#define {name.upper()}_PLANNER {_PLANNER_CONSTANTS[planner]}

/* The .tflite bytes, aligned to 16. */
extern const unsigned char {name}_model[];
extern const size_t {name}_model_size;

/* Registers only the {len(kernels)} operators this model uses: {ops}. */
const pl_resolver *{name}_resolver(void);

#ifdef __cplusplus
}}
#endif

#endif
"""


def _source(name: str, content: bytes, kernels: List[Tuple[int, str, str]]) -> str:
    decls = "\n".join(f"const pl_registration *{k[2]}(void);" for k in kernels)
    entries = "\n".join(f'    {{{k[0]}, "{k[1]}", {k[2]}}},' if k[0] == CUSTOM else
                        f"    {{{k[0]}, NULL, {k[2]}}}, /* {k[1]} */" for k in kernels)
    return f"""/* {name}.c - written by `picolite export-c`: see {name}.h. */
#include "{name}.h"

{decls}

_Alignas(16) const unsigned char {name}_model[{len(content)}] = {{
{_array(content)}
}};
const size_t {name}_model_size = {len(content)};

static const pl_kernel_entry kernels[] = {{
{entries}
}};
static const pl_kernel_list kernel_list = {{kernels, {len(kernels)}}};
static const pl_resolver resolver = {{pl_list_resolver_find, &kernel_list}};

const pl_resolver *{name}_resolver(void)
{{
    return &resolver;
}}
"""


def export_c(model: ModelLike, out_dir: Union[str, Path] = ".", name: str = "",
             planner: str = "greedy") -> Tuple[Path, Path]:
    """Writes ``NAME.c`` and ``NAME.h`` for ``model`` (a path or bytes) into ``out_dir`` and
    returns their paths. ``name`` defaults to the file's stem (``model`` for bytes); the
    arena constant is the exact size :func:`picolite.required_arena_size` gives for
    ``planner``."""
    if planner not in _PLANNER_CONSTANTS:
        raise ValueError(f"unknown planner {planner!r} (one of {sorted(_PLANNER_CONSTANTS)})")
    content = read_model(model)
    if not name:
        name = Path(model).stem if isinstance(model, (str, Path)) else "model"
    name = c_identifier(name)
    source = Path(model).name if isinstance(model, (str, Path)) else "model bytes"
    kernels = model_kernels(content)
    arena = required_arena_size(content, planner, target="picolite")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    c_path, h_path = out / f"{name}.c", out / f"{name}.h"
    h_path.write_text(_header(name, source, arena, planner, kernels))
    c_path.write_text(_source(name, content, kernels))
    return c_path, h_path
