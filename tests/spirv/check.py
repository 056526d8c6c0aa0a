#!/usr/bin/env python3
"""SPIR-V split-barrier tests: `check.py WGSYNC TEST_WGSYNC OUTDIR CASE`.

Modules are SPIR-V text in the shapes the SPIRV-LLVM-Translator emits for the OpenCL built-ins
(its lit tests split_work_group_barrier_12/_20: execution scope Workgroup, memory scopes
4/2/1/0/3, semantics 260/258, 516/514, 2052/2050, 772/770), assembled with spirv-as. Lowered
modules must pass spirv-val and contain no split barrier; bad modules must be refused with the
offset and what was expected. Exit 77 (skipped) when spirv-tools is missing."""
import os, shutil, struct, subprocess, sys

WGSYNC, TEST_BIN, OUT, CASE = sys.argv[1:5]
for tool in ("spirv-as", "spirv-val", "spirv-dis"):
    if not shutil.which(tool):
        print(f"SKIP: {tool} not found (Debian package spirv-tools)")
        sys.exit(77)
os.makedirs(OUT, exist_ok=True)

def module(ops, ext="SPV_INTEL_split_barrier", cap=True, consts=(0, 1, 2, 3, 4, 258, 260, 264, 272, 514, 516, 770, 772, 2050, 2052)):
    head = ["OpCapability Addresses", "OpCapability Kernel"]
    if cap:
        head.append("OpCapability SplitBarrierINTEL")
    if ext:
        head.append(f'OpExtension "{ext}"')
    head += ["OpMemoryModel Physical64 OpenCL", 'OpEntryPoint Kernel %k "k"',
             "%uint = OpTypeInt 32 0", "%void = OpTypeVoid", "%fn = OpTypeFunction %void"]
    head += [f"%c{v} = OpConstant %uint {v}" for v in consts]
    body = ["%k = OpFunction %void None %fn", "%entry = OpLabel"] + ops + ["OpReturn", "OpFunctionEnd"]
    return "\n".join(head + body) + "\n"

def arrive(mem, sem, ex=2):
    return f"OpControlBarrierArriveINTEL %c{ex} %c{mem} %c{sem}"

def wait(mem, sem, ex=2):
    return f"OpControlBarrierWaitINTEL %c{ex} %c{mem} %c{sem}"

def assemble(name, text, env="spv1.0"):
    src, spv = os.path.join(OUT, name + ".spvasm"), os.path.join(OUT, name + ".spv")
    open(src, "w").write(text)
    subprocess.run(["spirv-as", "--target-env", env, src, "-o", spv], check=True)
    return spv

def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr

def expect(cond, what, out=""):
    if not cond:
        print(f"FAIL: {what}\n{out}")
        sys.exit(1)

def valid_and_lowers(name, text, expect_sem):
    spv = assemble(name, text)
    rc, out = run(WGSYNC, "spirv", "validate", spv)
    expect(rc == 0 and "valid (0 issues)" in out, f"{name}: validate", out)
    low = spv.replace(".spv", ".lowered.spv")
    rc, out = run(WGSYNC, "spirv", "lower", spv, "-o", low)
    expect(rc == 0, f"{name}: lower", out)
    rc, out = run("spirv-val", "--target-env", "opencl1.2", low)
    expect(rc == 0, f"{name}: spirv-val of the lowered module", out)
    rc, dis = run("spirv-dis", "--raw-id", low)
    expect(rc == 0, f"{name}: spirv-dis", dis)
    for gone in ("ArriveINTEL", "WaitINTEL", "SplitBarrier", "split_barrier"):
        expect(gone not in dis, f"{name}: '{gone}' left in the lowered module", dis)
    expect("OpControlBarrier" in dis, f"{name}: no OpControlBarrier for the wait", dis)
    # the wait's semantics: AcquireRelease (0x8) over at least the wait's storage classes
    sems = [int(l.split()[-1]) for l in dis.splitlines() if "OpConstant" in l]
    expect(expect_sem in sems, f"{name}: no constant {expect_sem} (AcquireRelease semantics)", dis)
    print(f"{name}: valid, lowered, spirv-val ok")

