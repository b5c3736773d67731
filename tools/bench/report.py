#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench, on the host: read DIR/bench.csv (written by tools/bench/guest.sh)
# and print srdma and rdma_rxe side by side, then the target lines and the
# kernel memory per QP (tests/many_qps); write
# DIR/compare.csv and the plots DIR/bandwidth.png and DIR/latency.png.
# With --wire: read DIR/wire/wire.csv (tools/bench/wire.sh), print the
# wire's table and targets, write DIR/wire-compare.csv.
#
#   tools/bench/report.py results/bench
#   tools/bench/report.py --wire results/bench
#
# Runs with Debian's python3 (python3-matplotlib, from tools/deps.sh).

import csv
import math
import os
import statistics
import sys

DRIVERS = ("srdma", "rxe")
NAMES = {"srdma": "srdma", "rxe": "rdma_rxe"}
BW_TESTS = ("ib_write_bw", "ib_send_bw", "ib_read_bw")
LAT_TESTS = ("ib_send_lat", "ib_write_lat", "ib_read_lat")
QP_MEMORY = "qp_memory"
QP_MEMORY_USED = "qp_memory_used"


def human(size):
    """64 -> 64B, 65536 -> 64KiB, 1048576 -> 1MiB"""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return f"{size}B"


def load(path):
    """{(driver, test, size): (value or None, status)}, sizes per test"""
    runs, sizes = {}, {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            size = int(row["size"])
            value = float(row["value"]) if row["status"] == "ok" else None
            runs[(row["driver"], row["test"], size)] = (value, row["status"])
            sizes.setdefault(row["test"], [])
            if size not in sizes[row["test"]]:
                sizes[row["test"]].append(size)
    return runs, sizes


def cell(run):
    if run is None:
        return "-"
    value, status = run
    return f"{value:.2f}" if value is not None else status


def value(runs, driver, test, size):
    return runs.get((driver, test, size), (None, "-"))[0]


def ratio(runs, test, size):
    s, r = value(runs, "srdma", test, size), value(runs, "rxe", test, size)
    return s / r if s is not None and r else None


ROW = "{:<13} {:>7} {:>10} {:>10} {:>10}"


def table(runs, sizes, out):
    rows = []
    print(ROW.format("test", "size", "srdma", "rdma_rxe", "srdma/rxe"))
    for tests, unit in ((BW_TESTS, "MB/s"), (LAT_TESTS, "us")):
        for test in tests:
            for size in sizes.get(test, []):
                r = ratio(runs, test, size)
                cells = [cell(runs.get((d, test, size))) for d in DRIVERS]
                rtext = f"{r:.2f}" if r is not None else "-"
                print(ROW.format(test, human(size), *cells, rtext))
                rows.append([test, size, unit] + cells + [rtext])
    print("(bandwidth: perftest's BW average in MB/s, MB = 2^20 bytes;"
          " latency: t_typical in us; failed/skipped/-: no figure)")
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "unit", "srdma", "rxe", "srdma/rxe"])
        w.writerows(rows)


def verdict(ok):
    return "no figure" if ok is None else ("met" if ok else "NOT met")


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def targets(runs):
    print()
    for test in ("ib_write_bw", "ib_send_bw"):
        s, r = value(runs, "srdma", test, 65536), ratio(runs, test, 65536)
        ok = None if r is None else r >= 2
        print(f"{test} 64KiB: srdma {fmt(s)} MB/s = {fmt(r)} x rdma_rxe"
              f" (target >= 2x): {verdict(ok)}")
    s = value(runs, "srdma", "ib_send_lat", 2)
    r = value(runs, "rxe", "ib_send_lat", 2)
    ok = None if s is None or r is None else s <= r
    print(f"ib_send_lat 2B: srdma {fmt(s)} us vs rdma_rxe {fmt(r)} us"
          f" (target <=): {verdict(ok)}")
    s = value(runs, "srdma", "ib_write_bw", 65536)
    m = value(runs, "vm", "memcpy", 65536)
    r = s / m if s is not None and m else None
    print(f"ib_write_bw 64KiB: srdma {fmt(s)} MB/s = {fmt(r)} x the VM's"
          f" memcpy of 64 KiB, {fmt(m)} MB/s (target >= 0.8x):"
          f" {verdict(None if r is None else r >= 0.8)}")


