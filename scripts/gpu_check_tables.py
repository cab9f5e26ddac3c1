#!/usr/bin/env python3
"""The summary tables of scripts/gpu-check.sh, read from its logs folder (docs/cuda.md,
"Checking a GPU").

    gpu_check_tables.py tables LOGS       print the tables (stdout)
    gpu_check_tables.py check-run FILE    the profile-run verdict on an `apportion run --json`
                                          report: exit 0 when nothing failed over and a GPU
                                          without a share says why, 1 otherwise; one line
    gpu_check_tables.py balance LOGS      step balance's table: each case's cuda,cpu against
                                          the better device alone; exit 1 when a target missed
    gpu_check_tables.py stalls LOGS       step ncu's table: the stall reasons sampled in the
                                          staged bollinger and macd kernels
    gpu_check_tables.py catalog-detail LOGS  step bench-catalog's verdict line (one line)
    gpu_check_tables.py ab LOGS           step bench-ab's verdict line: simple/staged per
                                          kernel and size, and per scored sweep (one line)

Standard library only: the GPU machine has python3 and nothing more. Every file is optional:
a figure whose file is missing or unreadable prints "-" and the table says which step gives
it, so that a run cut short by the budget still prints what it has.
"""
import csv
import json
import math
import os
import sys

# Bounds the figures are set against (H100 SXM5 80GB, the lent machine): PCIe 5.0 x16 is
# 32 GT/s x 16 lanes with 128b/130b coding, 63.0 GB/s each way; HBM3 peak 3.35 TB/s. The
# bench counts a device-to-device copy's bytes read plus written, as a peak figure does.
PCIE5_X16_GBS = 32e9 * 16 * 128 / 130 / 8 / 1e9
HBM3_GBS = 3350.0


def load(path):
    """The JSON in path, or None when it is missing or not JSON (a step cut short)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(v, spec=".1f"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return format(v, spec)


def pct(v, bound):
    if v is None or not bound or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{100.0 * v / bound:.1f}%"


def table(title, header, rows, missing):
    """Prints a table; with no rows, one "-" row and where the figures would come from."""
    print(f"\n== {title}")
    widths = [len(h) for h in header]
    rows = rows or [["-"] * len(header)]
    for r in rows:
        widths = [max(w, len(str(c))) for w, c in zip(widths, r)]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if missing:
        print(f"   ({missing})")


def short(g):
    """A GPU's label up to its first space ("cuda:0")."""
    return str(g.get("label", "?")).split(" ")[0]


def gpus_of(bench):
    g = (bench or {}).get("gpu") or {}
    return [x for x in g.get("gpus") or [] if isinstance(x, dict)]


def bandwidth(logs):
    bench = load(os.path.join(logs, "bench.json"))
    rows = []
    for g in gpus_of(bench):
        bw = g.get("bandwidth") or {}
        rows.append([g.get("label", "?"), "h2d", fmt(bw.get("h2d_gbps")), "PCIe 5 x16 63.0",
                     pct(bw.get("h2d_gbps"), PCIE5_X16_GBS)])
        rows.append(["", "d2h", fmt(bw.get("d2h_gbps")), "PCIe 5 x16 63.0",
                     pct(bw.get("d2h_gbps"), PCIE5_X16_GBS)])
        rows.append(["", "duplex", fmt(bw.get("duplex_gbps")), "2 x 63.0",
                     pct(bw.get("duplex_gbps"), 2 * PCIE5_X16_GBS)])
        rows.append(["", "d2d copy", fmt(bw.get("d2d_gbps")), "HBM3 3350",
                     pct(bw.get("d2d_gbps"), HBM3_GBS)])
    why = None
    if not rows:
        why = "from step bench (bench.json: gpu.gpus[].bandwidth)"
        if bench and (bench.get("gpu") or {}).get("skipped"):
            why += f"; its GPU section was skipped: {bench['gpu']['skipped']}"
    table("bandwidth (GB/s, median of apo_cuda_bandwidth_measure)",
          ["gpu", "path", "GB/s", "bound GB/s", "% of bound"], rows, why)


