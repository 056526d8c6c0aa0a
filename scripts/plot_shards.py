#!/usr/bin/env python3
"""Plot the sharded counter barrier experiment from wgsync-bench-shards' shards.csv: per-barrier
latency against group count for cooperative groups' grid.sync(), the counter barrier as shipped
(shape "0"), and every shards,replicas shape (the best one drawn bold); medians with min-max bars.
    scripts/plot_shards.py bench/results/<dir>   ->  <dir>/shards.png"""
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

d = sys.argv[1]
lines = open(os.path.join(d, "shards.csv")).read().splitlines()
title = lines[0].lstrip("# ").split(";")[0]
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
curves = {}
for r in rows:
    name = r["what"] if r["shape"] in ("-", "0") else "sharded %s" % r["shape"]
    if r["shape"] == "0":
        name = "wgsync counter (shipped)"
    curves.setdefault(name, []).append((int(r["groups"]), int(r["threads"]), float(r["median_us"]),
                                        float(r["min_us"]), float(r["max_us"])))
best = {}  # group count -> (median, shape) among the sharded shapes
for name, pts in curves.items():
    if name.startswith("sharded"):
        for p in pts:
            if p[0] not in best or p[2] < best[p[0]][0]:
                best[p[0]] = (p[2], name)
fig, ax = plt.subplots(figsize=(8, 5))
for name, pts in sorted(curves.items()):
    pts.sort()
    x, y = [p[0] for p in pts], [p[2] for p in pts]
    err = [[p[2] - p[3] for p in pts], [p[4] - p[2] for p in pts]]
    sharded = name.startswith("sharded")
    ax.errorbar(x, y, yerr=err, marker="o" if not sharded else ".", capsize=2,
                linewidth=2.5 if not sharded else 0.8, alpha=1.0 if not sharded else 0.5, label=name)
bx = sorted(best)
ax.plot(bx, [best[g][0] for g in bx], "k--", linewidth=2, label="best sharded shape per count")
for g in bx:
    ax.annotate(best[g][1].replace("sharded ", ""), (g, best[g][0]), textcoords="offset points",
                xytext=(4, -12), fontsize=7)
ax.set_xscale("log", base=2)
ax.set_xticks(bx)
ax.set_xticklabels(["%dx%d" % (p[0], p[1]) for p in sorted(curves["wgsync counter (shipped)"])])
ax.set_xlabel("groups x threads per group")
ax.set_ylabel("µs per barrier (median of 7 x 2000)")
ax.set_title("Sharded counter barrier (experiment): %s" % title, fontsize=9)
ax.legend(fontsize=7, ncol=2)
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(os.path.join(d, "shards.png"), dpi=120)
print("wrote", os.path.join(d, "shards.png"))
