"""MLPerf Tiny's four benchmark models on Cortex-M: picolite's instruction counts measured
under QEMU (picolite.measure) and estimated from the cost table (picolite.costs), beside
MLPerf Tiny's published latencies of the v0.5 reference submission (TFLM 2.3.1 with
CMSIS-NN, on an STM32L4R5 at 120 MHz).

    python benchmarks/mlperf_tiny_latency.py [--cpu cortex-m4f] [--opt Os] [--markdown]

Needs arm-none-eabi-gcc (newlib) and qemu-system-arm for the measured column.
"""

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "models" / "mlperf_tiny"

# MLPerf Tiny v0.5, closed division, the reference submission (TFLM 2.3.1 built with
# CMSIS-NN, STM32L4R5ZI Nucleo at 120 MHz): latency in ms.
PUBLISHED = {"ad01_int8": ("anomaly detection", 10.1),
             "kws_ref_model": ("keyword spotting", 181.9),
             "vww_96_int8": ("visual wake words", 600.6),
             "pretrainedResnet_quant": ("image classification", 704.0)}


def main(argv):
    import picolite
    from picolite import costs, measure

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpu", default="cortex-m4f", choices=sorted(measure.CPUS))
    p.add_argument("--opt", default="Os", choices=measure.OPTS)
    p.add_argument("--clock", type=float, default=120.0)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    rows = []
    for stem, (task, ms) in PUBLISHED.items():
        a = picolite.analyze(MODELS / f"{stem}.tflite", target="picolite", cpu=args.cpu,
                             opt=args.opt, clock_mhz=args.clock)
        m = measure.measure(MODELS / f"{stem}.tflite", cpu=args.cpu, opt=args.opt,
                            clock_mhz=args.clock, source=str(ROOT))
        est = a.estimate["invoke_instructions"] if a.estimate else 0
        n = m["invoke_instructions"]
        rows.append((task, a.macs, n, est, 100.0 * (est - n) / n, n / (args.clock * 1e3),
                     ms, ms * args.clock * 1e3 / n))
    head = ("| benchmark | MACs | measured instructions | estimated | estimate error | "
            f"ms at CPI 1, {args.clock:g} MHz | MLPerf v0.5 reference (TFLM 2.3.1, CMSIS-NN) "
            "ms | "
            "MLPerf cycles / picolite instructions |")
    print(head)
    print("|" + "---|" * 8)
    for r in rows:
        print(f"| {r[0]} | {r[1] / 1e6:.2f} M | {r[2] / 1e6:.1f} M | {r[3] / 1e6:.1f} M | "
              f"{r[4]:+.1f} % | {r[5]:.1f} | {r[6]:g} | {r[7]:.2f} |")
    print(f"\nCPI range used by picolite.costs: {costs.CPI} ({costs.CPI_SOURCE})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
