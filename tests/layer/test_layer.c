/*
 * The OpenCL layer's tests: a program written only against the extension specifications
 * (cl_intel_split_work_group_barrier, cl_intel_concurrent_dispatch; plain OpenCL, no wgsync),
 * run with OPENCL_LAYERS naming libwgsync-layer. `test_layer CASE [SPV]`:
 *
 *   ext         the device lists both extensions (and with versions, on OpenCL 3.0)
 *   split       a split-barrier kernel from source gives what its plain barrier() version gives
 *   spirv SPV   the same kernel as SPIR-V (skipped, 77, where the device takes no SPIR-V; the
 *               layer must then have said why)
 *   unset, default, concurrent
 *               the three cases of cl_intel_concurrent_dispatch's conformance test, written
 *               from the specification: intel_is_device_barrier_valid() is false with the
 *               dispatch type unset and default, true under concurrent dispatch; there
 *               intel_device_barrier orders every group's writes (a message-passing ring, many
 *               rounds, 1-D and 2-D ranges); the extension's errors (more groups than the
 *               query's count, no local size, a global size not a multiple of it); the hidden
 *               argument invisible
 *   helper      intel_device_barrier called from a helper function: the build fails, and its
 *               log says why
 *   deadlock    (WGSYNC_LAYER_CHECKED=1) a group that skips intel_device_barrier: the launch
 *               is refused with a report, not a hang
 *   link        a device-barrier program compiled and linked: the hidden argument invisible,
 *               its dispatches served
 *   query_first the count queried before any argument is set (the conformance test's order)
 *   user_event  (WGSYNC_LAYER_CHECKED=1) dispatches behind a user event: no hang; a skipped
 *               barrier's report read after the dispatch ended, its error the next dispatch's
 *   split_misuse (WGSYNC_LAYER_CHECKED=1) a work-item that waits without arriving: the device
 *               library's report (the CTest entry looks for it)
 * The device: WGSYNC_DEVICE (a substring of "platform device"), else the first GPU, else the
 * first device.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue: OpenCL 1.2 drivers (Oclgrind) */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define SKIP 77
#define FAIL(...)                                                                             \
  do {                                                                                        \
    printf("FAIL %s:%d: ", __FILE__, __LINE__);                                              \
    printf(__VA_ARGS__);                                                                      \
    printf("\n");                                                                             \
    exit(1);                                                                                  \
  } while (0)
#define CL_OK(call)                                                                           \
  do {                                                                                        \
    cl_int e_ = (call);                                                                       \
    if (e_ != CL_SUCCESS)                                                                     \
      FAIL("%s returned %d", #call, e_);                                                      \
  } while (0)

#ifndef CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL 0x4257
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL 0
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL 1
#endif
typedef cl_int(CL_API_CALL *max_count_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                          const size_t *, size_t *);

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;

static void open_device(void)
{
  cl_platform_id ps[8];
  cl_uint np = 0;
  CL_OK(clGetPlatformIDs(8, ps, &np));
  const char *want = getenv("WGSYNC_DEVICE");
  int found = 0;
  for (int pass = 0; pass < 2 && !found; pass++) /* a GPU first, unless a name was given */
    for (cl_uint p = 0; p < np && !found; p++) {
      cl_device_id ds[8];
      cl_uint nd = 0;
      if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 8, ds, &nd) != CL_SUCCESS)
        continue;
      for (cl_uint d = 0; d < nd && !found; d++) {
        char pn[256] = "", dn[256] = "", both[520];
        cl_device_type t = 0;
        clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
        clGetDeviceInfo(ds[d], CL_DEVICE_NAME, sizeof dn, dn, NULL);
        clGetDeviceInfo(ds[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        snprintf(both, sizeof both, "%s %s", pn, dn);
        if (want && *want ? strstr(both, want) != NULL : pass == 1 || (t & CL_DEVICE_TYPE_GPU)) {
          plat = ps[p];
          dev = ds[d];
          found = 1;
          printf("device: %s\n", both);
        }
      }
    }
  if (!found)
    FAIL("no OpenCL device%s%s", want ? " matching " : "", want ? want : "");
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CL_OK(err);
  q = clCreateCommandQueue(ctx, dev, 0, &err);
  CL_OK(err);
}

static cl_program build(const char *src, const char *opts, cl_int *build_err)
{
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CL_OK(err);
  err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
  if (build_err) {
    *build_err = err;
    return p;
  }
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    FAIL("build failed (%d):\n%s", err, log);
  }
  return p;
}

