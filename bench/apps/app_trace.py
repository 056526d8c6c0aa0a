#!/usr/bin/env python3
"""Where a persistent app kernel's time goes: start, steps and barriers along its critical path.

Reads the records an APP_TRACE=1 build of the apps appends (bench/apps/app_variants.h): per
launch and group, %globaltimer at kernel entry, after discovery, on each grid barrier's arrival
(after the group's block barrier) and departure, and at exit. Per launch:

  span      last exit - first entry (the kernel body as the GPU ran it)
  start     first entry -> the end of discovery, for the group that arrives last at barrier 0
  steps     along the critical path: for each barrier k, the step of the group that arrived last
            at k (its departure from k - 1, or the end of discovery, to its arrival at k)
  barriers  along the critical path: the last arrival at k - 1 -> the departure from k - 1 of
            the group that arrives last at k (the barrier's latency as that group saw it)
  tail      the last arrival at the last barrier -> the last exit
            span = start + steps + barriers + tail, exactly (the sum telescopes)
  step_mean the mean over groups of their step times, summed over barriers (the step code's own
            speed, without waiting for the slowest group)
  release   the median over groups of (own departure - last arrival), summed over barriers
  gpu_out   (WGSTRC2 records) the time between two events around the kernel less its span: the
            launch's latency to the first group and the drain after the last, on the GPU
  host      (WGSTRC2) the host's time for the launch less the events' time: what the host adds
  call      (WGSTRC2) the host's time in the launch call (cudaLaunchCooperativeKernel;
            wgs_cuda_launch_async)
  result    (WGSTRC2) the host's time after the stream's wait (wgs_state_result; 0 for grid.sync())

  app_trace.py FILE [FILE...] [--csv OUT.csv]   one line per (file, app, form): medians over
                                               launches, min-max beside
"""
import struct
import sys
from statistics import median


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off + 48 <= len(data):
        head = data[off:off + 40]
        if head[:7] not in (b"WGSTRC1", b"WGSTRC2"):
            raise SystemExit("%s: not a trace record at byte %d" % (path, off))
        app = head[8:24].split(b"\0")[0].decode()
        form = head[24:40].split(b"\0")[0].decode()
        groups, events = struct.unpack_from("<II", data, off + 40)
        off += 48
        times = None
        if head[:7] == b"WGSTRC2":  # host time, events time, launch call, wait (µs)
            times = struct.unpack_from("<4d", data, off)
            off += 32
        cnt = struct.unpack_from("<%dI" % groups, data, off)
        off += 4 * groups
        ts = []
        for c in cnt:
            n = min(c, events)
            ts.append(struct.unpack_from("<%dQ" % n, data, off))
            off += 8 * n
        yield app, form, groups, events, cnt, ts, times


def analyse(groups, events, cnt, ts, times=None):
    lists = []
    truncated = False
    for g in range(groups):
        c = cnt[g]
        if c == 0:
            continue
        n = min(c, events)
        truncated |= c > events
        lists.append(ts[g])
    first_entry = min(t[0] for t in lists)
    last_exit = max(t[-1] for t in lists)
    part = [t for t in lists if len(t) > 3]  # entry, begun, (arrive, depart)..., exit
    if not part:
        return None
    k_n = min((len(t) - 3) // 2 for t in part)
    if any((len(t) - 3) // 2 != k_n for t in part) and not truncated:
        raise SystemExit("groups passed different numbers of barriers")
    arr = [[t[2 + 2 * k] for t in part] for k in range(k_n)]
    dep = [[t[3 + 2 * k] for t in part] for k in range(k_n)]
    begun = [t[1] for t in part]
    steps = barriers = step_mean = release = 0
    last = None
    for k in range(k_n):
        a = arr[k]
        gs = max(range(len(part)), key=lambda g: a[g])
        own_start = begun if k == 0 else dep[k - 1]
        steps += a[gs] - own_start[gs]
        if k == 0:
            start = begun[gs] - first_entry
        else:
            barriers += dep[k - 1][gs] - last
        step_mean += sum(a[g] - own_start[g] for g in range(len(part))) / len(part)
        top = max(a)
        release += median(d - top for d in dep[k])
        last = a[gs]
    tail = last_exit - last
    ns = dict(span=last_exit - first_entry, start=start, steps=steps, barriers=barriers, tail=tail,
              step_mean=step_mean, release=release)
    us = {k: v / 1e3 for k, v in ns.items()}
    if times and times[1] > 0:
        us.update(gpu_out=times[1] - us["span"], host=times[0] - times[1], call=times[2],
                  result=times[0] - times[2] - times[3])
    us.update(barrier_count=k_n, groups=len(part), launched=len(lists), truncated=truncated)
    return us


def tick_of(events, g=0):
    """The timer's step: the greatest common divisor of the differences it produced."""
    from math import gcd
    base = None
    for ts in events:
        for t in ts:
            if base is None:
                base = t
            g = gcd(g, t - base)
    return g


def main(argv):
    csv = None
    if "--csv" in argv:
        i = argv.index("--csv")
        csv = argv[i + 1]
        del argv[i:i + 2]
    cols = ["span", "start", "steps", "barriers", "tail", "step_mean", "release"]
    rows = []
    step = 0
    for p in argv:
        by = {}
        for app, form, groups, events, cnt, ts, times in records(p):
            if step != 1:
                step = tick_of(ts, step)
            r = analyse(groups, events, cnt, ts, times)
            if r:
                by.setdefault((app, form), []).append(r)
        for (app, form), rs in by.items():
            rows.append((p, app, form, rs))
    if rows and all("host" in r for _, _, _, rs in rows for r in rs):
        cols += ["gpu_out", "host", "call", "result"]
    print("timer step: %d ns" % step)
    print("| file | app | form | launches | groups | barriers | " + " | ".join(c + " µs" for c in cols) + " |")
    print("| --- " * (6 + len(cols)) + "|")
    out = []
    for p, app, form, rs in rows:
        cells = []
        for c in cols:
            v = [r[c] for r in rs]
            cells.append("%.2f (%.2f-%.2f)" % (median(v), min(v), max(v)))
        name = p.rsplit("/", 1)[-1]
        print("| %s | %s | %s | %d | %d | %d | %s |" % (name, app, form, len(rs), rs[0]["groups"],
                                                     rs[0]["barrier_count"], " | ".join(cells)))
        for i, r in enumerate(rs):
            out.append([name, app, form, i, r["groups"], r["barrier_count"]] + ["%.3f" % r[c] for c in cols])
    if csv:
        with open(csv, "w") as f:
            f.write("file,app,form,launch,groups,barriers," + ",".join(c + "_us" for c in cols) + "\n")
            for o in out:
                f.write(",".join(str(x) for x in o) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