def shader_module(ops, consts):
    """A Vulkan compute shader (Shader, the Vulkan memory model, SPIR-V 1.5) using the EXT names'
    extension; its split barriers are spelled with the INTEL opcodes, which are the same."""
    head = ["OpCapability Shader", "OpCapability VulkanMemoryModel", "OpCapability SplitBarrierINTEL",
            'OpExtension "SPV_EXT_split_barrier"', "OpMemoryModel Logical Vulkan",
            'OpEntryPoint GLCompute %k "main"', "OpExecutionMode %k LocalSize 64 1 1",
            "%uint = OpTypeInt 32 0", "%void = OpTypeVoid", "%fn = OpTypeFunction %void"]
    head += [f"%c{v} = OpConstant %uint {v}" for v in consts]
    body = ["%k = OpFunction %void None %fn", "%entry = OpLabel"] + ops + ["OpReturn", "OpFunctionEnd"]
    return "\n".join(head + body) + "\n"

def invalid(name, text, *needles):
    spv = assemble(name, text)
    rc, out = run(WGSYNC, "spirv", "validate", spv)
    expect(rc == 1 and "INVALID" in out, f"{name}: expected INVALID", out)
    for n in needles:
        expect(n in out, f"{name}: message lacks '{n}'", out)
    rc, out2 = run(WGSYNC, "spirv", "lower", spv, "-o", spv + ".out")
    expect(rc == 1 and "cannot lower" in out2, f"{name}: lower must refuse", out2)
    print(f"{name}: refused as expected:\n{out}")

def malformed(name, words, *needles):
    path = os.path.join(OUT, name + ".spv")
    open(path, "wb").write(b"".join(struct.pack("<I", w) for w in words))
    rc, out = run(WGSYNC, "spirv", "validate", path)
    expect(rc == 2, f"{name}: expected exit 2 (malformed)", out)
    for n in needles:
        expect(n in out, f"{name}: message lacks '{n}'", out)
    print(f"{name}: refused as expected: {out.strip()}")

def good_words():
    spv = assemble("base", module([arrive(2, 260), wait(2, 258)]))
    data = open(spv, "rb").read()
    return list(struct.unpack(f"<{len(data)//4}I", data))

if CASE == "flags":
    for a, w in ((260, 258), (516, 514), (2052, 2050), (772, 770)):
        scopes = (2,) if a == 2052 else (4, 2, 1, 0, 3)  # image memory: Workgroup scope only
        for mem in scopes:
            valid_and_lowers(f"flags_{a}_{w}_scope{mem}", module([arrive(mem, a), wait(mem, w)]),
                             0x8 | ((a | w) & 0xFC0))
elif CASE == "ext_spelling":
    valid_and_lowers("ext", module([arrive(2, 260), wait(2, 258)], ext="SPV_EXT_split_barrier"), 264)
elif CASE == "loop_of_pairs":
    ops = [arrive(2, 516), "OpControlBarrier %c2 %c2 %c258", wait(2, 514), arrive(1, 260), wait(1, 258)]
    valid_and_lowers("pairs", module(ops), 0x8 | 0x300)
elif CASE == "many_pairs":
    # lowering is linear in the module: each distinct wait semantics resolved once. Scanning
    # the ids for every wait took 11 s here (48 s with a larger bound); now 0.01 s
    import time
    spv = assemble("many", module([arrive(2, 260), wait(2, 258)] * 40000,
                                  consts=(0, 1, 2, 3, 4, 258, 260)))  # no 264: made by lower
    # an id bound of 1,000,000 (valid: every id is below it), as a linker's output may declare
    words = bytearray(open(spv, "rb").read())
    struct.pack_into("<I", words, 12, 1000000)
    open(spv, "wb").write(words)
    t0 = time.monotonic()
    rc, out = run(WGSYNC, "spirv", "lower", spv, "-o", spv + ".lowered")
    took = time.monotonic() - t0
    expect(rc == 0, "many: lower", out)
    rc, out = run("spirv-val", "--target-env", "opencl1.2", spv + ".lowered")
    expect(rc == 0, "many: spirv-val of the lowered module", out)
    print(f"many: 40,000 pairs lowered in {took:.2f} s")
    expect(took < 5, f"many: lowering 40,000 pairs took {took:.1f} s (expected linear time: < 5 s)")