def qp_memory(runs, sizes):
    """tests/many_qps: kernel bytes per QP with perftest's default caps,
    and whether every QP of the run moved verified data"""
    for size in sizes.get(QP_MEMORY, []):
        status = [runs.get((d, QP_MEMORY, size), (None, "-"))[1]
                  for d in DRIVERS]
        print(f"\n{QP_MEMORY}: {size} QPs (tests/many_qps, ib_write_bw's"
              f" default caps), every QP's data verified: srdma {status[0]},"
              f" rdma_rxe {status[1]}")
        for row, what in ((QP_MEMORY, "created"),
                          (QP_MEMORY_USED, "connected, its write done")):
            sv, rv = (value(runs, d, row, size) for d in DRIVERS)
            ok = None if sv is None or rv is None else sv <= rv
            print(f"memory per QP ({what}): srdma {fmt(sv)} vs rdma_rxe"
                  f" {fmt(rv)} bytes (target <=): {verdict(ok)}")


def plot(runs, sizes, tests, ylabel, title, path, logy):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    styles = {"srdma": ("-", "o"), "rxe": ("--", "s")}
    any_pts = False
    for i, test in enumerate(tests):
        for driver in DRIVERS:
            pts = [(s, value(runs, driver, test, s))
                   for s in sizes.get(test, [])]
            pts = [(s, v) for s, v in pts if v is not None]
            any_pts = any_pts or bool(pts)
            line, marker = styles[driver]
            label = f"{NAMES[driver]} {test}" + ("" if pts else " (no result)")
            ax.plot([s for s, _ in pts], [v for _, v in pts], line,
                    marker=marker, color=f"C{i}", label=label)
    all_sizes = sorted({s for t in tests for s in sizes.get(t, [])})
    ax.set_xscale("log", base=2)
    if all_sizes:
        ax.set_xticks(all_sizes)
        ax.set_xticklabels([human(s) for s in all_sizes], rotation=45)
        ax.set_xlim(all_sizes[0] / math.sqrt(2), all_sizes[-1] * math.sqrt(2))
    # a log axis needs a figure: BENCH_TESTS may have left out the tests
    if logy and any_pts:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel("message size")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def spread(values):
    """median (min-max)"""
    if not values:
        return "-"
    return (f"{statistics.median(values):.2f}"
            f" ({min(values):.2f}-{max(values):.2f})")


def wire_load(path):
    """{(driver, test, size): {pair: value}} of the runs with a figure"""
    figs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["driver"], row["test"], int(row["size"]))
            per_pair = figs.setdefault(key, {})
            if row["status"] == "ok":
                per_pair[int(row["pair"])] = float(row["value"])
    return figs


def wire_cpu(path):
    """{(driver, test, size): ([a_pct...], [b_pct...])} over the pairs: how
    busy each VM kept its host core (CSVs before those columns: {})"""
    cpu = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok" or not row.get("b_pct"):
                continue
            key = (row["driver"], row["test"], int(row["size"]))
            a, b = cpu.setdefault(key, ([], []))
            a.append(int(row["a_pct"]))
            b.append(int(row["b_pct"]))
    return cpu


def pair_ratios(a, b):
    """a[p] / b[p] for each pair p that has both"""
    return [a[p] / b[p] for p in sorted(a) if p in b and b[p]]


WROW = "{:<15} {:>7} {:>22} {:>22} {:>22}"
SCALE = "ib_write_bw_qps"   # ib_write_bw 64 KiB over N QPs (perftest -q)


