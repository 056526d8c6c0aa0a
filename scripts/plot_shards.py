#!/usr/bin/env python3
"""Plot wgsync-bench-shards' shards.csv: per-barrier latency against group count (log axis) for
cooperative groups' grid.sync(), the counter barrier as shipped ("default": one polled count
below the sharding threshold, shards above it), one polled count at every size (shape "0"; from
2026-11-23 18:00 "0/a0" after release adds and "0/a1" after acq_rel adds), and
every shards,replicas shape from the first group ("S,R,1"); medians with min-max bars. The
1024-thread setting (264 x 1024) is drawn as separate markers at its group count.
Older files (before 2026-11-23 17:00) named the published counter "0" and shapes "S,R".
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
new = any(r["shape"] == "default" for r in rows)
NAMES = {"-": "grid.sync()", "default": "wgsync counter (shipped)",
         "0": "one polled count" if new else "wgsync counter (shipped)",
         "0/a0": "one polled count, release adds", "0/a1": "one polled count, acq_rel adds"}
curves, wide = {}, {}
for r in rows:
    name = NAMES.get(r["shape"], "sharded %s" % r["shape"])
    p = (int(r["groups"]), int(r["threads"]), float(r["median_us"]), float(r["min_us"]), float(r["max_us"]))
    (wide if p[1] >= 1024 else curves).setdefault(name, []).append(p)
fig, ax = plt.subplots(figsize=(8, 5))
colors = {}
for name, pts in sorted(curves.items()):
    pts.sort()
    x, y = [p[0] for p in pts], [p[2] for p in pts]
    err = [[p[2] - p[3] for p in pts], [p[4] - p[2] for p in pts]]
    main = not name.startswith("sharded")
    line = ax.errorbar(x, y, yerr=err, marker="o" if main else ".", capsize=2,
                       linewidth=2.5 if main else 0.8, alpha=1.0 if main else 0.5, label=name)
    colors[name] = line[0].get_color()
for name, pts in wide.items():
    for p in pts:
        ax.plot([p[0]], [p[2]], marker="s", color=colors.get(name, "k"), alpha=0.8, markersize=6)
if wide:
    ax.plot([], [], "s", color="gray", label="squares: 264 x 1024")
xs = sorted({p[0] for pts in curves.values() for p in pts})
ax.set_xscale("log", base=2)
ax.set_xticks(xs)
thr = {p[0]: p[1] for pts in curves.values() for p in pts}
ax.set_xticklabels(["%dx%d" % (g, thr[g]) for g in xs], fontsize=7)
ax.set_xlabel("groups x threads per group")
ax.set_ylabel("µs per barrier (median of 7 x 2000)")
ax.set_title("Counter barrier shapes against grid.sync(): %s" % title, fontsize=9)
ax.legend(fontsize=7, ncol=2)
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(os.path.join(d, "shards.png"), dpi=120)
print("wrote", os.path.join(d, "shards.png"))
