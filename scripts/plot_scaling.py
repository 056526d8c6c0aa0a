#!/usr/bin/env python3
"""The Jacobi scaling plot (issue 12): per-iteration time and scaling efficiency against GPUs,
from the jacobi.csv files of `wgsync-jacobi --bench` (and jacobi-nvshmem.csv beside them).

    scripts/plot_scaling.py OUT.png DIR [DIR ...]

Strong scaling: each grid from 4096^2 up, efficiency t(1) / (n t(n)); weak scaling: 1024^2 per
GPU, efficiency t(1) / t(n). Every form found is drawn; the device line comes from jacobi.md.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402


def load(dirs):
    rows = []
    for d in dirs:
        for name in ("jacobi.csv", "jacobi-nvshmem.csv"):
            p = os.path.join(d, name)
            if os.path.exists(p):
                with open(p) as f:
                    for r in csv.DictReader(f):
                        rows.append({"gpus": int(r["gpus"]), "nx": int(r["nx"]), "ny": int(r["ny"]),
                                     "form": r["form"], "us": float(r["us_per_iter_median"])})
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, dirs = sys.argv[1], sys.argv[2:]
    rows = load(dirs)
    if not rows:
        sys.exit("plot_scaling.py: no jacobi.csv in " + ", ".join(dirs))
    title = ""
    md = os.path.join(dirs[0], "jacobi.md")
    if os.path.exists(md):
        title = open(md).read().split("\n")[2].split(";")[0]
    forms = sorted({r["form"] for r in rows})
    colour = {f: plt.cm.tab10(i % 10) for i, f in enumerate(forms)}
    styles = ["-", "-.", ":", (0, (5, 1))]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
    for form in forms:
        # strong: same grid for every GPU count
        grids = sorted({(r["nx"], r["ny"]) for r in rows if r["form"] == form and r["nx"] >= 4096})
        for gi, g in enumerate(grids):
            pts = sorted((r["gpus"], r["us"]) for r in rows
                         if r["form"] == form and (r["nx"], r["ny"]) == g)
            if len(pts) < 2 or pts[0][0] != 1:
                continue
            n = [p[0] for p in pts]
            ls = styles[gi % len(styles)]
            ax[0].plot(n, [p[1] for p in pts], marker="o", color=colour[form], linestyle=ls,
                       label=f"{form} {g[0]}²")
            ax[1].plot(n, [100 * pts[0][1] / (p[0] * p[1]) for p in pts], marker="o",
                       color=colour[form], linestyle=ls, label=f"{form} {g[0]}² strong")
        weak = sorted((r["gpus"], r["us"]) for r in rows
                      if r["form"] == form and r["nx"] == 1024 and r["ny"] == 1024 * r["gpus"])
        if len(weak) >= 2 and weak[0][0] == 1:
            ax[1].plot([p[0] for p in weak], [100 * weak[0][1] / p[1] for p in weak], marker="s",
                       color=colour[form], linestyle="--", label=f"{form} 1024² per GPU weak")
    ax[0].set(yscale="log", xlabel="GPUs", ylabel="µs per iteration",
              title="Jacobi, strong scaling")
    ax[1].set(xlabel="GPUs", ylabel="efficiency (%)", ylim=(0, 110),
              title="scaling efficiency")
    for a in ax:
        n = sorted({r["gpus"] for r in rows})
        a.set_xscale("log", base=2)
        a.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        a.set_xticks(n)
        a.set_xticklabels([str(x) for x in n])
        a.grid(True, alpha=0.3)
    ax[0].legend(fontsize=7)
    ax[1].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
