#!/usr/bin/env python3
"""The performance guard: wgsync's grid barrier and launch against grid.sync() and a cooperative
launch, measured side by side in one call (scripts/gpu.sh guard runs the three benchmarks into
one folder, then this), and against the committed baseline for the same GPU.

  scripts/perf_guard.py RESULTS [--baseline-dir bench/guard] [--write-baseline]

RESULTS holds skew.csv (wgsync-bench-skew), shards.csv (wgsync-bench-shards), launch.csv
(wgsync-bench-launch) and stencil.csv (wgsync-bench-stencil). Fails (exit 1) when, for the
default shape:
  - under spread arrivals, a round costs more than grid.sync()'s at any group count and spread
    (skew.csv, over_grid_sync_us > 0, plain and with the stop test);
  - back to back, a barrier costs more than grid.sync()'s at any shape (shards.csv);
  - a launch (discovery + one barrier, back to back or synchronous) costs more than a
    cooperative launch with one grid.sync() (launch.csv);
  - a user's kernel ported from grid.sync() (a bandwidth-bound stencil) takes longer than with
    grid.sync() at any size (stencil.csv: the device library's registers cost it occupancy);
  - any of those medians is more than 5% above the baseline for this GPU (bench/guard/NAME.csv,
    NAME from the GPU's name), where there is one.
Every row is printed, with what it was compared with; --write-baseline writes this run's medians
as the baseline for this GPU (commit it with the results it came from).
"""
import csv
import os
import re
import sys

TOLERANCE = 1.05


def read(path):
    """The header line (device, date) and the rows of a benchmark CSV."""
    with open(path) as f:
        head = f.readline().strip()
        return head.lstrip("# "), list(csv.DictReader(f))


def gpu_name(header):
    """The GPU's name from a benchmark header: '<date>, <GPU name>, CUDA ...'."""
    parts = [p.strip() for p in header.split(",")]
    return parts[1] if len(parts) > 1 else "unknown"


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def checks(folder):
    """(key, median_us, reference_us or None, what the reference is) for every guarded row."""
    out = []
    head, rows = read(os.path.join(folder, "skew.csv"))
    for r in rows:
        if r["form"] != "default":
            continue
        key = "skew %s x %s, D %s us, stop %s" % (r["groups"], r["threads"], r["max_delay_us"],
                                                  r["stop_test"])
        ref = [g for g in rows if g["form"] == "grid.sync()" and g["stop_test"] == r["stop_test"]
               and g["groups"] == r["groups"] and g["threads"] == r["threads"]
               and g["max_delay_us"] == r["max_delay_us"]]
        out.append((key, float(r["median_us_per_round"]),
                    float(ref[0]["median_us_per_round"]) if ref else None, "grid.sync()"))
    _, rows = read(os.path.join(folder, "shards.csv"))
    for r in rows:
        if not r["what"].startswith("wgsync counter") or r["shape"] != "default":
            continue
        key = "back to back %s x %s" % (r["groups"], r["threads"])
        ref = [g for g in rows if "grid.sync" in g["what"] and g["groups"] == r["groups"]
               and g["threads"] == r["threads"]]
        out.append((key, float(r["median_us"]), float(ref[0]["median_us"]) if ref else None,
                    "grid.sync()"))
    _, rows = read(os.path.join(folder, "launch.csv"))
    by = {r["what"]: r for r in rows}
    pairs = [("wgsync async launches (discovery + one barrier) back to back",
              "cooperative launches back to back"),
             ("wgsync launch (discovery + one barrier), synchronous",
              "cooperative launch (one grid.sync) + wait")]
    for mine, theirs in pairs:
        if mine in by:
            r = by[mine]
            key = "launch %s x %s: %s" % (r["groups"], r["threads"], mine)
            out.append((key, float(r["median_us"]),
                        float(by[theirs]["median_us"]) if theirs in by else None, theirs))
    _, rows = read(os.path.join(folder, "stencil.csv"))
    for r in rows:
        if r["form"] != "wgsync":
            continue
        key = "stencil %s points x %s steps" % (r["points"], r["steps"])
        ref = [g for g in rows if g["form"] == "grid.sync()" and g["points"] == r["points"]
               and g["steps"] == r["steps"]]
        out.append((key, 1e3 * float(r["median_ms"]),
                    1e3 * float(ref[0]["median_ms"]) if ref else None, "grid.sync()"))
    return head, out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    folder = argv[1]
    base_dir = "bench/guard"
    if "--baseline-dir" in argv:
        base_dir = argv[argv.index("--baseline-dir") + 1]
    try:
        head, rows = checks(folder)
    except (OSError, KeyError, ValueError) as e:
        print("perf_guard: cannot read the results in %s: %s" % (folder, e))
        return 2
    name = gpu_name(head)
    base_path = os.path.join(base_dir, slug(name) + ".csv")
    base = {}
    if os.path.exists(base_path):
        with open(base_path) as f:
            base = {r["key"]: float(r["median_us"]) for r in csv.DictReader(
                l for l in f if not l.startswith("#"))}
    print("performance guard: %s (baseline: %s)" % (head, base_path if base else "none for this GPU"))
    failed = 0
    for key, mine, ref, what in rows:
        verdict = []
        if ref is None:
            verdict.append("no %s row to compare" % what)
            failed += 1
        elif mine > ref:
            verdict.append("SLOWER than %s (%.3f us, %.3fx)" % (what, ref, mine / ref))
            failed += 1
        if key in base and mine > base[key] * TOLERANCE:
            verdict.append("more than 5%% above the baseline (%.3f us, +%.1f%%)" %
                           (base[key], 100 * (mine / base[key] - 1)))
            failed += 1
        line = "  %-90s %9.3f us" % (key, mine)
        if ref is not None:
            line += "  vs %9.3f" % ref
        print(line + ("  FAIL: " + "; ".join(verdict) if verdict else "  ok"))
    if "--write-baseline" in argv:
        os.makedirs(base_dir, exist_ok=True)
        with open(base_path, "w") as f:
            f.write("# %s\n" % head)
            w = csv.writer(f)
            w.writerow(["key", "median_us"])
            for key, mine, _, _ in rows:
                w.writerow([key, "%.4f" % mine])
        print("baseline written: %s" % base_path)
    print("%s: %d of %d rows failed" % ("FAIL" if failed else "PASS", failed, len(rows)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
