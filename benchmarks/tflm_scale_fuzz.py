"""The survey on rescaled copies of the zoo's one-operator models: other scales, other ties.

    python benchmarks/tflm_scale_fuzz.py [--variants 4] [--only SUBSTR] [--target tflm-x86-64]

A model's scales decide where its rescales land near rounding ties, so the zoo's own scales
can hide a difference in a multiplier's last bits or in a path only some scales take. Each
one-operator int8/int16 model of tests/models gets `--variants` copies (written with the
schema's object API that the tflite-micro wheel ships) whose activation scales are multiplied
by random factors in [1/4, 4] (bias scales follow input x weight scale, so TFLM's bias check
still holds), and benchmarks/tflm_survey.py compares each copy with the wheel, layer by layer.
"""

import argparse
import pathlib
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tflm_survey  # noqa: E402


def rescaled(data, rng):
    """The model bytes with every quantized tensor's scales multiplied by a random factor."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    m = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    for sg in m.subgraphs:
        factor = {}
        for i, t in enumerate(sg.tensors):
            q = t.quantization
            if q is None or q.scale is None or len(q.scale) == 0:
                continue
            factor[i] = float(np.exp(rng.uniform(np.log(0.25), np.log(4.0))))
        for op in sg.operators:  # a bias (int32/int64) keeps input scale x weight scale
            ins = list(op.inputs) if op.inputs is not None else []
            if len(ins) >= 3 and ins[2] >= 0 and sg.tensors[ins[2]].type in (2, 4) and \
                    ins[0] in factor and ins[1] in factor:
                factor[ins[2]] = factor[ins[0]] * factor[ins[1]]
        for i, f in factor.items():
            q = sg.tensors[i].quantization
            q.scale = [float(np.float32(s * f)) for s in q.scale]
    b = flatbuffers.Builder(len(data) + 1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", type=int, default=4)
    ap.add_argument("--only", help="only models whose path contains this")
    ap.add_argument("--target", default="tflm-x86-64")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sys.path.insert(0, str(tflm_survey.ROOT / "tests"))
    from conftest import zoo_manifest

    rng = np.random.default_rng(args.seed)
    out = pathlib.Path(tempfile.mkdtemp(prefix="tflm_scale_fuzz_"))
    paths = []
    for e in zoo_manifest():
        if e.get("family") != "single_op" or e.get("type") not in ("int8", "int16x8"):
            continue
        if args.only and args.only not in e["file"]:
            continue
        data = (tflm_survey.ZOO / e["file"]).read_bytes()
        for k in range(args.variants):
            p = out / f"{pathlib.Path(e['file']).stem}__v{k}.tflite"
            p.write_bytes(rescaled(data, rng))
            paths.append(str(p))
    records = tflm_survey.run_all(paths, args.target)
    tflm_survey.summarize(records)


if __name__ == "__main__":
    main()