def kernel_shapes(logs):
    """{kernel: (inputs, outputs)} from `apportion kernels --json` (step gpu-catalog)."""
    k = load(os.path.join(logs, "catalog", "kernels.json")) or {}
    return {x["name"]: (len(x.get("inputs", [])), len(x.get("outputs", [])))
            for x in k.get("kernels", []) if isinstance(x, dict) and "name" in x}


def device_resident(logs):
    rows = []
    for g in gpus_of(load(os.path.join(logs, "bench.json"))):
        for r in g.get("device_resident") or []:
            if r.get("skipped"):
                rows.append([r.get("kernel"), r.get("samples"), short(g), "-", "-", "-", "-",
                             "skipped: " + r["skipped"]])
                continue
            gbs = r.get("gb_s")
            rows.append([r.get("kernel"), r.get("samples"), short(g),
                         fmt(r.get("time_ms_median"), ".3f"), fmt(gbs, ".1f"),
                         fmt(r.get("pct_d2d"), ".1f"), pct(gbs, HBM3_GBS), r.get("wrong")])
    shapes = kernel_shapes(logs)
    others = sorted(set(shapes) - {"bollinger", "macd"})
    note = "from step bench (bench.json); 32 B/sample (8 read, 24 written)"
    if others:
        note += (f"; the other {len(others)} catalog kernels: - (apo-bench-kernels' GPU section "
                 "has device-resident arrays for bollinger and macd only; step gpu-catalog gives "
                 "their host-resident figures below)")
    table("device-resident throughput per kernel (arrays in GPU memory)",
          ["kernel", "samples", "gpu", "ms(med)", "GB/s", "%d2d", "%HBM3", "#wrong"], rows, note)


def gpu_devices(report):
    return [d for d in (report or {}).get("devices") or [] if d.get("kind") == "cuda"]


def host_resident(logs):
    rows = []
    for g in gpus_of(load(os.path.join(logs, "bench.json"))):
        for r in g.get("host_resident") or []:
            if r.get("skipped"):
                continue
            ms = r.get("time_ms_median")
            melem = r["samples"] / ms / 1e3 if ms and r.get("samples") else None
            rows.append([f"{r.get('kernel')} (bench, {short(g)})", r.get("samples"),
                         fmt(ms, ".3f"), fmt(melem), fmt(r.get("gb_s")),
                         fmt(r.get("pct_bound")) + "% of transfer bound",
                         fmt(r.get("overlap"), ".2f"), r.get("wrong")])
    shapes = kernel_shapes(logs)
    cat = os.path.join(logs, "catalog")
    verdicts = catalog_verdicts(logs)
    for k in sorted(shapes):
        rep = load(os.path.join(cat, f"{k}-cuda.json"))
        if rep is None:
            continue
        nin, nout = shapes[k]
        n = rep.get("elements") or 0
        ms = rep.get("compute_ms") or 0
        melem = n / ms / 1e3 if ms > 0 else None
        gbs = 8.0 * (nin + nout) * n / ms / 1e6 if ms > 0 else None
        # The transfers of both directions overlap: the busier direction bounds the time.
        one_way = 8.0 * max(nin, nout) * n / ms / 1e6 if ms > 0 else None
        ov = [d.get("overlap") for d in gpu_devices(rep) if d.get("overlap") is not None]
        rows.append([k, n, fmt(ms, ".3f"), fmt(melem), fmt(gbs),
                     pct(one_way, PCIE5_X16_GBS) + " of PCIe (busier way)",
                     fmt(min(ov), ".2f") if ov else "-", verdicts.get(k, "-")])
    table("host-resident throughput per kernel (host arrays, GPU alone, end to end)",
          ["kernel", "samples", "ms", "Melem/s", "GB/s", "against bound", "overlap", "#wrong/bits"],
          rows,
          "bench rows from step bench; the catalog rows from step gpu-catalog (one call each, "
          "compute_ms of `apportion run --devices cuda`, 8 B per input and output value); "
          "overlap: the bench's for its rows, the report's (lowest GPU) for the others, "
          "defined below")