def wire(out):
    """The wire table: medians with min and max over the pairs, and the
    median of the per-pair ratios; then issue 22's wire targets."""
    path = os.path.join(out, "wire", "wire.csv")
    if not os.path.exists(path):
        sys.exit(f"report: no {path}: the wire runs did not happen"
                 f" (see {out}/wire/)")
    figs = wire_load(path)
    tcp = figs.get(("tcp", "iperf3", 0), {})
    pairs = len({p for v in figs.values() for p in v})
    info = os.path.join(out, "wire", "wire-info.txt")
    if os.path.exists(info):
        with open(info) as f:
            print(f.read().rstrip())
    print(f"WIRE: two VMs (one vCPU each) on the rig's virtio link (its kind above), eth0"
          f" MTU 9000; perftest client on host a, server on host b;"
          f" {pairs} pairs, srdma and rdma_rxe interleaved; median"
          f" (min-max)")
    print(WROW.format("test", "size", "srdma", "rdma_rxe",
                      "srdma/rxe per pair"))
    rows = []
    tests = [(t, s) for (d, t, s) in figs if d == "srdma"]
    order = BW_TESTS + LAT_TESTS + (SCALE,)
    for test, size in sorted(tests, key=lambda k: (order.index(k[0]), k[1])):
        s, r = figs[("srdma", test, size)], figs.get(("rxe", test, size), {})
        ratios = pair_ratios(s, r)
        cells = [spread(list(s.values())), spread(list(r.values())),
                 spread(ratios)]
        label = f"{size} QPs" if test == SCALE else human(size)
        print(WROW.format(test, label, *cells))
        rows.append([test, size, "us" if test in LAT_TESTS else "MB/s"]
                    + cells)
    print(WROW.format("iperf3 TCP", "", spread(list(tcp.values())), "", ""))
    rows.append(["iperf3", 0, "MB/s", spread(list(tcp.values())), "", ""])
    with open(os.path.join(out, "wire-compare.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "unit", "srdma", "rxe",
                    "srdma/rxe per pair"])
        w.writerows(rows)
    cpu = wire_cpu(path)
    if cpu:
        print("\nhost core kept busy by each VM's QEMU over the runs (setup"
              " included), median over the pairs (a: perftest's client, b:"
              " its server; the busier one bounds the figure):")
        for (d, t, s), (a, b) in sorted(
                cpu.items(), key=lambda k: (k[0][1], k[0][2], k[0][0])):
            label = f"{s} QPs" if t == SCALE else human(s)
            print(f"  {t:<15} {label:>7} {d:<6} a {statistics.median(a):>4.0f} %"
                  f"  b {statistics.median(b):>4.0f} %")

    def median_ratio(key_a, b):
        ratios = pair_ratios(figs.get(key_a, {}), b)
        return statistics.median(ratios) if ratios else None

    def target(label, r, goal, met):
        print(f"wire {label}: {fmt(r)} x {goal}:"
              f" {verdict(None if r is None else met(r))}")

    print()
    for test in BW_TESTS:
        target(f"{test} 64KiB",
               median_ratio(("srdma", test, 65536),
                            figs.get(("rxe", test, 65536), {})),
               "rdma_rxe (target >= 2x)", lambda r: r >= 2)
    target("ib_write_bw 64KiB",
           median_ratio(("srdma", "ib_write_bw", 65536), tcp),
           "iperf3 TCP (target >= 0.6x)", lambda r: r >= 0.6)
    for test in ("ib_send_lat", "ib_write_lat"):
        target(f"{test} 2B",
               median_ratio(("srdma", test, 2), figs.get(("rxe", test, 2), {})),
               "rdma_rxe (target <= 0.7x)", lambda r: r <= 0.7)
    scale = {s: v for (d, t, s), v in figs.items()
             if d == "srdma" and t == SCALE}
    if scale:
        most = max(scale)
        best = max((statistics.median(v.values()) for v in scale.values()
                    if v), default=None)
        r = (statistics.median(scale[most].values()) / best
             if scale[most] and best else None)
        target(f"{SCALE} {most} QPs", r, "the best QP count (target >= 0.9x)",
               lambda r: r >= 0.9)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--wire":
        wire(sys.argv[2])
        return
    if len(sys.argv) != 2:
        sys.exit("usage: report.py [--wire] RESULTS_DIR")
    out = sys.argv[1]
    path = os.path.join(out, "bench.csv")
    if not os.path.exists(path):
        sys.exit(f"report: no {path}: the bench did not run (see {out}/a/)")
    info = os.path.join(out, "bench-info.txt")
    if os.path.exists(info):
        with open(info) as f:
            print(f.read().rstrip())
        print("LOOPBACK: one device on veth0 (MTU 9000), perftest server and"
              " client on it; not the wire's figures\n")
    runs, sizes = load(path)
    table(runs, sizes, os.path.join(out, "compare.csv"))
    targets(runs)
    qp_memory(runs, sizes)
    where = "loopback on veth0, MTU 9000"
    plot(runs, sizes, BW_TESTS, "MB/s (2^20 bytes/s)",
         f"perftest RC bandwidth, srdma vs rdma_rxe ({where})",
         os.path.join(out, "bandwidth.png"), False)
    plot(runs, sizes, LAT_TESTS, "typical latency (us)",
         f"perftest RC latency, srdma vs rdma_rxe ({where})",
         os.path.join(out, "latency.png"), True)
    print(f"\nplots: {out}/bandwidth.png {out}/latency.png;"
          f" table: {out}/compare.csv")


if __name__ == "__main__":
    main()