static cl_mem buffer(size_t bytes)
{
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  CL_OK(err);
  unsigned zero = 0;
  CL_OK(clEnqueueFillBuffer(q, m, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
  return m;
}

/* ---- ext ---- */

static int case_ext(void)
{
  char ext[16384] = "";
  CL_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL));
  const char *names[2] = {"cl_intel_split_work_group_barrier", "cl_intel_concurrent_dispatch"};
  for (int i = 0; i < 2; i++)
    if (!strstr(ext, names[i]))
      FAIL("CL_DEVICE_EXTENSIONS lacks %s: '%s'", names[i], ext);
  size_t need = 0;
  CL_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &need));
  if (need != strlen(ext) + 1)
    FAIL("CL_DEVICE_EXTENSIONS size %zu, string of %zu", need, strlen(ext));
  char ver[64] = "";
  clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
  if (strncmp(ver, "OpenCL 3", 8) == 0) {
    cl_name_version v[256];
    size_t bytes = 0;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, sizeof v, v, &bytes));
    for (int i = 0; i < 2; i++) {
      int seen = 0;
      for (size_t j = 0; j < bytes / sizeof *v; j++)
        seen |= strcmp(v[j].name, names[i]) == 0;
      if (!seen)
        FAIL("CL_DEVICE_EXTENSIONS_WITH_VERSION lacks %s", names[i]);
    }
  }
  if (strstr(ext, "cl_khr_spirv_queries")) { /* the SPIR-V side: what the layer lowers */
    const char *spv[64];
    cl_uint caps[512];
    size_t ns = 0, nc = 0;
    CL_OK(clGetDeviceInfo(dev, 0x12BA /* CL_DEVICE_SPIRV_EXTENSIONS_KHR */, sizeof spv, spv, &ns));
    CL_OK(clGetDeviceInfo(dev, 0x12BB /* CL_DEVICE_SPIRV_CAPABILITIES_KHR */, sizeof caps, caps, &nc));
    int seen = 0, cap = 0;
    for (size_t j = 0; j < ns / sizeof *spv; j++)
      seen |= strcmp(spv[j], "SPV_INTEL_split_barrier") == 0;
    for (size_t j = 0; j < nc / sizeof *caps; j++)
      cap |= caps[j] == 6141u; /* SplitBarrierINTEL */
    if (!seen || !cap)
      FAIL("cl_khr_spirv_queries: SPV_INTEL_split_barrier %s, capability 6141 %s",
           seen ? "listed" : "missing", cap ? "listed" : "missing");
    printf("SPIR-V queries: SPV_INTEL_split_barrier and SplitBarrierINTEL listed\n");
  }
  void *fn = clGetExtensionFunctionAddressForPlatform(plat, "clGetKernelMaxConcurrentWorkGroupCountINTEL");
  if (!fn)
    FAIL("clGetKernelMaxConcurrentWorkGroupCountINTEL not found");
  printf("PASS: %s\n", ext);
  return 0;
}

/* ---- split ---- */

/* Each work-item publishes into local memory, arrives, does work of its own, waits, then reads
 * its neighbour's value; two phases. BARRIER selects plain barrier() (the reference). The
 * extension's pragma, as its examples write it: no compiler warns of it through the layer. */
static const char split_src[] =
    "#pragma OPENCL EXTENSION cl_intel_split_work_group_barrier : enable\n"
    "#ifdef BARRIER\n"
    "#define ARRIVE(f) barrier(f)\n"
    "#define WAIT(f)\n"
    "#else\n"
    "#define ARRIVE(f) intel_work_group_barrier_arrive(f)\n"
    "#define WAIT(f) intel_work_group_barrier_wait(f)\n"
    "#endif\n"
    "kernel void split(global uint *out, local uint *tile) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n"
    "  tile[l] = g * 7u + 1u;\n"
    "  ARRIVE(CLK_LOCAL_MEM_FENCE);\n"
    "  uint own = g * g + 3u;\n"
    "  WAIT(CLK_LOCAL_MEM_FENCE);\n"
    "  uint a = tile[(l + 1u) % n];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  tile[l] = a + own;\n"
    "  ARRIVE(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  WAIT(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  out[g] = tile[(l + n - 1u) % n];\n"
    "}\n";