def overlap(logs):
    """The pipeline's overlap per GPU, as each source defines it: the report's (docs/api.md)
    is (host_copy + h2d + kernel + d2h) over the time at least one of them ran, 1 when none
    overlapped, up to 4; the bench's is (h2d + kernel + d2h) / wall of its last call."""
    rows = []
    for g in gpus_of(load(os.path.join(logs, "bench.json"))):
        for r in g.get("host_resident") or []:
            if not r.get("skipped"):
                rows.append([f"bench {r.get('kernel')}", r.get("samples"), short(g), "-", "-", "-",
                             "-", "-", r.get("chunks", "-"), fmt(r.get("overlap"), ".2f")])
    for w in ("cuda", "cuda-cpu"):
        rep = load(os.path.join(logs, f"run-{w}.json"))
        for d in gpu_devices(rep):
            rows.append([f"run on {w}", d.get("elements"), str(d.get("label", "?")).split(" ")[0],
                         fmt(d.get("wall_ms"), ".1f"), fmt(d.get("host_copy_ms"), ".1f"),
                         fmt(d.get("h2d_ms"), ".1f"),
                         fmt(d.get("kernel_ms"), ".1f"), fmt(d.get("d2h_ms"), ".1f"),
                         d.get("chunks", "-"), fmt(d.get("overlap"), ".2f")])
    table("overlap of the copies and the kernels on each GPU",
          ["call", "elements", "gpu", "wall_ms", "host_copy_ms", "h2d_ms", "kernel_ms", "d2h_ms",
           "chunks", "overlap"], rows,
          "bench rows from step bench: (h2d + kernel + d2h) / wall of the last timed call; run "
          "rows from step profile-run (bollinger; run-cuda.json, run-cuda-cpu.json): the "
          "report's, (host_copy + h2d + kernel + d2h) over the time any of them ran, 1 serial, "
          "up to 4")


def catalog_verdicts(logs):
    """{kernel or sweep/score name: "equal" / "DIFFER ..."} from catalog/verdicts.txt."""
    out = {}
    try:
        with open(os.path.join(logs, "catalog", "verdicts.txt"), encoding="utf-8") as f:
            for line in f:
                name, _, rest = line.strip().partition(" ")
                if name:
                    out[name] = rest
    except OSError:
        pass
    return out


def balance(logs):
    runs = {w: load(os.path.join(logs, f"run-{w}.json")) for w in ("cuda-cpu", "cuda", "cpu")}
    rows = []
    for w, rep in runs.items():
        if rep is None:
            rows.append([w, "-", "-", "-", "-", "-"])
            continue
        shares = " ".join(f"{d.get('kind')}={fmt(d.get('share'), '.3f')}"
                          for d in rep.get("devices") or [])
        rows.append([w, fmt(rep.get("makespan_ms"), ".2f"),
                     fmt(rep.get("balance_efficiency"), ".3f"), rep.get("ratio_source", "-"),
                     rep.get("failovers", "-"), shares])
    both = (runs["cuda-cpu"] or {}).get("makespan_ms")
    alone = [(runs[w] or {}).get("makespan_ms") for w in ("cuda", "cpu")]
    alone = [a for a in alone if a]
    gain = None
    if both and alone:
        gain = (f"cuda,cpu is {min(alone) / both:.2f} x as fast as the faster device alone "
                "(makespans; above 1: the split gains)")
    table("CPU+GPU against each alone (bollinger, one series, step profile-run)",
          ["devices", "makespan_ms", "balance_eff", "ratios", "failovers", "shares"], rows,
          gain or "from step profile-run (run-cuda-cpu.json, run-cuda.json, run-cpu.json)")
    rows = []
    for g in gpus_of(load(os.path.join(logs, "bench.json"))):
        for r in g.get("gpu_and_cpu") or []:
            if not r.get("skipped"):
                rows.append([r.get("kernel"), r.get("samples"),
                             fmt(r.get("alone_makespan_ms_median"), ".3f"),
                             fmt(r.get("mixed_makespan_ms_median"), ".3f"),
                             fmt(r.get("ratio"), ".3f"),
                             fmt(r.get("cpu_elements_share"), ".3f"), r.get("ratio_source"),
                             r.get("wrong")])
    table("cuda,cpu against the GPU alone (apo-bench-kernels, online refinement)",
          ["kernel", "samples", "alone_ms", "gpu+cpu_ms", "ratio", "cpu_share", "ratios", "#wrong"],
          rows, "from step bench (bench.json: gpu.gpus[].gpu_and_cpu)")


