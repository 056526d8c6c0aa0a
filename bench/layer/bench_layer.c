/*
 * wgsync-bench-layer: what the OpenCL layer (layer/) costs. On the device WGSYNC_DEVICE names
 * (a substring of "platform device"; else the first GPU, else the first device):
 *
 *   wgsync-bench-layer calls
 *       host time per call of the OpenCL calls every program makes, none of them using the
 *       extensions: clSetKernelArg, clEnqueueNDRangeKernel of an empty one-group kernel (plus
 *       clFinish every 64), clGetDeviceInfo(CL_DEVICE_NAME). Run it with and without
 *       OPENCL_LAYERS (bench/layer/bench_layer.sh alternates them): the difference is the layer's.
 *   wgsync-bench-layer barrier LOCAL [GROUPS [LABEL]]
 *       per-barrier time of intel_device_barrier through the layer (a plain OpenCL program under
 *       concurrent dispatch, GROUPS groups, default: what the layer's query answers) next to
 *       wgsync's own grid barrier (wgs_launch, fixed groups) at the same shape, in one process:
 *       both timed the same way, by profiling events around a kernel of R1 and of R2 barriers,
 *       (t(R2) - t(R1)) / (R2 - R1), so launch costs cancel (the device barrier's row is named
 *       LABEL: "native" where the driver's own serves it). 7 alternating repeats after a
 *       warm-up; median, min, max. Needs OPENCL_LAYERS.
 *   wgsync-bench-layer launch LOCAL GROUPS
 *       host time per launch (clFinish every 64) of a one-line kernel: without the extensions
 *       (the layer passes it), with intel_is_device_barrier_valid() under default dispatch (a
 *       state bound) and under concurrent dispatch (a wgsync launch). Needs OPENCL_LAYERS.
 * Output: CSV rows on stdout, with the device, driver and date.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wgsync_opencl.h"

#ifndef CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL 0x4257
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL 1
#endif
typedef cl_int(CL_API_CALL *max_count_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                          const size_t *, size_t *);

#define REPEATS 7
#define DIE(...)                                                                              \
  do {                                                                                        \
    fprintf(stderr, "bench-layer: " __VA_ARGS__);                                             \
    fprintf(stderr, "\n");                                                                    \
    exit(1);                                                                                  \
  } while (0)
#define CL_OK(call)                                                                           \
  do {                                                                                        \
    cl_int e_ = (call);                                                                       \
    if (e_ != CL_SUCCESS)                                                                     \
      DIE("%s: %s", #call, wgs_opencl_error_name(e_));                                        \
  } while (0)

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static wgs_device_t *wdev;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static char dev_name[256], driver[128], date[32];

static void open_device(void)
{
  wgs_device_select sel = {-1, -1, getenv("WGSYNC_DEVICE")};
  if (wgs_device_open(&sel, &wdev) != WGS_OK)
    DIE("%s", wgs_last_error());
  dev = wgs_device_opencl_id(wdev);
  ctx = wgs_device_opencl_context(wdev);
  q = wgs_device_opencl_queue(wdev); /* a profiling queue */
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
  clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
}

static void row(const char *what, double *v)
{
  qsort(v, REPEATS, sizeof *v, cmp);
  printf("%s,%s,%s,%s,%s,%.4f,%.4f,%.4f\n", dev_name, driver, date, getenv("OPENCL_LAYERS") ? "layer" : "none",
         what, v[REPEATS / 2], v[0], v[REPEATS - 1]);
}

/* Kernel `name` of src, built plainly, its argument 0 a small buffer. */
static cl_kernel kernel_with_buffer(const char *src, const char *name, cl_program *p, cl_mem *m)
{
  cl_int err;
  *p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CL_OK(err);
  CL_OK(clBuildProgram(*p, 1, &dev, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(*p, name, &err);
  CL_OK(err);
  *m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof *m, m));
  return k;
}