static void run_split(cl_program p, cl_mem out, size_t groups, size_t local)
{
  cl_int err;
  cl_kernel k = clCreateKernel(p, "split", &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof out, &out));
  CL_OK(clSetKernelArg(k, 1, local * sizeof(cl_uint), NULL));
  size_t global = groups * local;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  clReleaseKernel(k);
}

static int case_split(void)
{
  const size_t groups = 3, local = 16, n = groups * local;
  cl_program ps = build(split_src, NULL, NULL), pb = build(split_src, "-D BARRIER", NULL);
  cl_mem a = buffer(n * 4), b = buffer(n * 4);
  run_split(ps, a, groups, local);
  run_split(pb, b, groups, local);
  cl_uint x[48], y[48];
  CL_OK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++) {
    size_t g0 = i / local * local, l = i % local, prev = g0 + (l + local - 1) % local;
    cl_uint want = (cl_uint)((g0 + l) * 7 + 1) + (cl_uint)(prev * prev + 3);
    if (x[i] != y[i] || x[i] != want)
      FAIL("work-item %zu: split %u, barrier %u, expected %u", i, x[i], y[i], want);
  }
  char log[16384] = "";
  clGetProgramBuildInfo(ps, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  if (strstr(log, "unknown or does not require pragma"))
    FAIL("the extension's pragma drew a warning:\n%s", log);
  size_t srclen = 0;
  CL_OK(clGetProgramInfo(ps, CL_PROGRAM_SOURCE, 0, NULL, &srclen));
  if (srclen != sizeof split_src)
    FAIL("CL_PROGRAM_SOURCE is %zu bytes, the program's source %zu", srclen, sizeof split_src);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseProgram(ps);
  clReleaseProgram(pb);
  printf("PASS: split barriers equal plain barriers over %zu work-items\n", n);
  return 0;
}

/* ---- spirv ---- */

static int case_spirv(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    FAIL("cannot open %s", path);
  unsigned char il[65536];
  size_t len = fread(il, 1, sizeof il, f);
  fclose(f);
  cl_int err;
  cl_program p = clCreateProgramWithIL(ctx, il, len, &err);
  if (err != CL_SUCCESS) {
    char ilv[128] = "";
    clGetDeviceInfo(dev, CL_DEVICE_IL_VERSION, sizeof ilv - 1, ilv, NULL);
    if (!ilv[0]) {
      printf("SKIP: the device takes no SPIR-V (clCreateProgramWithIL: %d)\n", err);
      return SKIP;
    }
    FAIL("clCreateProgramWithIL: %d on a device that takes '%s'", err, ilv);
  }
  err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    FAIL("SPIR-V build failed (%d):\n%s", err, log);
  }
  const size_t groups = 4, local = 64, n = groups * local;
  cl_mem out = buffer(n * 4);
  cl_kernel k = clCreateKernel(p, "k", &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof out, &out));
  size_t global = n;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  cl_uint x[256];
  CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++) {
    size_t next = i / local * local + (i % local + 1) % local;
    if (x[i] != (cl_uint)(next * 3 + 1))
      FAIL("work-item %zu: %u, expected %u", i, x[i], (cl_uint)(next * 3 + 1));
  }
  clReleaseKernel(k);
  clReleaseMemObject(out);
  clReleaseProgram(p);
  printf("PASS: the SPIR-V split barrier kernel over %zu work-items\n", n);
  return 0;
}

/* ---- cl_intel_concurrent_dispatch ---- */

/* valid[] gets intel_is_device_barrier_valid() of every work-item. Under concurrent dispatch,
 * `rounds` rounds of a ring: each group's work-item 0 writes its slot, a device barrier, then
 * every work-item checks the next group's slot; a second barrier before the next round's
 * writes. errors[0] counts wrong reads, errors[1] the first one (group << 16 | round). */
