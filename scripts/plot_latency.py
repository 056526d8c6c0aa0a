#!/usr/bin/env python3
"""Plot grid-barrier latency against group count, one curve per barrier, from the CUDA bench's
latency.csv (median, with min-max bars); the floor and relaunch costs as horizontal lines.
    scripts/plot_latency.py bench/results/<dir>   ->  <dir>/latency.png"""
import csv, json, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "latency.csv"))))
meta = json.load(open(os.path.join(d, "bench.json")))
fig, ax = plt.subplots(figsize=(8, 5))
curves = {}
for r in rows:
    if r["what"].startswith(("floor", "relaunch", "host loop")):
        continue
    curves.setdefault(r["what"], []).append((int(r["groups"]), int(r["threads"]), float(r["median_us"]),
                                             float(r["min_us"]), float(r["max_us"])))
for name, pts in curves.items():
    pts.sort()
    x = [p[0] for p in pts]
    y = [p[2] for p in pts]
    err = [[p[2] - p[3] for p in pts], [p[4] - p[2] for p in pts]]
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=name)
    for p in pts:
        if name.startswith("cooperative"):
            ax.annotate(f"{p[0]}x{p[1]}", (p[0], p[2]), textcoords="offset points", xytext=(4, -12), fontsize=7)
for r in rows:
    if r["what"].startswith(("floor", "relaunch")):
        ax.axhline(float(r["median_us"]), ls="--", lw=0.8, color="gray")
        ax.text(ax.get_xlim()[0] if False else 140, float(r["median_us"]) * 1.03, r["what"], fontsize=7, color="gray")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("groups (blocks) in the barrier")
ax.set_ylabel("µs per barrier (median of 7 x 2000)")
ax.set_title(f"Grid barrier latency, {meta['device']} ({meta['driver']}), {meta['date'][:10]}", fontsize=9)
ax.legend(fontsize=7)
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
out = os.path.join(d, "latency.png")
fig.savefig(out, dpi=120)
print(out)