def verdicts(logs):
    rows = []
    st = load(os.path.join(logs, "selftest.json"))
    if st is None:
        rows.append(["selftest", "-", "step selftest (selftest.json)"])
    else:
        rows.append(["selftest", st.get("verdict", "-"),
                     f"passed {st.get('passed')} failed {st.get('failed')} warned "
                     f"{st.get('warned')} skipped {st.get('skipped')}"])
    for name in ("bench", "bench-catalog", "bench-simple", "bench-staged", "bench-split"):
        b = load(os.path.join(logs, f"{name}.json"))
        if b is None:
            if name == "bench":
                rows.append([name, "-", "step bench (bench.json)"])
            continue
        wrong = b.get("total_wrong")
        rows.append([name, "equal" if wrong == 0 else "DIFFER", f"total #wrong {wrong}"])
    cat = catalog_verdicts(logs)
    if not cat:
        rows.append(["catalog, sweeps, scores", "-", "step gpu-catalog (catalog/verdicts.txt)"])
    else:
        # A run that failed or ran out of time compared nothing: it is not a difference.
        differ = sorted(k for k, v in cat.items() if v.startswith("DIFFER"))
        failed = sorted(k for k, v in cat.items() if not v.startswith(("equal", "DIFFER")))
        verdict = "DIFFER" if differ else "FAILED" if failed else "equal"
        rows.append(["catalog, sweeps, scores", verdict,
                     f"{len(cat) - len(differ) - len(failed)} of {len(cat)} bitwise equal"
                     + (f"; differ: {' '.join(differ)}" if differ else "")
                     + (f"; did not run to the end: {' '.join(failed)}" if failed else "")])
    table("CPU == GPU", ["check", "verdict", "detail"], rows, None)


def variant_rows(med):
    """Rows of a simple-against-staged table from {(kernel, size, gpu): {variant: median ms}}:
    both medians and simple/staged."""
    return [[k, n, gpu, fmt(m.get("simple"), ".3f"), fmt(m.get("staged"), ".3f"),
             fmt(m["simple"] / m["staged"], ".2f") if m.get("simple") and m.get("staged") else "-"]
            for (k, n, gpu), m in sorted(med.items())]


def variants(logs):
    runs = {v: load(os.path.join(logs, f"bench-{v}.json"))
            for v in ("simple", "staged", "split")}
    if not any(runs.values()):
        return
    med = {}
    for v, b in runs.items():
        for g in gpus_of(b):
            for r in g.get("device_resident") or []:
                key = (str(r.get("kernel")), r.get("samples") or 0, short(g))
                med.setdefault(key, {})[v] = r.get("time_ms_median")
    # split (bollinger in pairs of warps) ran bollinger alone: its column, and split/staged,
    # on bollinger's rows.
    rows = [row + [fmt(med[key].get("split"), ".3f"),
                   fmt(med[key]["split"] / med[key]["staged"], ".2f")
                   if med[key].get("split") and med[key].get("staged") else "-"]
            for key, row in zip(sorted(med), variant_rows(med))]
    table("kernel variants, device-resident (step bench-variants)",
          ["kernel", "samples", "gpu", "simple_ms", "staged_ms", "simple/staged", "split_ms",
           "split/staged"], rows,
          "median ms; simple/staged below 1: the simple kernels are faster; split/staged below 1: "
          "bollinger's pairs of warps are faster")