static const char device_src[] =
    /* what a program declares where the compiler lacks the built-ins (Intel's CPU runtime) */
    "void __attribute__((overloadable)) intel_device_barrier(cl_mem_fence_flags flags);\n"
    "bool __attribute__((overloadable)) intel_is_device_barrier_valid(void);\n"
    "kernel void ring(global uint *valid, global uint *slots, global uint *errors, uint rounds) {\n"
    "  uint g = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2));\n"
    "  uint n = get_num_groups(0) * get_num_groups(1) * get_num_groups(2);\n"
    "  uint l = get_local_id(0) + get_local_size(0) * get_local_id(1);\n"
    "  size_t gid = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
    "  bool ok = intel_is_device_barrier_valid();\n"
    "  valid[gid] = ok ? 1u : 0u;\n"
    "  if (!ok) return;\n"
    "  for (uint r = 1; r <= rounds; r++) {\n"
    "    if (l == 0) slots[g] = r * 1000003u + g;\n"
    "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    uint next = (g + 1u) % n, got = slots[next];\n"
    "    if (got != r * 1000003u + next && atomic_inc(&errors[0]) == 0u) errors[1] = g << 16 | r;\n"
    "#if __OPENCL_C_VERSION__ >= 200\n" /* the form with a scope: OpenCL C 2.0 and later */
    "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device);\n"
    "#else\n"
    "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "#endif\n"
    "  }\n"
    "}\n";

#define MAX_GROUPS 65536 /* the most groups the ring's buffers hold */

static max_count_fn max_count(void)
{
  max_count_fn fn = (max_count_fn)clGetExtensionFunctionAddressForPlatform(
      plat, "clGetKernelMaxConcurrentWorkGroupCountINTEL");
  if (!fn)
    FAIL("clGetKernelMaxConcurrentWorkGroupCountINTEL not found");
  return fn;
}

static cl_kernel ring_kernel(cl_program *prog, cl_mem *valid, cl_mem *slots, cl_mem *errors,
                             size_t items, cl_uint rounds)
{
  cl_int err;
  *prog = build(device_src, NULL, NULL);
  cl_kernel k = clCreateKernel(*prog, "ring", &err);
  CL_OK(err);
  *valid = buffer(items * 4);
  *slots = buffer(MAX_GROUPS * 4);
  *errors = buffer(8);
  CL_OK(clSetKernelArg(k, 0, sizeof *valid, valid));
  CL_OK(clSetKernelArg(k, 1, sizeof *slots, slots));
  CL_OK(clSetKernelArg(k, 2, sizeof *errors, errors));
  CL_OK(clSetKernelArg(k, 3, sizeof rounds, &rounds));
  return k;
}

static void expect_valid(cl_mem valid, size_t items, cl_uint want)
{
  cl_uint *v = malloc(items * 4);
  CL_OK(clEnqueueReadBuffer(q, valid, CL_TRUE, 0, items * 4, v, 0, NULL, NULL));
  for (size_t i = 0; i < items; i++)
    if (v[i] != want)
      FAIL("work-item %zu: intel_is_device_barrier_valid() = %u, expected %u", i, v[i], want);
  free(v);
}

/* dispatch_unset (type 0 never set) and dispatch_default (set to DEFAULT). */
static int case_not_concurrent(int set)
{
  const size_t local = 8, groups = 5, items = local * groups;
  cl_program p;
  cl_mem valid, slots, errors;
  cl_kernel k = ring_kernel(&p, &valid, &slots, &errors, items, 3);
  cl_uint nargs = 0;
  CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  if (nargs != 4)
    FAIL("CL_KERNEL_NUM_ARGS = %u, the kernel declares 4", nargs);
  cl_uint x = 0;
  if (clSetKernelArg(k, 4, sizeof x, &x) != CL_INVALID_ARG_INDEX)
    FAIL("clSetKernelArg(4) on a 4-argument kernel is not CL_INVALID_ARG_INDEX");
  if (set) {
    cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL;
    CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
    type = 7;
    if (clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type) !=
        CL_INVALID_VALUE)
      FAIL("dispatch type 7 accepted");
  }
  size_t global = items; /* more groups than could ever run at once: fine when not concurrent */
  for (int i = 0; i < 2; i++)
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  expect_valid(valid, items, 0);
  printf("PASS: dispatch %s: intel_is_device_barrier_valid() false in all %zu work-items\n",
         set ? "default" : "unset", items);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

