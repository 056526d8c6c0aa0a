#!/usr/bin/env python3
"""Seed 003 Table 4 and Figure 11 from `scripts/table4-run.sh` output.

    scripts/table4.py DIR [DIR ...]

For each DIR (one device and backend): table4.csv (every app, input and form: median, min, max,
steps, groups), table4.md (speedups and the portability cost, with geometric means), speedup.png
and fig11.png (portability slowdown against the specialised run time).
"""
import csv, glob, json, math, os, sys

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

def load(d):
    rows = []
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        j = json.load(open(f))
        if j.get("command") != "app":
            continue
        rows.append(j)
    return rows

def main(d):
    runs = load(d)
    if not runs:
        print(f"{d}: no app results", file=sys.stderr)
        return
    dev = runs[0]["device"]
    forms = []
    for r in runs:
        for f in r["forms"]:
            if f["form"] not in forms:
                forms.append(f["form"])
    with open(os.path.join(d, "table4.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["app", "graph", "nodes", "edges", "form", "median_ms", "min_ms", "max_ms", "runs",
                    "steps", "launches", "groups", "verified"])
        for r in runs:
            for f in r["forms"]:
                w.writerow([r["app"], r["graph"]["name"], r["graph"]["nodes"], r["graph"]["edges"], f["form"],
                            f"{f['median_ms']:.4f}", f"{f['min_ms']:.4f}", f"{f['max_ms']:.4f}", r["runs"],
                            f["steps"], f["launches"], f["groups"], f["verified"]])
    med = lambda r, form: next((f["median_ms"] for f in r["forms"] if f["form"] == form), None)
    spread = lambda r, form: next((f"{f['min_ms']:.3g}–{f['max_ms']:.3g}" for f in r["forms"] if f["form"] == form), "")
    steps = lambda r: next((f["steps"] for f in r["forms"] if f["form"] == "persistent"), "")
    cols = [("multi / persistent", "multi", "persistent"), ("fixed / persistent (portability cost⁻¹)", None, None)]
    has_cuda = "gridsync" in forms
    lines = [f"# Table 4 on {dev['name']} ({dev['backend']}, driver {dev['driver_version']}), {runs[0]['date'][:10]}", "",
             f"{runs[0]['runs']} runs after {runs[0]['warmup']} warm-up, forms interleaved; median ms (min–max). "
             "Every run was checked against the CPU reference.", ""]
    hdr = ["app", "graph", "steps", "multi ms", "persistent ms", "fixed ms"]
    if has_cuda:
        hdr += ["grid.sync ms", "CUDA graph ms"]
    hdr += ["speedup (multi / persistent)", "portability slowdown (persistent / fixed)"]
    if has_cuda:
        hdr += ["vs grid.sync", "vs CUDA graph"]
    lines += ["| " + " | ".join(hdr) + " |", "|" + " --- |" * len(hdr)]
    sp, port, vs_gs, vs_gr, fig = [], [], [], [], []
    for r in runs:
        m, p, fx = med(r, "multi"), med(r, "persistent"), med(r, "fixed")
        row = [r["app"], r["graph"]["name"], str(steps(r))]
        for form in ["multi", "persistent", "fixed"] + (["gridsync", "graph"] if has_cuda else []):
            v = med(r, form)
            row.append(f"{v:.3f} ({spread(r, form)})" if v is not None else "")
        s = m / p if m and p else None
        c = p / fx if p and fx else None
        row += [f"{s:.2f}×" if s else "", f"{c:.3f}×" if c else ""]
        if s: sp.append(s)
        if c:
            port.append(c)
            fig.append((fx, c, f"{r['app']} {r['graph']['name']}"))
        if has_cuda:
            g, gr = med(r, "gridsync"), med(r, "graph")
            a = g / p if g and p else None
            b = gr / p if gr and p else None
            row += [f"{a:.2f}×" if a else "", f"{b:.2f}×" if b else ""]
            if a: vs_gs.append(a)
            if b: vs_gr.append(b)
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"- geometric mean speedup of the persistent kernel over the host loop: **{geomean(sp):.2f}×** "
              f"(min {min(sp):.2f}×, max {max(sp):.2f}×)" if sp else "",
              f"- geometric mean portability slowdown (discovery vs hard-coded occupancy): **{geomean(port):.3f}×** "
              f"(min {min(port):.3f}×, max {max(port):.3f}×)" if port else ""]
    if has_cuda:
        lines += [f"- persistent (wgsync) against grid.sync(): geometric mean {geomean(vs_gs):.2f}× (>1: wgsync faster)",
                  f"- persistent (wgsync) against the CUDA graph WHILE loop: geometric mean {geomean(vs_gr):.2f}× (>1: wgsync faster)"]
    if has_cuda:
        lines += [f"- inputs where the persistent form is slower: "
                  f"{sum(1 for x in sp if x < 1)} of {len(sp)} against the host loop, "
                  f"{sum(1 for x in vs_gs if x < 1)} of {len(vs_gs)} against grid.sync(), "
                  f"{sum(1 for x in vs_gr if x < 1)} of {len(vs_gr)} against the CUDA graph"]
    # where each form's time goes: time per loop trip, and how many groups did the work
    order = ["multi", "persistent", "fixed"] + (["gridsync", "graph"] if has_cuda else [])
    lines += ["", "Per step (µs per loop trip: the form's median time over its trip count, launch included) "
              "and the groups each form ran:", "",
              "| app | graph | steps | " + " | ".join(f"{f} µs/step" for f in order) + " | "
              + " | ".join(f"{f} groups" for f in order) + " |",
              "|" + " --- |" * (3 + 2 * len(order))]
    for r in runs:
        fm = {f["form"]: f for f in r["forms"]}
        row = [r["app"], r["graph"]["name"], str(steps(r))]
        row += [f"{1e3 * fm[f]['median_ms'] / fm[f]['steps']:.1f}" if f in fm and fm[f]["steps"] else ""
                for f in order]
        row += [str(fm[f]["groups"]) if f in fm else "" for f in order]
        lines.append("| " + " | ".join(row) + " |")
    open(os.path.join(d, "table4.md"), "w").write("\n".join(l for l in lines if l is not None) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plots", file=sys.stderr)
        return
    labels = [f"{r['app']}\n{r['graph']['name']}" for r in runs]
    fig1, ax = plt.subplots(figsize=(max(6, 0.7 * len(runs)), 4))
    bar_forms = [f for f in forms if f != "multi"]
    width = 0.8 / max(1, len(bar_forms))
    for k, form in enumerate(bar_forms):
        vals = [(med(r, "multi") / med(r, form)) if med(r, "multi") and med(r, form) else 0 for r in runs]
        ax.bar([i + k * width for i in range(len(runs))], vals, width, label=form)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(runs))])
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("speedup over the host loop (multi / form)")
    ax.set_title(f"{dev['name']} ({dev['backend']}): speedup over the multi-kernel host loop", fontsize=9)
    ax.legend(fontsize=7)
    fig1.tight_layout()
    fig1.savefig(os.path.join(d, "speedup.png"), dpi=120)
    if fig:
        fig2, ax = plt.subplots(figsize=(6, 4))
        ax.scatter([x for x, _, _ in fig], [y for _, y, _ in fig], marker="x")
        for x, y, t in fig:
            ax.annotate(t, (x, y), fontsize=6)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("run time with hard-coded occupancy (ms)")
        ax.set_ylabel("portability slowdown (persistent / fixed)")
        ax.set_title(f"Figure 11 on {dev['name']} ({dev['backend']})", fontsize=9)
        fig2.tight_layout()
        fig2.savefig(os.path.join(d, "fig11.png"), dpi=120)

if __name__ == "__main__":
    for d in sys.argv[1:]:
        main(d)