def ab(logs, summary=False):
    """The staged kernels against the simple ones (step bench-ab): each kernel and size
    device-resident, and each scored sweep, under APPORTION_CUDA_KERNELS=simple and =staged,
    medians side by side."""
    runs = {v: load(os.path.join(logs, f"bench-ab-{v}.json")) for v in ("simple", "staged")}
    if not any(runs.values()):
        if summary:
            print("no bench-ab-*.json")
        return
    med, gpus = {}, []
    for v, b in runs.items():
        for g in ((b or {}).get("gpu_catalog") or {}).get("gpus") or []:
            gpus.append(g)
            for r in g.get("device_resident") or []:
                if not r.get("skipped"):
                    key = (str(r.get("kernel")), str(r.get("samples") or 0), short(g))
                    med.setdefault(key, {})[v] = r.get("time_ms_median")
            for r in g.get("scored_sweeps") or []:
                if not r.get("skipped"):
                    key = (f"{r.get('kernel')} {r.get('rule')}",
                           f"{r.get('sets')} sets x {r.get('series')} x {r.get('bars')}", short(g))
                    med.setdefault(key, {})[v] = r.get("time_ms_median")
    rows = variant_rows(med)
    if summary:
        print(simulated_note(gpus) + "; ".join(f"{r[0]} {r[1]}: {r[5]}x" for r in rows)[:400])
        return
    table("staged against simple where they differ, device-resident rows and scored sweeps "
          "(step bench-ab)",
          ["kernel", "samples", "gpu", "simple_ms", "staged_ms", "simple/staged"], rows,
          simulated_note(gpus) + "median ms; above 1: the staged kernels (the cut, a lone set's "
          "fold in registers) are faster")


def check_run(path):
    """The profile-run verdict: the call ran whole (no failover, no failed device), and a GPU
    that got no share says why (the configuration guard may rightly keep a memory-bound
    pageable call on the cpu: docs/scheduling.md, "Configurations and the guard")."""
    rep = load(path)
    if rep is None:
        print(f"no report in {os.path.basename(path)}")
        return 1
    gpus = gpu_devices(rep)
    failed = [d.get("label", d.get("id")) for d in rep.get("devices") or [] if d.get("failed")]
    unexplained = [d.get("id") for d in gpus
                   if not (d.get("elements") or 0) and not d.get("no_share_reason")]
    fo = rep.get("failovers") or 0
    detail = (f"GPU share {sum(d.get('share') or 0 for d in gpus):.3f} "
              f"({sum(d.get('elements') or 0 for d in gpus)} elements), ratios "
              f"{rep.get('ratio_source')}, makespan {fmt(rep.get('makespan_ms'), '.1f')} ms, "
              f"balance {fmt(rep.get('balance_efficiency'), '.3f')}, failovers {fo}")
    reasons = [d.get("no_share_reason") for d in gpus if d.get("no_share_reason")]
    if reasons:
        detail += f"; no share: {reasons[0]}"
    if failed:
        detail += f", failed: {', '.join(map(str, failed))}"
    ok = fo == 0 and not failed and not unexplained
    print(("" if ok else "a failover, a failed device or a GPU left out without a reason: ")
          + detail)
    return 0 if ok else 1