static void ring_check(cl_kernel k, cl_mem valid, cl_mem errors, cl_uint dims, const size_t *global,
                       const size_t *local, size_t items, cl_uint rounds)
{
  unsigned zero[2] = {0, 0};
  CL_OK(clEnqueueWriteBuffer(q, errors, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
  CL_OK(clEnqueueNDRangeKernel(q, k, dims, NULL, global, local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  expect_valid(valid, items, 1);
  cl_uint e[2];
  CL_OK(clEnqueueReadBuffer(q, errors, CL_TRUE, 0, sizeof e, e, 0, NULL, NULL));
  if (e[0])
    FAIL("%u stale reads across intel_device_barrier (first: group %u, round %u of %u)", e[0],
         e[1] >> 16, e[1] & 0xffff, rounds);
}

static int case_concurrent(void)
{
  const size_t local = 8;
  const cl_uint rounds = 200;
  cl_program p;
  cl_mem valid, slots, errors;
  cl_kernel k = ring_kernel(&p, &valid, &slots, &errors, MAX_GROUPS * local, rounds);
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  max_count_fn fn = max_count();
  size_t most = 0;
  if (fn(q, k, 1, NULL, &local, NULL) != CL_INVALID_VALUE)
    FAIL("the query with no result pointer is not CL_INVALID_VALUE");
  if (fn(q, k, 1, NULL, NULL, &most) != CL_INVALID_WORK_GROUP_SIZE)
    FAIL("the query with no local size is not CL_INVALID_WORK_GROUP_SIZE");
  CL_OK(fn(q, k, 1, NULL, &local, &most));
  printf("clGetKernelMaxConcurrentWorkGroupCountINTEL(local %zu) = %zu\n", local, most);
  if (most < 1 || most > MAX_GROUPS)
    FAIL("a count of %zu (the test takes 1 to %d)", most, MAX_GROUPS);
  size_t again = 0;
  CL_OK(fn(q, k, 1, NULL, &local, &again));
  if (again != most)
    FAIL("the same query answered %zu, then %zu", most, again);
  /* every count up to the answer, 1-D */
  for (size_t g = 1; g <= most; g = g < 4 ? g + 1 : g * 2 > most && g < most ? most : g * 2) {
    size_t global = g * local;
    ring_check(k, valid, errors, 1, &global, &local, global, rounds);
    printf("  %zu groups x %zu: %u rounds of intel_device_barrier, every read right\n", g, local,
           rounds);
  }
  /* 2-D: most groups as a 2 x (most / 2) range of 4 x 2 work-items */
  if (most >= 2) {
    size_t l2[2] = {4, 2}, g2[2] = {4 * 2, 2 * (most / 2)};
    size_t m2 = 0;
    CL_OK(fn(q, k, 2, NULL, l2, &m2));
    if (m2 >= most / 2 * 2) {
      ring_check(k, valid, errors, 2, g2, l2, g2[0] * g2[1], rounds);
      printf("  2-D range %zu x %zu of %zu x %zu: every read right\n", g2[0], g2[1], l2[0], l2[1]);
    }
  }
  /* the extension's errors */
  size_t over = (most + 1) * local;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &over, &local, 0, NULL, NULL) != CL_INVALID_VALUE)
    FAIL("a concurrent dispatch of %zu groups (the query said %zu) is not CL_INVALID_VALUE",
         most + 1, most);
  /* a group count whose product wraps to 0 in 64 bits, and a local size that does */
  size_t huge_g[3] = {local, local << 40, (size_t)1 << 40}, huge_l[3] = {local, local, 1};
  if (clEnqueueNDRangeKernel(q, k, 3, NULL, huge_g, huge_l, 0, NULL, NULL) != CL_INVALID_VALUE)
    FAIL("a concurrent dispatch of 1 x 2^40 x 2^40 groups is not CL_INVALID_VALUE");
  size_t wrap_l[3] = {(size_t)1 << 32, (size_t)1 << 32, 1}, n_wrap = 0;
  if (fn(q, k, 3, NULL, wrap_l, &n_wrap) != CL_INVALID_WORK_GROUP_SIZE)
    FAIL("the query for groups of 2^32 x 2^32 work-items is not CL_INVALID_WORK_GROUP_SIZE");
  size_t global = local;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) !=
      CL_INVALID_WORK_GROUP_SIZE)
    FAIL("a concurrent dispatch with no local size is not CL_INVALID_WORK_GROUP_SIZE");
  size_t ragged = local + 1;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &ragged, &local, 0, NULL, NULL) !=
      CL_INVALID_WORK_GROUP_SIZE)
    FAIL("a concurrent dispatch of %zu work-items in groups of %zu is not "
         "CL_INVALID_WORK_GROUP_SIZE", ragged, local);
  /* back to default: not valid again, and any group count runs */
  type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &over, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  expect_valid(valid, over, 0);
  clReleaseKernel(k);
  clReleaseProgram(p);
  printf("PASS: concurrent dispatch\n");
  return 0;
}

