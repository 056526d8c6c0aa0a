#!/usr/bin/env python3
"""split_ext.py IN.spv OUT.spv: turns a shader's work-group control barriers whose semantics are
Release-only into OpControlBarrierArriveEXT and Acquire-only ones into OpControlBarrierWaitEXT
(the SPV_INTEL_split_barrier opcodes 6142/6143, which SPV_EXT_split_barrier keeps), and declares
the capability (6141) and "SPV_EXT_split_barrier": a Vulkan module such as a compiler with the
extension emits, which glslang cannot write yet. Uses spirv-dis and spirv-as."""
import re, subprocess, sys

src, dst = sys.argv[1:3]
text = subprocess.run(["spirv-dis", "--raw-id", src], check=True, capture_output=True, text=True).stdout
consts = dict(re.findall(r"^\s*(%\d+) = OpConstant %\d+ (\d+)\s*$", text, re.M))
out, n_arrive, n_wait = [], 0, 0
for line in text.splitlines():
    m = re.match(r"^(\s*)OpControlBarrier (%\d+) (%\d+) (%\d+)\s*$", line)
    if m:
        sem = int(consts.get(m.group(4), "-1"))
        if sem >= 0 and (sem & 0x1E) == 0x4:
            line, n_arrive = f"{m.group(1)}OpControlBarrierArriveINTEL {m.group(2)} {m.group(3)} {m.group(4)}", n_arrive + 1
        elif sem >= 0 and (sem & 0x1E) == 0x2:
            line, n_wait = f"{m.group(1)}OpControlBarrierWaitINTEL {m.group(2)} {m.group(3)} {m.group(4)}", n_wait + 1
    if line.strip().startswith("OpMemoryModel"):
        out.append("OpCapability SplitBarrierINTEL")
        out.append('OpExtension "SPV_EXT_split_barrier"')
    out.append(line)
if n_arrive == 0 or n_arrive != n_wait:
    sys.exit(f"split_ext.py: {src}: {n_arrive} arrives and {n_wait} waits (expected as many, and some)")
asm = dst + ".spvasm"
open(asm, "w").write("\n".join(out) + "\n")
ver = re.search(r"; Version: (\d+)\.(\d+)", text)
env = f"spv{ver.group(1)}.{ver.group(2)}" if ver else "spv1.5"
subprocess.run(["spirv-as", "--target-env", env, asm, "-o", dst], check=True)