static int calls(void)
{
  static const char *src = "kernel void empty(global uint *x, uint v) { if (v == 7u) x[0] = v; }";
  cl_program p;
  cl_mem m;
  cl_kernel k = kernel_with_buffer(src, "empty", &p, &m);
  const int n = 20000, launches = 4096;
  double set[REPEATS], enq[REPEATS], info[REPEATS];
  size_t one = 1;
  for (int r = -1; r < REPEATS; r++) { /* r = -1: warm-up */
    double t0 = now_us();
    for (cl_uint i = 0; i < (cl_uint)n; i++)
      CL_OK(clSetKernelArg(k, 1, sizeof i, &i));
    double t1 = now_us();
    for (int i = 0; i < launches; i++) {
      CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
      if (i % 64 == 63)
        CL_OK(clFinish(q));
    }
    CL_OK(clFinish(q));
    double t2 = now_us();
    char name[256];
    for (int i = 0; i < n; i++)
      CL_OK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
    double t3 = now_us();
    if (r >= 0) {
      set[r] = (t1 - t0) / n;
      enq[r] = (t2 - t1) / launches;
      info[r] = (t3 - t2) / n;
    }
  }
  printf("device,driver,date,layer,what,median,min,max\n");
  row("clSetKernelArg us/call", set);
  row("clEnqueueNDRangeKernel of 1 item (+ clFinish every 64) us/launch", enq);
  row("clGetDeviceInfo(NAME) us/call", info);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* ---- intel_device_barrier through the layer, wgsync's grid barrier ---- */

static const char *layer_src =
    /* the prototypes Intel's CPU runtime needs for its native built-ins (the layer drops them) */
    "void __attribute__((overloadable)) intel_device_barrier(cl_mem_fence_flags flags);\n"
    "kernel void rounds(global uint *x, uint n) {\n"
    "  for (uint r = 0; r < n; r++)\n"
    "    intel_device_barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  if (get_global_id(0) == 0) x[0] = n;\n"
    "}\n";
static const char *wgsync_src =
    "kernel void rounds(global uint *state, global uint *x, uint n) {\n"
    "  wgs_env env;\n"
    "  if (!wgs_discover(state, &env)) return;\n"
    "  for (uint r = 0; r < n; r++)\n"
    "    wgs_grid_barrier(&env);\n"
    "  if (get_global_id(0) == 0) x[0] = n;\n"
    "}\n";

static double event_us(cl_event e)
{
  cl_ulong a = 0, b = 0;
  CL_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
  CL_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
  clReleaseEvent(e);
  return (double)(b - a) / 1e3;
}

static double layer_kernel_us(cl_kernel k, size_t groups, size_t local, cl_uint n)
{
  size_t global = groups * local;
  cl_event e;
  CL_OK(clSetKernelArg(k, 1, sizeof n, &n));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &e));
  CL_OK(clFinish(q));
  return event_us(e);
}

static double wgsync_kernel_us(wgs_state_t *st, wgs_kernel_t *k, size_t groups, size_t local,
                               cl_uint n)
{
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = local;
  cfg.groups = (uint32_t)groups;
  cfg.discovery = WGS_DISCOVERY_FIXED;
  cfg.time_kernel = 1;
  wgs_launch_result res;
  if (wgs_kernel_set_arg(k, 2, sizeof n, &n) != WGS_OK || wgs_launch(st, k, &cfg, &res) != WGS_OK)
    DIE("wgsync launch: %s", wgs_last_error());
  return res.kernel_us;
}

static int barrier(size_t local, size_t groups, const char *label)
{
  if (!getenv("OPENCL_LAYERS"))
    DIE("barrier: run with OPENCL_LAYERS naming libwgsync-layer.so");
  cl_program p;
  cl_mem m;
  cl_kernel k = kernel_with_buffer(layer_src, "rounds", &p, &m);
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  cl_platform_id plat;
  CL_OK(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL));
  max_count_fn fn = (max_count_fn)clGetExtensionFunctionAddressForPlatform(
      plat, "clGetKernelMaxConcurrentWorkGroupCountINTEL");
  if (!fn)
    DIE("clGetKernelMaxConcurrentWorkGroupCountINTEL not found: is the layer loaded?");
  size_t most = 0;
  cl_uint zero = 0;
  CL_OK(clSetKernelArg(k, 1, sizeof zero, &zero));
  double tq = now_us();
  CL_OK(fn(q, k, 1, NULL, &local, &most));
  double query_us = now_us() - tq;
  if (groups == 0)
    groups = most;
  wgs_program_t *wp;
  wgs_kernel_t *wk;
  wgs_state_t *st;
  wgs_buffer_t *wb;
  if (wgs_program_build(wdev, wgsync_src, NULL, 0, &wp) != WGS_OK ||
      wgs_kernel_create(wp, "rounds", &wk) != WGS_OK ||
      wgs_state_create(wdev, (uint32_t)groups, &st) != WGS_OK ||
      wgs_buffer_create(wdev, 64, &wb) != WGS_OK || wgs_kernel_set_arg_buffer(wk, 1, wb) != WGS_OK)
    DIE("wgsync: %s", wgs_last_error());
  /* R2 - R1 barriers take milliseconds, well above a launch's jitter, on a CPU's short barriers
   * too */
  cl_device_type type_of = 0;
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type_of, &type_of, NULL);
  int cpu = (type_of & CL_DEVICE_TYPE_CPU) != 0;
  cl_uint r1 = cpu ? 1000 : 1000, r2 = cpu ? 41000 : 11000;
  double lay[REPEATS], own[REPEATS];
  for (int r = -1; r < REPEATS; r++) {
    double a = layer_kernel_us(k, groups, local, r2) - layer_kernel_us(k, groups, local, r1);
    double b = wgsync_kernel_us(st, wk, groups, local, r2) - wgsync_kernel_us(st, wk, groups, local, r1);
    if (r >= 0) {
      lay[r] = a / (r2 - r1);
      own[r] = b / (r2 - r1);
    }
  }
  printf("device,driver,date,layer,what,median,min,max\n");
  char what[200];
  snprintf(what, sizeof what, "intel_device_barrier %s (%zu groups x %zu) us/barrier",
           label, groups, local);
  row(what, lay);
  snprintf(what, sizeof what, "wgs_grid_barrier by wgs_launch fixed (%zu groups x %zu) us/barrier",
           groups, local);
  row(what, own);
  printf("# the layer's clGetKernelMaxConcurrentWorkGroupCountINTEL(local %zu) = %zu, first "
         "call %.0f us (the probe)\n", local, most, query_us);
  wgs_buffer_release(wb);
  wgs_state_release(st);
  wgs_kernel_release(wk);
  wgs_program_release(wp);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