static int case_helper(void)
{
  static const char src[] = "void sync_all(void) { intel_device_barrier(CLK_GLOBAL_MEM_FENCE); }\n"
                            "kernel void k(global uint *x) { sync_all(); x[0] = 1; }\n";
  cl_int err;
  cl_program p = build(src, NULL, &err);
  if (err == CL_SUCCESS)
    FAIL("a device barrier in a helper function built");
  char log[32768] = "";
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  if (!strstr(log, "only in a kernel function's own body"))
    FAIL("the build log does not say why:\n%s", log);
  clReleaseProgram(p);
  printf("PASS: the build log says why\n");
  return 0;
}

/* Kernel "k" of src, its argument 0 a buffer of `bytes` zeros. */
static cl_kernel kernel_k(const char *src, size_t bytes, cl_program *p, cl_mem *buf)
{
  cl_int err;
  *p = build(src, NULL, NULL);
  cl_kernel k = clCreateKernel(*p, "k", &err);
  CL_OK(err);
  *buf = buffer(bytes);
  CL_OK(clSetKernelArg(k, 0, sizeof *buf, buf));
  return k;
}

/* Checked mode: group 1 never reaches the device barrier the others wait at. */
static int case_deadlock(void)
{
  static const char src[] =
      "kernel void k(global uint *x) {\n"
      "  if (get_group_id(0) != 1) {\n"
      "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  }\n"
      "  x[get_global_id(0)] = 1;\n"
      "}\n";
  cl_program p;
  cl_mem x;
  cl_kernel k = kernel_k(src, 4096, &p, &x);
  cl_int err;
  const size_t local = 4;
  size_t most = 0;
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  CL_OK(max_count()(q, k, 1, NULL, &local, &most));
  if (most < 2) {
    printf("SKIP: one group at a time on this device (the case needs two)\n");
    return SKIP;
  }
  size_t global = 2 * local;
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  clFinish(q);
  if (err == CL_SUCCESS)
    FAIL("a device barrier that group 1 never reached was not reported");
  printf("PASS: refused with %d (the report is on stderr)\n", err);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* Checked mode: concurrent dispatches whose wait list holds a user event the program completes
 * only after the enqueue returns (the enqueue must not wait for it): one whose groups all reach
 * the device barrier runs once the event is set; one that group 1 skips is reported after the
 * dispatch ended (at clFinish, on stderr) and the kernel's next dispatch returns the error. */
static void on_alarm(int sig)
{
  (void)sig;
  static const char msg[] = "FAIL: a checked concurrent dispatch waiting for a user event hung\n";
  if (write(1, msg, sizeof msg - 1) < 0)
    _exit(2);
  _exit(1);
}

static int case_user_event(void)
{
  static const char src[] =
      "kernel void k(global uint *x, uint skip) {\n"
      "  if (get_group_id(0) != skip) {\n"
      "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  }\n"
      "  x[get_global_id(0)] += 1;\n"
      "}\n";
  signal(SIGALRM, on_alarm);
  alarm(60);
  cl_program p;
  cl_mem x;
  cl_kernel k = kernel_k(src, 4096, &p, &x);
  const size_t local = 4;
  size_t most = 0;
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL, none = 2;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  CL_OK(clSetKernelArg(k, 1, sizeof none, &none));
  CL_OK(max_count()(q, k, 1, NULL, &local, &most));
  if (most < 2) {
    printf("SKIP: one group at a time on this device (the case needs two)\n");
    return SKIP;
  }
  size_t global = 2 * local;
  cl_int err;
  for (cl_uint skip = 2; skip >= 1; skip--) { /* 2: nobody skips; 1: group 1 does */
    CL_OK(clSetKernelArg(k, 1, sizeof skip, &skip));
    cl_event user = clCreateUserEvent(ctx, &err), done = NULL;
    CL_OK(err);
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &user, &done));
    printf("enqueued behind a user event (%s)\n", skip == 2 ? "every group" : "group 1 skips");
    CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
    CL_OK(clWaitForEvents(1, &done));
    CL_OK(clFinish(q));
    clReleaseEvent(done);
    clReleaseEvent(user);
  }
  cl_uint got[8];
  CL_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 8; i++)
    if (got[i] != 2)
      FAIL("x[%d] = %u after two dispatches (expected 2)", i, got[i]);
  CL_OK(clSetKernelArg(k, 1, sizeof none, &none));
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  clFinish(q);
  if (err == CL_SUCCESS)
    FAIL("the dispatch after one that group 1 skipped did not return its report's error");
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  alarm(0);
  printf("PASS: user events in checked dispatches: no hang, the report after the dispatch "
         "(%d), the next dispatch runs\n", err);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* The order of the extension's conformance test: the count queried right after clCreateKernel,
 * no argument set yet (a buffer, a __local, a uint, a float4, a 12-byte struct); the same count
 * once they are set; then a dispatch of that many groups runs. An argument left unset is still
 * the driver's CL_INVALID_KERNEL_ARGS at the dispatch. */