elif CASE == "bad_semantics":
    invalid("arrive_acqrel", module([arrive(2, 264), wait(2, 258)]), "AcquireRelease", "expected Release")
    invalid("wait_seqcst", module([arrive(2, 260), wait(2, 272)]), "SequentiallyConsistent", "expected Acquire")
elif CASE == "bad_scope":
    invalid("exec_subgroup", module([arrive(2, 260, ex=3), wait(2, 258, ex=3)]), "Subgroup", "Workgroup (2)")
    invalid("image_device", module([arrive(1, 2052), wait(1, 2050)]), "ImageMemory", "Workgroup scope")
elif CASE == "bad_order":
    invalid("wait_first", module([wait(2, 258), arrive(2, 260)]), "before any arrive")
    invalid("double_arrive", module([arrive(2, 260), arrive(2, 260), wait(2, 258)]), "twice without a wait")
elif CASE == "vulkan":
    # SPV_EXT_split_barrier in a Vulkan shader: QueueFamily memory scope, the arrive's
    # MakeAvailable (0x2000) and the wait's MakeVisible (0x4000) over workgroup memory (0x100);
    # the lowered wait is AcquireRelease with both, and the module passes Vulkan's validator
    arr, wt = 0x4 | 0x100 | 0x2000, 0x2 | 0x100 | 0x4000
    consts = (1, 2, 5, arr, wt)
    ops = [f"OpControlBarrierArriveINTEL %c2 %c5 %c{arr}", f"OpControlBarrierWaitINTEL %c2 %c5 %c{wt}",
           f"OpControlBarrierArriveINTEL %c2 %c2 %c{arr}", f"OpControlBarrierWaitINTEL %c2 %c2 %c{wt}"]
    spv = assemble("vk", shader_module(ops, consts), "spv1.5")
    rc, out = run(WGSYNC, "spirv", "validate", spv)
    expect(rc == 0 and "valid (0 issues)" in out, "vk: validate", out)
    low = spv.replace(".spv", ".lowered.spv")
    rc, out = run(WGSYNC, "spirv", "lower", spv, "-o", low)
    expect(rc == 0, "vk: lower", out)
    rc, out = run("spirv-val", "--target-env", "vulkan1.2", low)
    expect(rc == 0, "vk: spirv-val --target-env vulkan1.2 of the lowered module", out)
    rc, dis = run("spirv-dis", "--raw-id", low)
    for gone in ("ArriveINTEL", "WaitINTEL", "SplitBarrier", "split_barrier"):
        expect(gone not in dis, f"vk: '{gone}' left in the lowered module", dis)
    sems = [int(l.split()[-1]) for l in dis.splitlines() if "OpConstant" in l]
    expect(0x8 | 0x100 | 0x6000 in sems, "vk: no AcquireRelease|MakeAvailable|MakeVisible constant", dis)
    print("vk: a Vulkan shader with SPV_EXT_split_barrier: valid, lowered, spirv-val (vulkan1.2) ok")
    # what Vulkan does not allow, named with the EXT spelling the module declared
    bad = shader_module([f"OpControlBarrierArriveINTEL %c2 %c0 %c{arr}", f"OpControlBarrierWaitINTEL %c2 %c0 %c{wt}"],
                        (0, 2, arr, wt))
    invalid("vk_crossdevice", bad, "OpControlBarrierArriveEXT", "Memory scope is CrossDevice", "QueueFamily (5)")
    bad = shader_module([f"OpControlBarrierArriveINTEL %c2 %c2 %c{arr | 0x8000}", f"OpControlBarrierWaitINTEL %c2 %c2 %c{wt}"],
                        (2, arr | 0x8000, wt))
    invalid("vk_volatile", bad, "bits 0x8000")