/* ---- what a launch costs through the layer ---- */

/* Host time per launch (enqueue, clFinish every 64) of k over groups x local, median of 7. */
static void launch_rate(cl_kernel k, size_t groups, size_t local, double *out)
{
  size_t global = groups * local;
  const int launches = 2048;
  for (int r = -1; r < REPEATS; r++) {
    double t0 = now_us();
    for (int i = 0; i < launches; i++) {
      CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
      if (i % 64 == 63)
        CL_OK(clFinish(q));
    }
    CL_OK(clFinish(q));
    if (r >= 0)
      out[r] = (now_us() - t0) / launches;
  }
}

static int launches(size_t local, size_t groups)
{
  if (!getenv("OPENCL_LAYERS"))
    DIE("launch: run with OPENCL_LAYERS naming libwgsync-layer.so");
  static const char *plain_src = "kernel void k(global uint *x) { if (get_global_id(0) == 0) x[0] = 1; }";
  static const char *ext_src =
      "kernel void k(global uint *x) { if (intel_is_device_barrier_valid() && get_global_id(0) == 0) x[0] = 1; }";
  cl_program pp, pe;
  cl_mem mp, me;
  cl_kernel kp = kernel_with_buffer(plain_src, "k", &pp, &mp);
  cl_kernel ke = kernel_with_buffer(ext_src, "k", &pe, &me);
  double plain[REPEATS], dflt[REPEATS], conc[REPEATS];
  launch_rate(kp, groups, local, plain);
  launch_rate(ke, groups, local, dflt);
  cl_uint type = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL;
  CL_OK(clSetKernelExecInfo(ke, CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL, sizeof type, &type));
  launch_rate(ke, groups, local, conc);
  printf("device,driver,date,layer,what,median,min,max\n");
  char what[200];
  snprintf(what, sizeof what, "a kernel without the extensions (%zu groups x %zu) us/launch", groups, local);
  row(what, plain);
  snprintf(what, sizeof what, "the same with intel_is_device_barrier_valid() - default dispatch (%zu x %zu) us/launch", groups, local);
  row(what, dflt);
  snprintf(what, sizeof what, "the same - concurrent dispatch (%zu x %zu) us/launch", groups, local);
  row(what, conc);
  clReleaseMemObject(mp);
  clReleaseMemObject(me);
  clReleaseKernel(kp);
  clReleaseKernel(ke);
  clReleaseProgram(pp);
  clReleaseProgram(pe);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2 || (strcmp(argv[1], "calls") && strcmp(argv[1], "barrier") && strcmp(argv[1], "launch")) ||
      (strcmp(argv[1], "calls") && argc < 3) || (!strcmp(argv[1], "launch") && argc < 4))
    DIE("usage: wgsync-bench-layer calls | barrier LOCAL [GROUPS [LABEL]] | launch LOCAL GROUPS");
  open_device();
  int rc = !strcmp(argv[1], "calls")    ? calls()
           : !strcmp(argv[1], "launch") ? launches(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10))
                                        : barrier(strtoul(argv[2], NULL, 10),
                                                  argc > 3 ? strtoul(argv[3], NULL, 10) : 0,
                                                  argc > 4 ? argv[4] : "via the layer");
  wgs_device_close(wdev);
  return rc;
}