static int case_query_first(void)
{
  static const char src[] =
      "typedef struct { int a, b, c; } three;\n"
      "kernel void k(global uint *x, local uint *tmp, uint add, float4 v, three t) {\n"
      "  tmp[get_local_id(0)] = add + (uint)v.x + (uint)t.c;\n"
      "  intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  x[get_global_id(0)] = tmp[get_local_id(0)];\n"
      "}\n";
  cl_int err;
  cl_program p = build(src, NULL, NULL);
  cl_kernel k = clCreateKernel(p, "k", &err);
  CL_OK(err);
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  const size_t local = 4;
  size_t first = 0, after = 0;
  CL_OK(max_count()(q, k, 1, NULL, &local, &first));
  if (first < 1)
    FAIL("the query before the arguments answered %zu", first);
  cl_mem x = buffer(4096);
  cl_uint add = 5;
  cl_float4 v = {{2.0f, 0, 0, 0}};
  struct { cl_int a, b, c; } t = {0, 0, 3};
  CL_OK(clSetKernelArg(k, 0, sizeof x, &x));
  CL_OK(clSetKernelArg(k, 1, local * sizeof(cl_uint), NULL));
  CL_OK(clSetKernelArg(k, 2, sizeof add, &add));
  CL_OK(clSetKernelArg(k, 3, sizeof v, &v));
  size_t global = first * local;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL) == CL_SUCCESS)
    FAIL("a dispatch with argument 4 unset was accepted");
  CL_OK(clSetKernelArg(k, 4, sizeof t, &t));
  CL_OK(max_count()(q, k, 1, NULL, &local, &after));
  if (after != first)
    FAIL("the query answered %zu before the arguments were set and %zu after", first, after);
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  cl_uint got[64];
  size_t n = global < 64 ? global : 64;
  CL_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, n * sizeof *got, got, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++)
    if (got[i] != 10)
      FAIL("x[%zu] = %u (expected 10)", i, got[i]);
  printf("PASS: the count queried before the arguments (%zu), the same after, a dispatch of it "
         "ran\n", first);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* A device-barrier program compiled (clCompileProgram) and linked (clLinkProgram): its kernel
 * shows the user's 3 arguments, and a concurrent dispatch of the count the query gives runs
 * with every group's write seen by its neighbour across intel_device_barrier. */