elif CASE == "missing_declarations":
    invalid("no_capability", module([arrive(2, 260), wait(2, 258)], cap=False), "SplitBarrierINTEL (6141)")
elif CASE == "malformed":
    w = good_words()
    malformed("truncated_at_end", w[:-2], "truncated", "no OpFunctionEnd")
    i = 5
    while i < len(w) and (w[i] & 0xFFFF) != 6143:  # cut inside the wait instruction
        i += w[i] >> 16
    malformed("truncated_inside", w[:i + 2], "truncated", f"word offset {i}", "needs 4 words")
    malformed("short_header", w[:3], "header needs 5 words")
    malformed("bad_magic", [0xDEADBEEF] + w[1:], "magic")
    bad = list(w); bad[5] = bad[5] & 0xFFFF  # first instruction: word count 0
    malformed("word_count_zero", bad, "word count 0", "word offset 5")
    # an arrive whose memory-semantics id is past the bound
    bad = list(w)
    i = 5
    while i < len(bad) and (bad[i] & 0xFFFF) != 6142:
        i += bad[i] >> 16
    bad[i + 3] = w[3] + 5
    malformed("id_out_of_bound", bad, "malformed", f"word offset {i}")
    path = os.path.join(OUT, "odd.spv")
    open(path, "wb").write(b"\x03\x02\x23\x07\x00")
    rc, out = run(WGSYNC, "spirv", "validate", path)
    expect(rc == 2 and "whole number of 32-bit words" in out, "odd-sized file", out)
elif CASE == "mutations":
    import random
    rnd = random.Random(20261122)  # deterministic
    w = good_words()
    for t in range(300):
        m = list(w)
        for _ in range(rnd.randint(1, 4)):
            k = rnd.randrange(len(m))
            m[k] = rnd.choice([0, 0xFFFFFFFF, m[k] ^ (1 << rnd.randrange(32)), rnd.getrandbits(32), (m[k] & 0xFFFF) | (rnd.randrange(64) << 16)])
        if rnd.random() < 0.3:
            m = m[:rnd.randrange(len(m) + 1)]
        path = os.path.join(OUT, "mut.spv")
        open(path, "wb").write(b"".join(struct.pack("<I", x) for x in m))
        for verb in (["validate", path], ["lower", path, "-o", path + ".out"]):
            rc, out = run(WGSYNC, "spirv", *verb)
            expect(rc in (0, 1, 2), f"mutation {t}: {verb[0]} exited {rc} (crash?)", out)
    print("300 mutated modules: every one read, refused or lowered without a crash")
elif CASE == "output_errors":
    # output that cannot be written is a failure, not "lowered ..." and exit 0; a directory given
    # as input is named as one
    spv = assemble("out", module([arrive(2, 260), wait(2, 258)]))
    if os.path.exists("/dev/full"):
        rc, out = run(WGSYNC, "spirv", "lower", spv, "-o", "/dev/full")
        expect(rc == 2 and "cannot write '/dev/full'" in out and "lowered" not in out, "lower -o /dev/full", out)
        with open("/dev/full", "w") as full:
            p = subprocess.run([WGSYNC, "spirv", "validate", spv, "--json"], stdout=full, stderr=subprocess.PIPE, text=True)
        expect(p.returncode != 0 and "cannot write the output" in p.stderr, "validate --json > /dev/full", p.stderr)
    rc, out = run(WGSYNC, "spirv", "validate", OUT)
    expect(rc == 2 and "is a directory" in out, "a directory as input", out)
    print("unwritable output and a directory as input: refused with the reason")
elif CASE == "il_path":
    spv = assemble("il", module([arrive(2, 260), wait(2, 258)]))
    rc, out = run(TEST_BIN, "spirv_il", spv)
    expect(rc in (0, 77), "library IL path", out)
    print(out)
    sys.exit(rc)
else:
    print(f"unknown case {CASE}")
    sys.exit(2)
