#!/usr/bin/env python3
"""The Python package's C types checked against the C headers: every ctypes structure's fields
(names, order, offsets, sizes) and size against the C structure it mirrors, and every constant
against the C enumerator of the same meaning. The members' names and order are read from the
header's structure (a field the package lacks or adds, or holds in another order, is named);
offsets, sizes and constants come from a program generated from the package's own lists and
compiled against include/ (a type that differs shows as an offset or a size).

  python_abi.py CC INCLUDE_DIR PACKAGE_DIR WORK_DIR        (prints PASS python abi, or exits 1)
"""
import ctypes
import os
import re
import subprocess
import sys

# the package's structures and the C types they mirror (include/wgsync.h)
STRUCTS = [("DeviceInfo", "wgs_device_info"), ("_Select", "wgs_device_select"),
           ("LaunchConfig", "wgs_launch_config"), ("LaunchResult", "wgs_launch_result")]
# the package's constant prefixes and the C enumerators' (LOCK_FREE is WGS_LOCK_FREE)
PREFIXES = ("LOCK_", "DISCOVERY_", "BARRIER_", "BUILD_")


def members(header, ctype):
    """The member names of `typedef struct { ... } ctype;` in the header, in order."""
    m = re.search(r"typedef struct\s*\{([^{}]*)\}\s*%s\s*;" % ctype, header)
    if not m:
        return None
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    names = []
    for decl in filter(None, (d.strip() for d in body.split(";"))):
        # "type a, b[4]": the declarators after the type; each name is the last identifier
        # before an optional array bound
        for part in decl.split(","):
            part = re.sub(r"\[[^]]*\]", "", part).strip()
            names.append(re.findall(r"[A-Za-z_]\w*", part)[-1])
    return names


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    cc, include, package, work = argv[1:]
    sys.path.insert(0, package)
    import wgsync  # loads no library: that happens at the first call

    os.makedirs(work, exist_ok=True)
    with open(os.path.join(include, "wgsync.h")) as f:
        header = f.read()
    bad = 0
    for py, c in STRUCTS:
        want, have = members(header, c), [f for f, _ in getattr(wgsync, py)._fields_]
        if want is None:
            print("FAIL: include/wgsync.h has no 'typedef struct { ... } %s;'" % c)
            bad += 1
        elif want != have:
            print("FAIL: %s's fields are not %s's members in order:\n  C:      %s\n  Python: %s"
                  % (py, c, " ".join(want), " ".join(have)))
            bad += 1
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "wgsync.h"', "int main(void)", "{"]
    mine = {}
    for py, c in STRUCTS:
        cls = getattr(wgsync, py)
        mine[("S", py)] = ctypes.sizeof(cls)
        lines.append('  printf("S %s %%zu\\n", sizeof(%s));' % (py, c))
        for i, (field, _) in enumerate(cls._fields_):
            d = getattr(cls, field)
            mine[("F", py, field)] = (i, d.offset, d.size)
            lines.append('  printf("F %s %s %d %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (py, field, i, c, field, c, field))
    consts = {k: v for k, v in vars(wgsync).items() if k.startswith(PREFIXES) and isinstance(v, int)}
    consts.update(wgsync.STATUS)
    for name, value in sorted(consts.items()):
        cname = name if name.startswith("WGS_") else "WGS_" + name
        mine[("C", name)] = value
        lines.append('  printf("C %s %%lld\\n", (long long)%s);' % (name, cname))
    lines += ["  return 0;", "}"]
    src, exe = os.path.join(work, "abi.c"), os.path.join(work, "abi")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    r = subprocess.run([cc, "-std=c11", "-I", include, "-o", exe, src], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: the package names what include/wgsync.h does not have (the compiler on %s):\n%s"
              % (src, r.stderr))
        return 1
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split("\n")
    for line in filter(None, out):
        kind, *rest = line.split()
        if kind == "S":
            py, size = rest[0], int(rest[1])
            if mine[("S", py)] != size:
                print("FAIL: %s is %d bytes in Python, its C structure %d (a field missing, or "
                      "of another type)" % (py, mine[("S", py)], size))
                bad += 1
        elif kind == "F":
            py, field, i, off, size = rest[0], rest[1], int(rest[2]), int(rest[3]), int(rest[4])
            _, poff, psize = mine[("F", py, field)]
            if (poff, psize) != (off, size):
                print("FAIL: %s.%s (field %d) at offset %d, %d bytes in Python; in C at %d, %d bytes"
                      % (py, field, i, poff, psize, off, size))
                bad += 1
        elif kind == "C":
            name, value = rest[0], int(rest[1])
            if mine[("C", name)] != value:
                print("FAIL: %s is %d in Python, %d in C" % (name, mine[("C", name)], value))
                bad += 1
    n = len(mine)
    if bad:
        print("python abi: %d of %d checks failed" % (bad, n))
        return 1
    print("PASS python abi: %d structures, %d fields, %d constants" % (
        len(STRUCTS), sum(1 for k in mine if k[0] == "F"), sum(1 for k in mine if k[0] == "C")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
