#!/usr/bin/env python3
"""Table 4 before and after, side by side: python3 compare.py BASE_DIR NEW_DIR (each with a
table4.csv from scripts/table4-run.sh + table4.py). Prints a Markdown table: the persistent
form's median before and after, and after, its ratio to each other form (>1: persistent faster);
then geometric means and the inputs where the persistent form is slower."""
import csv, math, sys

def load(d):
    t = {}
    for r in csv.DictReader(open(d + "/table4.csv")):
        t.setdefault((r["app"], r["graph"]), {})[r["form"]] = (float(r["median_ms"]), int(r["groups"]))
    return t

base, new = load(sys.argv[1]), load(sys.argv[2])
others = [("gridsync", "grid.sync"), ("graph", "CUDA graph"), ("multi", "host loop")]
print("| app | graph | groups | persistent ms before | after | after/before | "
      + " | ".join("vs " + n for _, n in others) + " | fixed ms |")
print("| --- " * (7 + len(others)) + "|")
logs = {k: [] for k, _ in others}
slower = {k: [] for k, _ in others}
moved = []
for key in sorted(new):
    f = new[key]
    if key not in base or "persistent" not in f or "persistent" not in base[key]:
        continue
    p, g = f["persistent"]
    pb = base[key]["persistent"][0]
    moved.append(math.log(pb / p))
    cells = []
    for k, _ in others:
        if k in f:
            r = f[k][0] / p
            logs[k].append(math.log(r))
            if r < 1.0:
                slower[k].append("%s %s (%.2fx)" % (key[0], key[1], r))
            cells.append("%.2fx" % r)
        else:
            cells.append("-")
    print("| %s | %s | %d | %.3f | %.3f | %.3f | %s | %.3f |" % (key[0], key[1], g, pb, p, p / pb,
          " | ".join(cells), f.get("fixed", (float("nan"),))[0]))
print()
print("- persistent, before over after (geometric mean): %.3fx" % math.exp(sum(moved) / len(moved)))
for k, n in others:
    if logs[k]:
        print("- after, against %s: geometric mean %.3fx; slower on %d of %d: %s" % (
            n, math.exp(sum(logs[k]) / len(logs[k])), len(slower[k]), len(logs[k]),
            ", ".join(slower[k]) or "none"))