def balance_targets(logs):
    """Step balance: each configuration against the best device alone (issue 50's targets:
    cuda,cpu within 5% of the better of cuda and cpu on bollinger and macd; the rsi sweep
    within 10%), each figure the median of the step's runs (balance/1/, balance/2/, ...; an
    older log's reports straight in balance/ are one run). Prints the table; returns 0 when
    every target held."""
    folder = os.path.join(logs, "balance")
    runs = sorted(d for d in (os.listdir(folder) if os.path.isdir(folder) else [])
                  if os.path.isdir(os.path.join(folder, d)))
    runs = [os.path.join(folder, d) for d in runs] or [folder]
    rows, bad = [], []
    names = set()
    for run in runs:  # no folder at all where the step did not run
        if os.path.isdir(run):
            names.update(n for n in os.listdir(run) if n.endswith(".json"))
    cases = sorted({n.rsplit("-", 1)[0] for n in names})
    for case in cases:
        ms, spread = {}, {}
        ran = []  # what the pair's runs gave work to: "cpu", "cuda" or "split"
        for dev in ("cuda+cpu", "cuda", "cpu"):
            reps = [load(os.path.join(run, f"{case}-{dev}.json")) or {} for run in runs]
            # compute_ms: every piece of a sweep (makespan_ms is its first piece's).
            got = sorted(g for g in (rep.get("compute_ms") or rep.get("makespan_ms") for rep in reps) if g)
            ms[dev] = got[len(got) // 2] if len(got) % 2 else (
                (got[len(got) // 2 - 1] + got[len(got) // 2]) / 2 if got else None)
            spread[dev] = f"{got[0]:.1f}-{got[-1]:.1f}" if got else "-"
            if dev == "cuda+cpu":
                for rep in reps:
                    worked = [d.get("kind", d.get("id", "?")) for d in rep.get("devices", []) if d.get("share", 0) > 0]
                    ran.append("split" if len(worked) > 1 else (worked[0] if worked else "-"))
        alone = [ms[d] for d in ("cuda", "cpu") if ms[d]]
        best = min((d for d in ("cuda", "cpu") if ms[d]), key=lambda d: ms[d], default=None)
        ratio = ms["cuda+cpu"] / min(alone) if ms["cuda+cpu"] and alone else None
        limit = 1.10 if case.startswith("sweep") else 1.05
        ok = ratio is not None and ratio <= limit
        if not ok:
            bad.append(case)
        ran_text = ",".join(f"{k} x{ran.count(k)}" for k in sorted(set(ran)))
        rows.append([case, fmt(ms["cuda+cpu"], ".2f"), fmt(ms["cuda"], ".2f"), fmt(ms["cpu"], ".2f"),
                     fmt(ratio, ".3f"), f"<= {limit:.2f}", "ok" if ok else "MISSED", ran_text,
                     f"{spread['cuda+cpu']} / {spread[best] if best else '-'}"])
    table(f"cuda,cpu against the best device alone (step balance; compute_ms, median of "
          f"{len(runs)} one-process run{'s' if len(runs) > 1 else ''} each)",
          ["case", "cuda,cpu", "cuda", "cpu", "pair/best", "target", "verdict", "pair ran",
           "range pair / best"], rows,
          "from step balance (balance/*/*.json); pair ran: the devices the pair's runs gave work "
          "to (cpu or cuda alone, or a split); a miss where the pair ran the best device alone "
          "and the ranges overlap is the one-process runs' spread, not the balancer's choice")
    print(f"within target: {len(rows) - len(bad)} of {len(rows)}")
    if bad:
        print(f"missed: {' '.join(bad)}")
    return 1 if bad or not rows else 0


# Figures written before any GPU ran the code, quoted from docs/cuda.md: printed as
# "predicted" beside what was measured, never as a measurement.
# Scored sweeps ("Scored sweeps on a GPU", the table of bounds): a launch scores about
# min(threads, scratch cap) x 8.8 M set-bars/s, threads = series x sets of a launch, below the
# HBM bound.
SWEEP_PREDICTION = {"rsi": (6400, 140e9), "macd": (1300, 60e9)}
# Staged kernels ("Staged kernels", predicted fractions): what should bind each kernel.
STALL_PREDICTION = {
    "bollinger": "DRAM-bound: 65-80% of peak, FP64 issue ~0.3 ms under 1.1 ms of DRAM time "
                 "(measured since: 35.5% of the copy)",
    "macd": "latency-bound: ~1.4 warps per SM, ~6 KiB in flight per SM (measured since: "
            "13.4% of the copy)",
    "bollinger-split": "the chain warp's step without its root (85 instructions against 123), "
                       "the finish warps' roots beside it; 6 pairs per SM (shared memory)",
}


def catalog_gpus(logs):
    b = load(os.path.join(logs, "bench-catalog.json")) or {}
    g = b.get("gpu_catalog") or {}
    return b, g, [x for x in g.get("gpus") or [] if isinstance(x, dict)]


def simulated_note(gpus):
    """Figures of simulated GPUs (docs/cuda.md, "A simulated CUDA runtime") prove the logic,
    not a speed: said wherever they are printed."""
    if any("simulated" in str(g.get("label", "")) for g in gpus):
        return "simulated GPUs, figures prove logic, not speed: "
    return ""


def catalog_resident(logs):
    _, cat, gpus = catalog_gpus(logs)
    rows = []
    for g in gpus:
        for r in g.get("device_resident") or []:
            if r.get("skipped"):
                rows.append([r.get("kernel"), r.get("samples"), short(g), "-", "-", "-", "-",
                             "-", "skipped: " + r["skipped"]])
                continue
            gbs = r.get("gb_s")
            rows.append([r.get("kernel"), r.get("samples"), short(g),
                         f"{r.get('inputs')}+{r.get('outputs')}",
                         fmt(r.get("time_ms_median"), ".3f"), fmt(gbs, ".1f"),
                         fmt(r.get("pct_d2d"), ".1f"), pct(gbs, HBM3_GBS), r.get("wrong")])
    note = (simulated_note(gpus) + "from step bench-catalog (bench-catalog.json): "
            "apo-bench-kernels --gpu-catalog; "
            "GB/s counts 8 B per input and output value and sample")
    if cat.get("no_time"):
        note += "; no time for: " + ", ".join(cat["no_time"])
    if cat.get("skipped"):
        note += "; the section was skipped: " + str(cat["skipped"])
    table("device-resident catalog (every kernel of the library's list, arrays in GPU memory)",
          ["kernel", "samples", "gpu", "in+out", "ms(med)", "GB/s", "%d2d", "%HBM3", "#wrong"],
          rows, note)


def scored_sweeps(logs):
    _, _, gpus = catalog_gpus(logs)
    rows = []
    for g in gpus:
        for r in g.get("scored_sweeps") or []:
            name = f"{r.get('kernel')} {r.get('rule')}"
            shape = f"{r.get('series')} x {r.get('bars')}"
            if r.get("skipped"):
                rows.append([name, "-", shape, short(g), "-", "-", "-", "-",
                             "skipped: " + r["skipped"]])
                continue
            cap, hbm = SWEEP_PREDICTION.get(r.get("kernel"), (None, None))
            predicted = None
            if cap and r.get("series") and r.get("sets"):
                predicted = min(min(r["series"] * r["sets"], cap) * 8.8e6, hbm)
            rows.append([name, r.get("sets"), shape, short(g),
                         fmt(r.get("first_makespan_ms"), ".1f"),
                         fmt(r.get("time_ms_median"), ".3f"),
                         fmt((r.get("set_bars_per_s") or 0) / 1e9, ".3g"),
                         fmt(predicted / 1e9 if predicted else None, ".1f") + " (predicted)",
                         r.get("wrong")])
    table("scored sweeps on the GPU alone, host-resident (step bench-catalog)",
          ["sweep", "sets", "series x bars", "gpu", "first_ms", "ms(med)", "G set-bars/s",
           "G set-bars/s predicted", "#wrong"], rows,
          simulated_note(gpus) + "predicted: docs/cuda.md, \"Scored sweeps on a GPU\", "
          "min(series x sets, scratch cap) "
          "x 8.8 M set-bars/s below the HBM bound, written before a GPU ran them; a label until "
          "measured")


def ncu_rows(path):
    """The launches of one `ncu --csv --page raw` file: a list of {column: value}. The first
    row names the columns, the second may give their units."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f if ln.startswith('"')]
    except OSError:
        return []
    table_rows = list(csv.reader(lines))
    if not table_rows:
        return []
    header, out = table_rows[0], []
    for r in table_rows[1:]:
        if len(r) != len(header) or r[0] in ("", "ID") or not r[0].strip().isdigit():
            continue
        out.append(dict(zip(header, r)))
    return out


def number(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


# The sampled stall reasons (SourceCounters' PC sampling: warps seen stalled, per reason);
# without them, WarpStateStats' average warps stalled per issued instruction, per reason.
STALL_SOURCES = (("smsp__pcsamp_warps_issue_stalled_", ""),
                 ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"))


def stall_reasons(launch):
    for prefix, suffix in STALL_SOURCES:
        found = {c[len(prefix):len(c) - len(suffix)]: number(v) for c, v in launch.items()
                 if c.startswith(prefix) and c.endswith(suffix) and "not_issued" not in c
                 and number(v) is not None}
        if found:
            return found
    return {}


def stall_table(logs, print_it=True):
    rows = []
    for k in ("bollinger", "macd", "bollinger-split"):
        launches = ncu_rows(os.path.join(logs, f"ncu-stalls-{k}.csv"))
        for launch in launches:
            samples = stall_reasons(launch)
            total = sum(samples.values())
            top = sorted(samples.items(), key=lambda kv: -kv[1])[:4]
            name = str(launch.get("Kernel Name", k)).split("(")[0]
            rows.append([name, launch.get("ID"),
                         fmt(number(launch.get("gpu__time_duration.sum")), ".0f"),
                         fmt(number(launch.get(
                             "dram__throughput.avg.pct_of_peak_sustained_elapsed")), ".1f"),
                         fmt(total, ".0f"),
                         ", ".join(f"{r} {100 * v / total:.0f}%" for r, v in top if total) or "-",
                         STALL_PREDICTION[k] + " (predicted)"])
    if print_it:
        table("stall sampling of the staged kernels (step ncu: WarpStateStats, SourceCounters)",
              ["kernel", "launch", "ns", "dram%", "samples", "top stall reasons (share of samples)",
               "docs/cuda.md"], rows,
              "from step ncu (ncu-stalls-*.csv, ncu-stalls-*.ncu-rep); predicted: written before "
              "any GPU ran the staged kernels, a label until these samples settle it")
    return rows


def catalog_detail(logs):
    b, cat, gpus = catalog_gpus(logs)
    if not b:
        print("no bench-catalog.json")
        return 1
    if cat.get("skipped"):
        print(f"skipped: {cat['skipped']}")
        return 0
    timed = skipped = 0
    reasons = []
    for g in gpus:
        for r in g.get("device_resident") or []:
            if r.get("skipped"):
                skipped += 1
                reasons.append(f"{r.get('kernel')} ({r['skipped'].split(' (')[0][:40]})")
            else:
                timed += 1
    reasons = list(dict.fromkeys(reasons))
    sweeps = [f"{r.get('kernel')} on {short(g)} {fmt((r.get('set_bars_per_s') or 0) / 1e9, '.3g')} "
              "G set-bars/s" for g in gpus for r in g.get("scored_sweeps") or []
              if not r.get("skipped")]
    line = (simulated_note(gpus) + f"{timed} rows timed, total #wrong {b.get('total_wrong')}, {skipped} skipped"
            + (f": {', '.join(reasons)}" if reasons else "")
            + (f"; sweeps: {', '.join(sweeps)}" if sweeps else ""))
    if cat.get("no_time"):
        line += f"; no time for: {', '.join(cat['no_time'])}"
    print(line[:600])
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "tables":
        for part in (stall_table, bandwidth, device_resident, catalog_resident, scored_sweeps,
                     host_resident, overlap, balance, balance_targets, verdicts, variants, ab):
            part(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "check-run":
        return check_run(argv[2])
    if len(argv) == 3 and argv[1] == "balance":
        return balance_targets(argv[2])
    if len(argv) == 3 and argv[1] == "stalls":
        rows = stall_table(argv[2])
        print(f"summary: {len(rows)} launches sampled"
              + "".join(f"; {r[0]}: {r[5]}" for r in rows[:2]))
        return 0
    if len(argv) == 3 and argv[1] == "catalog-detail":
        return catalog_detail(argv[2])
    if len(argv) == 3 and argv[1] == "ab":
        ab(argv[2], summary=True)
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
