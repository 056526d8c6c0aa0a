#!/usr/bin/env python3
"""The Triton device library's layout (python/wgsync/triton/_layout.py) against the C header it
is generated from: the file is what scripts/gen_layout_py.py makes of device/common/wgs_layout.h
today, and every macro's value, as the generated Python computes it, is the C compiler's, at
several capacities (a macro that takes a half, at both).

  python_layout.py CC SOURCE_DIR WORK_DIR        (prints PASS python layout, or exits 1)
"""
import os
import subprocess
import sys

GROUPS = (1, 7, 132, 2112, 4224, 1 << 20)


def main(cc, src, work):
    gen = os.path.join(src, "scripts", "gen_layout_py.py")
    r = subprocess.run([sys.executable, gen, "--check"], capture_output=True, text=True)
    print(r.stdout.strip())
    if r.returncode != 0:
        print(r.stderr)
        return 1
    out = subprocess.run([sys.executable, gen, "--values"] + [str(g) for g in GROUPS],
                         capture_output=True, text=True, check=True).stdout
    py = dict(line.split("=", 1) for line in out.split())
    os.makedirs(work, exist_ok=True)
    c = os.path.join(work, "layout_values.c")
    with open(c, "w") as f:
        f.write('#include <stdio.h>\n#include "wgs_layout.h"\nint main(void)\n{\n')
        for name in py:
            expr = name.replace(",", "u,").replace(")", "u)")  # unsigned arguments, as the library passes
            f.write('  printf("%s=%%u\\n", (unsigned)(%s));\n' % (name, expr))
        f.write("  return 0;\n}\n")
    exe = os.path.join(work, "layout_values")
    subprocess.run([cc, "-std=c11", "-I", os.path.join(src, "device", "common"), c, "-o", exe], check=True)
    cv = dict(line.split("=", 1) for line in subprocess.run([exe], capture_output=True, text=True,
                                                            check=True).stdout.split())
    bad = [(k, py[k], cv.get(k)) for k in py if py[k] != cv.get(k)]
    for k, a, b in bad:
        print("MISMATCH %s: generated Python %s, C %s" % (k, a, b))
    if bad:
        return 1
    print("%d values agree at capacities %s" % (len(py), ", ".join(map(str, GROUPS))))
    print("PASS python layout")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