static int case_link(void)
{
  static const char src[] =
      "kernel void k(global uint *x, global uint *y, uint n) {\n"
      "  uint g = get_group_id(0);\n"
      "  if (get_local_id(0) == 0) x[g] = g + 1;\n"
      "  intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  y[get_global_id(0)] = x[(g + 1) % n];\n"
      "}\n";
  cl_int err;
  const char *s = src;
  cl_program c = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  CL_OK(err);
  CL_OK(clCompileProgram(c, 1, &dev, NULL, 0, NULL, NULL, NULL, NULL));
  cl_program p = clLinkProgram(ctx, 1, &dev, NULL, 1, &c, NULL, NULL, &err);
  CL_OK(err);
  cl_kernel k = clCreateKernel(p, "k", &err);
  CL_OK(err);
  cl_uint nargs = 0;
  CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  if (nargs != 3)
    FAIL("the linked kernel shows %u arguments (it has 3)", nargs);
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  const size_t local = 4;
  size_t most = 0;
  CL_OK(max_count()(q, k, 1, NULL, &local, &most));
  if (most > MAX_GROUPS)
    most = MAX_GROUPS;
  size_t global = most * local;
  cl_mem x = buffer(4 * most), y = buffer(4 * global);
  cl_uint n = (cl_uint)most;
  CL_OK(clSetKernelArg(k, 0, sizeof x, &x));
  CL_OK(clSetKernelArg(k, 1, sizeof y, &y));
  CL_OK(clSetKernelArg(k, 2, sizeof n, &n));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  cl_uint got[MAX_GROUPS * 4];
  CL_OK(clEnqueueReadBuffer(q, y, CL_TRUE, 0, 4 * global, got, 0, NULL, NULL));
  for (size_t i = 0; i < global; i++)
    if (got[i] != (cl_uint)((i / local + 1) % most + 1))
      FAIL("work-item %zu read %u across intel_device_barrier (expected %zu)", i, got[i],
           (i / local + 1) % most + 1);
  printf("PASS: a compiled and linked program: 3 arguments shown, %zu groups dispatched\n", most);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseProgram(c);
  return 0;
}

/* Checked mode: a split barrier a work-item waits at without arriving (undefined behaviour by
 * cl_intel_split_work_group_barrier) is reported by the device library, naming the line; the
 * CTest entry looks for the report. */
static int case_split_misuse(void)
{
  static const char src[] =
      "kernel void k(global uint *out) {\n"
      "  uint lid = get_local_id(0);\n"
      "  if (lid != 5u)\n"
      "    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);\n"
      "  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = lid;\n"
      "}\n";
  cl_program p;
  cl_mem out;
  cl_kernel k = kernel_k(src, 64 * 4, &p, &out);
  size_t global = 16, local = 16;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clFinish(q));
  printf("the kernel ended (the device's report, if any, is above)\n");
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* Whether the layer that OPENCL_LAYERS names is mapped into this process, after the loader
 * started (a loader without layer support ignores the variable). */
static int layer_loaded(void)
{
  const char *want = getenv("OPENCL_LAYERS");
  if (!want || !*want)
    return 0;
  const char *base = strrchr(want, '/') ? strrchr(want, '/') + 1 : want;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 1; /* cannot tell: the cases say what they find */
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    found = strstr(line, base) != NULL;
  fclose(f);
  return found;
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2)
    FAIL("usage: test_layer CASE [SPV]");
  const char *c = argv[1];
  open_device();
  if (!layer_loaded()) { /* the loader ignored OPENCL_LAYERS: no layer to test */
    printf("SKIP: the OpenCL loader did not load the layer OPENCL_LAYERS names (%s): a loader "
           "without layer support (the CUDA toolkit's libOpenCL.so is one; use ocl-icd or the "
           "Khronos loader)\n", getenv("OPENCL_LAYERS") ? getenv("OPENCL_LAYERS") : "unset");
    return SKIP;
  }
  int rc;
  if (!strcmp(c, "ext"))
    rc = case_ext();
  else if (!strcmp(c, "split"))
    rc = case_split();
  else if (!strcmp(c, "spirv") && argc > 2)
    rc = case_spirv(argv[2]);
  else if (!strcmp(c, "unset") || !strcmp(c, "default"))
    rc = case_not_concurrent(!strcmp(c, "default"));
  else if (!strcmp(c, "concurrent"))
    rc = case_concurrent();
  else if (!strcmp(c, "helper"))
    rc = case_helper();
  else if (!strcmp(c, "deadlock"))
    rc = case_deadlock();
  else if (!strcmp(c, "link"))
    rc = case_link();
  else if (!strcmp(c, "query_first"))
    rc = case_query_first();
  else if (!strcmp(c, "user_event"))
    rc = case_user_event();
  else if (!strcmp(c, "split_misuse"))
    rc = case_split_misuse();
  else
    FAIL("unknown case '%s' (or spirv without its .spv)", c);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return rc;
}
