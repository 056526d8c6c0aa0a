/*
 * One list of device-API cases (the OpenCL-CTS habit), run against every backend present:
 *   test_backends BACKEND CASE     BACKEND: opencl (the default OpenCL device), cuda (cuda:0), or
 *                                  null (the device that runs no code: the host core's cases)
 * Each case drives the device through wgsync.h only (wgs_device_open, the occupancy tools, the
 * self-test and latency), so both backends answer the same questions the same way. A backend
 * that is absent from the build or the machine is skipped (77), saying why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "reduce_check.h"
#include "wgsync.h"
#ifdef WGSYNC_HAVE_CUDA
#include "wgsync_cuda.h"
#endif

static const char *backend_name;

/* The device's info names the backend asked for, and its limits are plausible. */
static int t_info(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)dev;
  int cuda = !strcmp(backend_name, "cuda"), null = !strcmp(backend_name, "null");
  int vulkan = !strcmp(backend_name, "vulkan");
  CHECK_MSG(in->backend == (cuda     ? WGS_BACKEND_CUDA
                            : null   ? WGS_BACKEND_NULL
                            : vulkan ? WGS_BACKEND_VULKAN
                                     : WGS_BACKEND_OPENCL),
            "backend %d", (int)in->backend);
  CHECK(in->compute_units > 0 && in->max_work_group_size > 0 && in->name[0]);
#ifdef WGSYNC_HAVE_CUDA
  CHECK_EQ(wgs_cuda_device_ordinal(dev), cuda ? 0 : -1);
#endif
  /* the name wgs_device_id gives opens the same device, on its backend (one parse of names) */
  char id[32];
  CHECK_OK(wgs_device_id(in, id, sizeof id));
  CHECK_STATUS(wgs_device_id(in, id, 3), WGS_EINVAL);
  CHECK_OK(wgs_device_id(in, id, sizeof id));
  wgs_device_select sel = {-1, -1, id};
  wgs_device_t *again = NULL;
  CHECK_OK(wgs_device_open(&sel, &again));
  wgs_device_info in2;
  CHECK_OK(wgs_device_get_info(again, &in2));
  CHECK(in2.backend == in->backend && in2.platform_index == in->platform_index &&
        in2.device_index == in->device_index && !strcmp(in2.name, in->name));
  wgs_device_close(again);
  printf("%s: %s (%s, %s), %u compute units\n", backend_name, in->name, id,
         wgs_backend_name(in->backend), in->compute_units);
  return 0;
}

/* "Zero means default": the over-provisioned launch is at least one group per compute unit
 * and never grows with the group size. */
static int t_default_groups(wgs_device_t *dev, const wgs_device_info *in)
{
  uint32_t g64 = wgs_default_groups(dev, 64), g256 = wgs_default_groups(dev, 256);
  uint32_t g0 = wgs_default_groups(dev, 0);
  printf("default groups: %u at 64, %u at 256, %u at 0\n", g64, g256, g0);
  CHECK(g256 >= in->compute_units && g64 >= g256);
  CHECK_EQ(g0, g256); /* 0 is the default local size, 256 */
  CHECK_EQ(wgs_default_groups(NULL, 256), 0);
  /* the default local size, the one every backend and the CLI take: 256 capped at the device's */
  size_t want = in->max_work_group_size < 256 ? in->max_work_group_size : 256;
  printf("default local size: %zu (device maximum %zu)\n", wgs_default_local_size(dev),
         in->max_work_group_size);
  CHECK_EQ(wgs_default_local_size(dev), want);
  CHECK_EQ(wgs_default_local_size(NULL), 0);
  return 0;
}

/* Discovery finds at least one group and at most what was launched; every id once. */
static int t_discover(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  wgs_launch_result r;
  CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
  printf("discover: %u participants of %u launched\n", r.participants, r.launched);
  CHECK(r.participants >= 1 && r.participants <= r.launched);
  return 0;
}

/* Every discovery protocol (the ticket and spin locks of Fig. 3, with and without the §5.4
 * delay, and the lock-free one) finds participants, the same way on every backend. */
static int t_discover_locks(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  const wgs_lock locks[] = {WGS_LOCK_TICKET, WGS_LOCK_SPIN, WGS_LOCK_FREE, WGS_LOCK_TICKET};
  const char *names[] = {"ticket", "spin", "free", "ticket, delay 2"};
  for (int i = 0; i < 4; i++) {
    wgs_occupancy_config c;
    memset(&c, 0, sizeof c);
    c.local_size = 64;
    c.lock = locks[i];
    c.delay = i == 3 ? 2 : 0;
    c.close_wait_us = -1; /* the device's default close wait */
    wgs_launch_result r;
    CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
    printf("discover (%s): %u participants of %u launched\n", names[i], r.participants, r.launched);
    CHECK(r.participants >= 1 && r.participants <= r.launched);
  }
  return 0;
}

/* Discovery launch after launch on one state's epochs: every run finds participants. */
static int t_discover_repeat(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.close_wait_us = -1; /* the device's default close wait */
  uint32_t lo = UINT32_MAX, hi = 0;
  for (int i = 0; i < 20; i++) {
    wgs_launch_result r;
    CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
    lo = r.participants < lo ? r.participants : lo;
    hi = r.participants > hi ? r.participants : hi;
  }
  printf("20 discovery runs: %u to %u participants\n", lo, hi);
  CHECK(lo >= 1);
  return 0;
}

/* A launch of fewer groups than fit closes its poll once every launched group has polled, not
 * after the close wait: a 3 s wait that ran would make the call last at least that long. A
 * first call without the wait builds the tools' program and pipeline, which on a loaded
 * machine took lavapipe seconds, outside the time measured. */
static int t_discover_all_polled(wgs_device_t *dev, const wgs_device_info *in)
{
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.groups = in->compute_units > 2 ? 2 : 1; /* fewer than fit: a compute unit holds one */
  wgs_launch_result r;
  CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
  c.close_wait_us = 3e6;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("discover, %u groups launched, close wait 3 s: %u participants in %.3f s\n", r.launched,
         r.participants, s);
  CHECK(r.launched == c.groups && r.participants == c.groups);
  CHECK(s < 1.5);
  return 0;
}

/* The largest local memory a group can have launches, and discovery runs with it. */
static int t_max_local_mem(wgs_device_t *dev, const wgs_device_info *in)
{
  size_t bytes = 0;
  CHECK_OK(wgs_occupancy_max_local_mem(dev, 64, &bytes));
  printf("largest local memory per group: %zu bytes (device reports %llu)\n", bytes,
         (unsigned long long)in->local_mem_bytes);
  CHECK(bytes >= 1024);
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.local_mem_bytes = bytes;
  wgs_launch_result r;
  CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
  printf("discover with it: %u participants\n", r.participants);
  CHECK(r.participants >= 1);
  return 0;
}

/* The bound search agrees with discovery: every participant of a discovery run fits. */
static int t_bound(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.timeout_ms = 300;
  uint32_t bound = 0;
  CHECK_OK(wgs_occupancy_bound(dev, &c, 0, NULL, NULL, &bound));
  wgs_launch_result r;
  CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
  printf("bound %u, discovery %u\n", bound, r.participants);
  CHECK(bound >= 1 && r.participants <= bound);
  return 0;
}

/* Recall: the bound by the unsafe search, then discovery over 4x that many groups finds all of
 * them, with the ticket lock of Fig. 3 and with the lock-free protocol, in every one of 3 runs
 * each (Sorensen et al. 2016 §5.1's measure; the device's close wait). */
static int t_recall(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.close_wait_us = -1;
  uint32_t bound = 0;
  CHECK_OK(wgs_occupancy_bound(dev, &c, 0, NULL, NULL, &bound));
  CHECK(bound >= 1);
  const wgs_lock locks[2] = {WGS_LOCK_TICKET, WGS_LOCK_FREE};
  for (int l = 0; l < 2; l++)
    for (int run = 0; run < 3; run++) {
      c.lock = locks[l];
      c.groups = 4 * bound;
      wgs_launch_result r;
      CHECK_OK(wgs_occupancy_discover(dev, &c, &r));
      printf("%s, run %d: %u of %u launched took part; bound %u\n", l ? "lock-free" : "ticket",
             run, r.participants, r.launched, bound);
      CHECK_EQ(r.participants, bound);
    }
  return 0;
}

static int selftest(wgs_device_t *dev, wgs_barrier kind, int split)
{
  wgs_selftest_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 64;
  c.rounds = 50;
  c.barrier = kind;
  c.split = split;
  wgs_selftest_result r;
  CHECK_OK(wgs_barrier_selftest(dev, &c, &r));
  printf("self-test: %u groups, %u barriers, %u stale reads\n", r.launch.participants, r.rounds,
         r.mismatches);
  CHECK_EQ(r.mismatches, 0);
  CHECK_EQ(r.groups_done, r.launch.participants);
  CHECK(r.launch.participants >= 1);
  return 0;
}
static int t_selftest_counter(wgs_device_t *d, const wgs_device_info *in) { (void)in; return selftest(d, WGS_BARRIER_COUNTER, 0); }
static int t_selftest_xf(wgs_device_t *d, const wgs_device_info *in) { (void)in; return selftest(d, WGS_BARRIER_XF, 0); }
static int t_selftest_split(wgs_device_t *d, const wgs_device_info *in) { (void)in; return selftest(d, WGS_BARRIER_COUNTER, 1); }

/* The unchecked self-test over more groups than can run at once, every one taking part:
 * nothing bounds its spins, so a checked probe goes first and reports the deadlock instead of
 * the launch hanging (the CUDA tools lacked that probe before they shared the core's). */
static int t_selftest_unchecked_too_many(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  wgs_selftest_config c;
  memset(&c, 0, sizeof c);
  c.local_size = 32;
  c.groups = 40000;
  c.rounds = 5;
  c.discovery = WGS_DISCOVERY_ALL;
  c.unchecked = 1;
  c.timeout_ms = 300;
  wgs_selftest_result r;
  int rc = wgs_barrier_selftest(dev, &c, &r);
  printf("unchecked, 40000 groups: %s: %s\n", wgs_status_name(rc), wgs_last_error());
  CHECK_EQ(rc, WGS_EDEADLOCK);
  return 0;
}

/* Latency over as many groups as compute units (resident on every backend), full or split
 * (arrive then wait at once). */
static int latency(wgs_device_t *dev, const wgs_device_info *in, int split)
{
  wgs_latency_config c;
  memset(&c, 0, sizeof c);
  c.groups = in->compute_units;
  c.local_size = 64;
  c.rounds = 100;
  c.repeats = 3;
  c.split = split;
  wgs_latency_result r;
  CHECK_OK(wgs_barrier_latency(dev, &c, &r));
  printf("%slatency: %.3f us per barrier over %u groups\n", split ? "split " : "", r.median_us, c.groups);
  CHECK(r.median_us > 0);
  return 0;
}
static int t_latency(wgs_device_t *d, const wgs_device_info *in) { return latency(d, in, 0); }
static int t_latency_split(wgs_device_t *d, const wgs_device_info *in) { return latency(d, in, 1); }

/* Bad input is a clear error on every backend. */
static int t_bad(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)in;
  /* how many devices there are, asked with no room (a device is open: there is one) */
  size_t all = 0, got = 0;
  CHECK_MSG(wgs_device_list(NULL, 0, &all) == WGS_OK, "%s", wgs_last_error());
  wgs_device_info first;
  CHECK_OK(wgs_device_list(&first, 1, &got));
  CHECK(all >= 1 && got == 1);
  printf("wgs_device_list(NULL, 0): %zu device(s)\n", all);
  wgs_launch_result r;
  CHECK_EQ(wgs_occupancy_discover(dev, NULL, &r), WGS_EINVAL);
  CHECK(strstr(wgs_last_error(), "cfg"));
  CHECK_EQ(wgs_barrier_latency(NULL, NULL, NULL), WGS_EINVAL);
  wgs_device_t *d2 = NULL;
  wgs_device_select s = {-1, -1, "cuda:"};
  CHECK_EQ(wgs_device_open(&s, &d2), WGS_EINVAL);
  CHECK(strstr(wgs_last_error(), "expected 'cuda' or 'cuda:N'") && d2 == NULL);
  s.name = "cuda:4096";
  int rc = wgs_device_open(&s, &d2);
  CHECK_MSG(rc == WGS_ENODEV || rc == WGS_EUNSUPPORTED, "rc %d: %s", rc, wgs_last_error());
  printf("cuda:4096: %s\n", wgs_last_error());
  return 0;
}

/* The backends find each other through the libraries' tables (src/device.c): with the CUDA
 * backend linked (statically, or as libwgsync_cuda.so beside libwgsync.so), "cuda:0" reaches
 * it (a device, or "no CUDA device" on a machine without one), never "no CUDA backend"; without
 * it, that is the answer, by name. */
static int t_link(wgs_device_t *dev, const wgs_device_info *in)
{
  (void)dev;
  (void)in;
  wgs_device_select s = {-1, -1, "cuda:0"};
  wgs_device_t *d = NULL;
  int rc = wgs_device_open(&s, &d);
  printf("cuda:0 from this program: %s: %s\n", wgs_status_name(rc), rc ? wgs_last_error() : "opened");
#ifdef WGSYNC_HAVE_CUDA
  CHECK_MSG(rc == WGS_OK || rc == WGS_ENODEV, "the CUDA backend was not found: %s", wgs_last_error());
#else
  CHECK_EQ(rc, WGS_EUNSUPPORTED);
  CHECK(strstr(wgs_last_error(), "no CUDA backend"));
#endif
  wgs_device_close(d);
  return 0;
}

#ifdef WGS_TEST_CUDA_KERNEL
int wgs_test_cuda_count_kernel(wgs_device_t *dev, wgs_kernel_t **k); /* tests/cuda/backend_kernel.cu */
#endif
static const char *COUNT_CL =
    "__kernel void count(__global uint *wgs, __global uint *out, uint rounds)\n{\n  wgs_env e;\n"
    "  if (wgs_discover(wgs, &e)) {\n    for (uint r = 0u; r < rounds; ++r) {\n"
    "      if (e.local_id == 0u)\n        atomic_inc(&out[0]);\n      wgs_grid_barrier(&e);\n"
    "    }\n    if (e.local_id == 0u && e.group_id == 0u)\n      out[1] = e.num_groups;\n  }\n}\n";

#ifdef WGS_TEST_SPV_DIR
/* The words of a SPIR-V module of WGS_TEST_SPV_DIR (compiled at build time): 0 when it cannot be
 * read (said on stderr). */
static size_t read_spv(const char *file, uint32_t *words, size_t cap)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", WGS_TEST_SPV_DIR, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 0;
  }
  size_t n = fread(words, sizeof *words, cap, f);
  fclose(f);
  return n;
}
#endif

/* A SPIR-V module of WGS_TEST_SPV_DIR, built with options (split barriers lowered by the
 * library) and its entry point "main" made a kernel. */
static int vulkan_module(wgs_device_t *dev, const char *file, const char *options,
                         wgs_program_t **prog, wgs_kernel_t **k)
{
#ifdef WGS_TEST_SPV_DIR
  static uint32_t words[1 << 18];
  size_t n = read_spv(file, words, sizeof words / sizeof *words);
  if (n == 0)
    return WGS_EINVAL;
  int rc = wgs_program_build_il(dev, words, n, options, prog);
  return rc != WGS_OK ? rc : wgs_kernel_create(*prog, "main", k);
#else
  (void)dev, (void)file, (void)options, (void)prog, (void)k;
  fprintf(stderr, "this test program was built without the Vulkan test shaders\n");
  return WGS_EUNSUPPORTED;
#endif
}

/* A Vulkan module's kernels and its structure (the case is Vulkan's: SKIP elsewhere): a module of
 * five entry points, one of them with an 88-character name, gives five kernels; the same module
 * with its first OpEntryPoint naming an id that is no function (a type), and one without its
 * OpMemoryModel, are refused naming why, before any driver sees them (lavapipe crashed on the
 * first at the launch's pipeline). */
static int t_modules(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: a Vulkan case\n");
    return WGS_SKIP;
  }
#ifdef WGS_TEST_SPV_DIR
  static uint32_t w[4096];
  size_t n = read_spv("five_entries.spv", w, sizeof w / sizeof *w);
  CHECK(n > 0);
  static const char *const names[] = {
      "first", "second", "third", "fourth",
      "a_compute_entry_point_whose_name_is_eighty_eight_characters_long_and_still_a_kernel_name"};
  wgs_program_t *prog = NULL;
  CHECK_OK(wgs_program_build_il(dev, w, n, NULL, &prog));
  for (int i = 0; i < 5; i++) {
    wgs_kernel_t *k = NULL;
    CHECK_MSG(wgs_kernel_create(prog, names[i], &k) == WGS_OK, "kernel '%s': %s", names[i],
              wgs_last_error());
    wgs_kernel_release(k);
  }
  wgs_program_release(prog);
  printf("five entry points, five kernels (one named with 88 characters)\n");
  /* the first OpEntryPoint's function id replaced by OpTypeVoid's result id */
  static uint32_t bad[4096];
  memcpy(bad, w, n * sizeof *w);
  uint32_t void_id = 0;
  size_t entry = 0;
  for (size_t i = 5; i < n; i += bad[i] >> 16) {
    if ((bad[i] & 0xffffu) == 19u)
      void_id = bad[i + 1];
    if ((bad[i] & 0xffffu) == 15u && !entry)
      entry = i;
  }
  CHECK(void_id != 0 && entry != 0);
  bad[entry + 2] = void_id;
  prog = NULL;
  CHECK_STATUS(wgs_program_build_il(dev, bad, n, NULL, &prog), WGS_ESPIRV);
  CHECK(prog == NULL && strstr(wgs_last_error(), "names function") &&
        strstr(wgs_last_error(), "does not define"));
  printf("refused: %s\n", wgs_last_error());
  /* OpMemoryModel (word 5 onwards: OpCapability, then it) made an OpNop of the same length */
  memcpy(bad, w, n * sizeof *w);
  size_t mm = 5 + (bad[5] >> 16);
  CHECK((bad[mm] & 0xffffu) == 14u);
  for (size_t i = mm, end = mm + (bad[mm] >> 16); i < end; i++)
    bad[i] = 1u << 16; /* OpNop, one word each */
  CHECK_STATUS(wgs_program_build_il(dev, bad, n, NULL, &prog), WGS_ESPIRV);
  CHECK_MSG(strstr(wgs_last_error(), "OpMemoryModel"), "%s", wgs_last_error());
  printf("refused: %s\n", wgs_last_error());
  return 0;
#else
  (void)dev;
  printf("SKIP: built without the Vulkan test shaders\n");
  return WGS_SKIP;
#endif
}

/* The README's shader (tests/kernels/persist.comp) on a Vulkan device with one busy process
 * beside it (forked here: a spinning child, as CI may meet a compile beside it): 100 and 1000
 * rounds of a persistent loop, checked and unchecked, each either right (x[i] == rounds) with
 * WGS_OK, or an error; never WGS_OK with a wrong x. On lavapipe the 100 rounds must complete at
 * any worker count, the 1000 with no more workers than cores and no busy process but ours (the
 * waits spend the driver's loop budget slowly enough: device/vulkan/wgsync.glsl); beyond, a cut
 * must be the error. */
/* Runnable threads beside this one (/proc/loadavg's "running/total": the fewest of 10 looks
 * 20 ms apart, so that a thread that ran for a moment is not counted), and the cores. */
static long others_running(long *cores)
{
  *cores = sysconf(_SC_NPROCESSORS_ONLN);
  long fewest = -1;
  for (int i = 0; i < 10; i++) {
    long running = 0;
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
      if (fscanf(f, "%lf %lf %lf %ld/", &a, &b, &c, &running) != 4)
        running = 0;
      fclose(f);
    }
    if (fewest < 0 || running < fewest)
      fewest = running;
    usleep(20000);
  }
  return fewest > 1 ? fewest - 1 : 0;
}

static int persistent_runs(wgs_device_t *dev, const wgs_device_info *in)
{
  int failed = 0;
  long cores, others = others_running(&cores);
  /* the load: one busy process (ours) beside the workers, on as many cores */
  int one_busy = (long)in->compute_units + others <= cores + 1;
  printf("%ld other runnable thread(s) on %ld cores, %u workers\n", others, cores,
         in->compute_units);
  const uint32_t n = 4096;
  static uint32_t x[4096];
  for (int checked = 0; checked < 2 && !failed; checked++) {
    wgs_program_t *prog = NULL;
    wgs_kernel_t *k = NULL;
    int rc = vulkan_module(dev, checked ? "persist_1.spv" : "persist_0.spv",
                           checked ? "-DWGS_CHECKED=1" : "", &prog, &k);
    if (rc != WGS_OK) {
      printf("FAIL: the module: %s\n", wgs_last_error());
      failed = 1;
      break;
    }
    wgs_state_t *st = NULL;
    wgs_buffer_t *xb = NULL;
    uint32_t groups = wgs_default_groups(dev, 64);
    CHECK_OK(wgs_state_create(dev, groups, &st));
    CHECK_OK(wgs_buffer_create(dev, sizeof x, &xb));
    CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, xb));
    CHECK_OK(wgs_kernel_set_arg(k, 2, sizeof n, &n));
    for (uint32_t iters = 100; iters <= 1000 && !failed; iters *= 10) {
      memset(x, 0, sizeof x);
      CHECK_OK(wgs_buffer_write(xb, 0, sizeof x, x));
      CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof iters, &iters));
      wgs_launch_config cfg;
      wgs_launch_config_init(&cfg);
      cfg.local_size = 64;
      cfg.groups = groups;
      wgs_launch_result r;
      rc = wgs_launch(st, k, &cfg, &r);
      CHECK_OK(wgs_buffer_read(xb, 0, sizeof x, x));
      uint32_t wrong = 0;
      for (uint32_t i = 0; i < n; i++)
        wrong += x[i] != iters;
      printf("%s, %u rounds, %u groups x 64: %s, %u of %u values wrong%s%s\n",
             checked ? "checked" : "unchecked", iters, r.participants, wgs_status_name(rc), wrong,
             n, rc ? ": " : "", rc ? wgs_last_error() : "");
      /* with more workers than cores, or more busy processes beside them than our one, 1000
       * barriers need more waiting than the budget holds (measured: device/vulkan/wgsync.glsl):
       * there the cut must be reported */
      int must = iters <= 100 || (in->compute_units <= (uint32_t)cores && one_busy);
      if (rc == WGS_OK && wrong)
        printf("FAIL: WGS_OK with wrong values\n");
      else if (rc != WGS_OK && !must)
        CHECK_MSG(rc == WGS_EDEADLOCK && strstr(wgs_last_error(), "65,535"),
                  "not the driver's cut: %s", wgs_last_error());
      failed |= (rc == WGS_OK && wrong != 0) || (must && (rc != WGS_OK || wrong != 0));
    }
    wgs_buffer_release(xb);
    wgs_state_release(st);
    wgs_kernel_release(k);
    wgs_program_release(prog);
  }
  CHECK_MSG(!failed, "a persistent loop did not complete beside a busy process");
  return 0;
}
static int t_persistent_loaded(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: a Vulkan case\n");
    return WGS_SKIP;
  }
  pid_t parent = getpid(), busy = fork();
  if (busy == 0) { /* the busy process: gone with this test, however it ends */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(0);
    alarm(600);
    for (volatile unsigned long spin = 0;; spin++)
      ;
  }
  CHECK(busy > 0);
  int rc = persistent_runs(dev, in);
  kill(busy, SIGKILL);
  waitpid(busy, NULL, 0);
  return rc;
}

/* The Vulkan form of COUNT_CL, tests/kernels/count.comp, checked or not. */
static int vulkan_count(wgs_device_t *dev, int checked, wgs_program_t **prog, wgs_kernel_t **k)
{
  return vulkan_module(dev, checked ? "count_1.spv" : "count_0.spv",
                       checked ? "-DWGS_CHECKED=1" : "", prog, k);
}

/* Grid-barrier crossings (a participating group passing one barrier) with a message-passing
 * check across each, plain and split alternating, 0 stale reads: 10^6 in one launch on a GPU;
 * 2 x 10^5 on a CPU device (about 90 s; 2-3 min beside a busy process), in launches of 250 barriers (lavapipe ends a launch's loops after 65,535
 * iterations in all, the waits included: device/vulkan/wgsync.glsl; groups of 64 hold about 1 s
 * of waiting, groups of 8 an eighth of it, which a busy process beside the test exhausted), 400
 * launches of 2 groups of 64 on 2 cores. WGS_TEST_CROSSINGS sets another count. */
static int t_crossings(wgs_device_t *dev, const wgs_device_info *in)
{
  const char *env = getenv("WGS_TEST_CROSSINGS");
  uint64_t crossings = 0, want = env ? strtoull(env, NULL, 10) : in->is_cpu ? 200000 : 1000000;
  unsigned launches = 0;
  while (crossings < want) {
    wgs_selftest_config c;
    memset(&c, 0, sizeof c);
    c.local_size = in->is_cpu ? 64 : 256;
    c.rounds = in->is_cpu ? 250 : 1000;
    c.close_wait_us = -1; /* the device's default */
    c.split = launches & 1;
    wgs_selftest_result r;
    int rc = wgs_barrier_selftest(dev, &c, &r);
    CHECK_MSG(rc == WGS_OK, "launch %u: %s: %s", launches, wgs_status_name(rc), wgs_last_error());
    CHECK_EQ(r.mismatches, 0);
    CHECK_EQ(r.groups_done, r.launch.participants);
    crossings += (uint64_t)r.launch.participants * r.rounds;
    CHECK_MSG(++launches <= 100000, "%u launches made only %llu crossings", launches,
              (unsigned long long)crossings);
  }
  printf("%llu grid-barrier crossings in %u launches (plain and split), 0 stale reads\n",
         (unsigned long long)crossings, launches);
  return 0;
}

/* A work-group split barrier in a Vulkan shader (tests/kernels/split.comp): the module with
 * OpControlBarrierArriveEXT / WaitEXT (SPV_EXT_split_barrier), lowered by wgs_program_build_il,
 * gives the same words as its version with plain barriers, and both equal the host's. */
static int t_split_wg(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: the Vulkan split-barrier case (OpenCL: split.*, spirv.*)\n");
    return WGS_SKIP;
  }
#ifdef WGS_TEST_SPV_DIR
  char path[1024];
  snprintf(path, sizeof path, "%s/split_ext.spv", WGS_TEST_SPV_DIR);
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    printf("SKIP: %s was not made (spirv-as, spirv-dis and Python make it)\n", path);
    return WGS_SKIP;
  }
  fclose(probe);
#endif
  uint32_t groups = in->compute_units, local = 64, rounds = 40, n = groups * local;
  uint32_t *want = calloc(n, 4), *got = calloc(n, 4);
  CHECK(want && got);
  for (uint32_t g = 0; g < groups; g++)
    for (uint32_t l = 0; l < local; l++) {
      uint32_t acc = 0, nb = (l + 1) % local;
      for (uint32_t r = 0; r < rounds; r++)
        acc += (r * 7u + nb * 3u + g) * 5u + ((l * 13u + r) & 255u);
      want[g * local + l] = acc;
    }
  static const char *files[2] = {"split_0.spv", "split_ext.spv"};
  for (int f = 0; f < 2; f++) {
    wgs_program_t *prog = NULL;
    wgs_kernel_t *k = NULL;
    wgs_state_t *st = NULL;
    wgs_buffer_t *out = NULL;
    CHECK_OK(vulkan_module(dev, files[f], "", &prog, &k));
    printf("%s: %s\n", files[f], wgs_program_build_log(prog));
    CHECK(f == 0 || strstr(wgs_program_build_log(prog), "split barriers lowered"));
    CHECK_OK(wgs_state_create(dev, groups, &st));
    CHECK_OK(wgs_buffer_create(dev, (size_t)n * 4, &out));
    memset(got, 0xff, (size_t)n * 4);
    CHECK_OK(wgs_buffer_write(out, 0, (size_t)n * 4, got));
    CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, out));
    CHECK_OK(wgs_kernel_set_arg(k, 2, sizeof rounds, &rounds));
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = local;
    cfg.groups = groups;
    cfg.discovery = WGS_DISCOVERY_FIXED;
    CHECK_OK(wgs_launch(st, k, &cfg, NULL));
    CHECK_OK(wgs_buffer_read(out, 0, (size_t)n * 4, got));
    for (uint32_t i = 0; i < n; i++)
      CHECK_MSG(got[i] == want[i], "%s: word %u is %u, expected %u", files[f], i, got[i], want[i]);
    printf("%s: %u groups x %u invocations x %u rounds as the host computes\n", files[f], groups,
           local, rounds);
    wgs_buffer_release(out);
    wgs_state_release(st);
    wgs_kernel_release(k);
    wgs_program_release(prog);
  }
  free(want);
  free(got);
  return 0;
}

/* Grid reductions on a Vulkan device: tests/kernels/reduce.comp (portable_reduce's checks),
 * checked and not, at local sizes 8 and 40, 20 rounds (lavapipe's loop budget: the waits of
 * 200 barrier instances); a second launch gives the float sum the same bits. OpenCL and CUDA run
 * portable_reduce itself (test_opencl reduce, test_wgsync_cuda reduce). */
static int t_reduce(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: test_opencl and test_wgsync_cuda run the reductions on %s\n", backend_name);
    return WGS_SKIP;
  }
  uint32_t rounds = 20, cap = wgs_default_groups(dev, 8);
  wgs_state_t *st = NULL;
  wgs_buffer_t *bad = NULL, *sums = NULL;
  CHECK_OK(wgs_state_create(dev, cap, &st));
  CHECK_OK(wgs_buffer_create(dev, 16, &bad));
  CHECK_OK(wgs_buffer_create(dev, (size_t)rounds * cap * 4, &sums));
  uint32_t *h = malloc((size_t)rounds * cap * 4), *first = malloc((size_t)rounds * cap * 4);
  CHECK(h && first);
  for (int checked = 0; checked < 2; checked++) {
    wgs_program_t *prog = NULL;
    wgs_kernel_t *k = NULL;
    CHECK_OK(vulkan_module(dev, checked ? "reduce_1.spv" : "reduce_0.spv",
                           checked ? "-DWGS_CHECKED=1" : "", &prog, &k));
    CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, bad));
    CHECK_OK(wgs_kernel_set_arg_buffer(k, 2, sums));
    CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof rounds, &rounds));
    size_t locals[2] = {8, 40};
    for (int l = 0; l < 2; l++) {
      unsigned before = 0;
      for (int again = 0; again < 2; again++) {
        uint32_t zero[4] = {0, 0, 0, 0}, got[4];
        CHECK_OK(wgs_buffer_write(bad, 0, sizeof zero, zero));
        wgs_launch_config cfg;
        wgs_launch_config_init(&cfg);
        cfg.local_size = locals[l];
        cfg.groups = wgs_default_groups(dev, locals[l]) < cap ? wgs_default_groups(dev, locals[l]) : cap;
        cfg.timeout_ms = 2000;
        wgs_launch_result r;
        CHECK_OK(wgs_launch(st, k, &cfg, &r));
        CHECK_OK(wgs_buffer_read(bad, 0, sizeof got, got));
        unsigned n = r.participants;
        CHECK_OK(wgs_buffer_read(sums, 0, (size_t)rounds * n * 4, h));
        CHECK_EQ(reduce_launch_report(checked ? "checked" : "unchecked", n, (unsigned)locals[l],
                                      rounds, got, h, first, &before, again), 0);
      }
    }
    wgs_kernel_release(k);
    wgs_program_release(prog);
  }
  free(h);
  free(first);
  wgs_buffer_release(bad);
  wgs_buffer_release(sums);
  wgs_state_release(st);
  return 0;
}

/* The one launch API on every backend: a state, a kernel handle (an OpenCL program's kernel, a
 * CUDA kernel wrapped), a buffer, arguments by index, a synchronous launch and two asynchronous
 * ones with their result; the kernel's count must be participants x rounds. */
static int t_launch(wgs_device_t *dev, const wgs_device_info *in)
{
  wgs_program_t *prog = NULL;
  wgs_kernel_t *k = NULL;
  int null = in->backend == WGS_BACKEND_NULL; /* runs no code: the counts stay 0 */
  if (in->backend == WGS_BACKEND_CUDA) {
#ifdef WGS_TEST_CUDA_KERNEL
    CHECK_OK(wgs_test_cuda_count_kernel(dev, &k));
#else
    printf("SKIP: this test program has no CUDA kernel\n");
    return WGS_SKIP;
#endif
    CHECK_STATUS(wgs_program_build(dev, COUNT_CL, NULL, 0, &prog), WGS_EUNSUPPORTED);
    printf("program on a CUDA device: %s\n", wgs_last_error());
  } else if (in->backend == WGS_BACKEND_VULKAN) {
    CHECK_STATUS(wgs_program_build(dev, COUNT_CL, NULL, 0, &prog), WGS_EUNSUPPORTED);
    printf("source program on a Vulkan device: %s\n", wgs_last_error());
    CHECK_OK(vulkan_count(dev, 0, &prog, &k));
  } else {
    CHECK_OK(wgs_program_build(dev, COUNT_CL, NULL, 0, &prog));
    CHECK_OK(wgs_kernel_create(prog, "count", &k));
  }
  size_t local = 64;
  wgs_kernel_resources res;
  CHECK_OK(wgs_kernel_get_resources(k, &res)); /* the user's kernel, on every backend */
  CHECK(res.max_local_size >= local);
  uint32_t groups = wgs_default_groups(dev, local), rounds = 100, zero[3] = {0, 0, 0}, got[3];
  wgs_state_t *st = NULL;
  wgs_buffer_t *out = NULL;
  CHECK_OK(wgs_state_create(dev, groups, &st));
  CHECK_OK(wgs_buffer_create(dev, sizeof zero, &out));
  CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, out));
  CHECK_OK(wgs_kernel_set_arg(k, 2, sizeof rounds, &rounds));
  if (in->backend == WGS_BACKEND_VULKAN) { /* its second value: the round to skip, 0 none */
    uint32_t no_skip = 0;
    CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof no_skip, &no_skip));
  }
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = local;
  cfg.groups = groups;
  cfg.time_kernel = 1;
  for (int form = 0; form < 2; form++) {
    CHECK_OK(wgs_buffer_write(out, 0, sizeof zero, zero));
    wgs_launch_result r;
    if (form == 0) {
      CHECK_OK(wgs_launch(st, k, &cfg, &r));
    } else { /* two launches back to back, then the latest's result */
      CHECK_OK(wgs_launch_async(st, k, &cfg));
      CHECK_OK(wgs_launch_async(st, k, &cfg));
      CHECK_OK(wgs_state_result(st, &r));
    }
    CHECK_OK(wgs_buffer_read(out, 0, sizeof got, got));
    uint32_t launches = form == 0 ? 1u : 2u;
    printf("%s launch: %u of %u groups took part, count %u (expected %u x %u x %u), %.1f us\n",
           form == 0 ? "synchronous" : "asynchronous", r.participants, r.launched, got[0],
           launches, r.participants, rounds, r.kernel_us);
    CHECK(r.participants >= 1 && r.participants <= groups && r.launched == groups);
    if (null) { /* the first compute-units groups take part; nothing ran */
      CHECK_EQ(r.participants, in->compute_units < groups ? in->compute_units : groups);
      CHECK(got[0] == 0 && got[1] == 0);
    } else {
      CHECK_EQ(got[1], r.participants);
      CHECK_EQ(got[0], launches * r.participants * rounds);
      if (in->backend == WGS_BACKEND_VULKAN) /* the OR of a uint, an int, a float; then of 0 */
        CHECK_EQ(got[2], 7u);
    }
    CHECK(r.kernel_us > 0 || (null && form == 1)); /* (the null device: no events to time) */
  }
  /* a result with no launch since the last one is refused, by name */
  CHECK_STATUS(wgs_state_result(st, NULL), WGS_EINVAL);
  wgs_buffer_release(out);
  wgs_state_release(st);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  return 0;
}

/* A Vulkan kernel's arguments checked against its shader (tests/kernels/count.comp: buffers at
 * bindings 0 and 1, two 4-byte push constants): each mistake a user makes is refused, naming the
 * argument, where it used to launch with wrong results. file: the module, count_*.spv. */
static int args_of(wgs_device_t *dev, const char *file)
{
  wgs_program_t *prog = NULL;
  wgs_kernel_t *k = NULL;
  printf("%s:\n", file);
  CHECK_OK(vulkan_module(dev, file, "", &prog, &k));
  uint32_t groups = wgs_default_groups(dev, 64), v4 = 1;
  uint64_t v8 = 1;
  wgs_state_t *st = NULL;
  wgs_buffer_t *out = NULL;
  CHECK_OK(wgs_state_create(dev, groups, &st));
  CHECK_OK(wgs_buffer_create(dev, 16, &out));
  uint32_t zeros[4] = {0, 0, 0, 0};
  CHECK_OK(wgs_buffer_write(out, 0, sizeof zeros, zeros));
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  cfg.groups = groups;
#define REFUSED(call, status, words)                                                      \
  do {                                                                                     \
    CHECK_STATUS(call, status);                                                            \
    printf("%s: %s\n", #call, wgs_last_error());                                           \
    CHECK(strstr(wgs_last_error(), words) != NULL);                                        \
  } while (0)
  /* past the last argument; a value on a binding; a buffer where the shader has none */
  REFUSED(wgs_kernel_set_arg(k, 9, 4, &v4), WGS_EINVAL, "takes 4 arguments");
  REFUSED(wgs_kernel_set_arg(k, 1, 4, &v4), WGS_EINVAL, "buffer at binding 1");
  REFUSED(wgs_kernel_set_arg_buffer(k, 2, out), WGS_EINVAL, "no buffer at set 0, binding 2");
  /* the last push constant never set; an 8-byte value for a 4-byte member */
  CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, out));
  CHECK_OK(wgs_kernel_set_arg(k, 2, 4, &v4));
  REFUSED(wgs_launch(st, k, &cfg, NULL), WGS_EINVAL, "argument 3 was never set: it is push-constant member 1");
  CHECK_OK(wgs_kernel_set_arg(k, 3, 8, &v8));
  REFUSED(wgs_launch(st, k, &cfg, NULL), WGS_EINVAL, "argument 3 is 8 bytes, but push-constant member 1 is 4");
  /* the state at a binding the shader does not have */
  CHECK_OK(wgs_kernel_set_arg(k, 3, 4, &v4));
  cfg.state_arg = 2;
  REFUSED(wgs_launch(st, k, &cfg, NULL), WGS_EINVAL, "no buffer at set 0, binding 2 for the state");
#undef REFUSED
  /* and right: 1 round, no skip */
  uint32_t zero = 0;
  CHECK_OK(wgs_kernel_set_arg(k, 3, 4, &zero));
  cfg.state_arg = 0;
  wgs_launch_result r;
  CHECK_OK(wgs_launch(st, k, &cfg, &r));
  uint32_t got[2];
  CHECK_OK(wgs_buffer_read(out, 0, sizeof got, got));
  CHECK_EQ(got[0], r.participants);
  wgs_buffer_release(out);
  wgs_state_release(st);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  return 0;
}

static int t_args(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: the arguments are checked against the shader on Vulkan (other backends: the "
           "driver's own checks)\n");
    return WGS_SKIP;
  }
  /* SPIR-V 1.5 (its entry point lists every global it uses) and 1.3 (only inputs and outputs) */
  if (args_of(dev, "count_0.spv") || args_of(dev, "count_13.spv"))
    return 1;
  /* a uniform buffer at binding 2 (tests/kernels/ubo.comp): wgsync binds storage buffers only */
  wgs_program_t *prog = NULL;
  wgs_kernel_t *k = NULL;
  wgs_buffer_t *buf = NULL;
  wgs_state_t *st = NULL;
  CHECK_OK(vulkan_module(dev, "ubo_0.spv", "", &prog, &k));
  CHECK_OK(wgs_buffer_create(dev, 16, &buf));
  CHECK_OK(wgs_state_create(dev, wgs_default_groups(dev, 64), &st));
  CHECK_STATUS(wgs_kernel_set_arg_buffer(k, 2, buf), WGS_EINVAL);
  printf("ubo_0.spv: %s\n", wgs_last_error());
  CHECK(strstr(wgs_last_error(), "a uniform buffer at set 0, binding 2") != NULL);
  CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, buf));
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  CHECK_STATUS(wgs_launch(st, k, &cfg, NULL), WGS_EINVAL);
  printf("ubo_0.spv: %s\n", wgs_last_error());
  CHECK(strstr(wgs_last_error(), "a uniform buffer at set 0, binding 2") != NULL);
  wgs_state_release(st);
  wgs_buffer_release(buf);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  return 0;
}

/* The tools' kernels on every backend that runs code: each one's resources as the driver says
 * (what `wgsync kernels` prints), within the device's limits; a name the program lacks is an
 * error naming it. The null device has no tools, and says so. */
static int t_tools(wgs_device_t *dev, const wgs_device_info *in)
{
  wgs_program_t *prog = NULL;
  if (in->backend == WGS_BACKEND_NULL) {
    CHECK_STATUS(wgs_tools_program(dev, 0, &prog), WGS_EUNSUPPORTED);
    printf("null: %s\n", wgs_last_error());
    CHECK(prog == NULL);
    return 0;
  }
  static const char *names[] = {"wgs_micro", "wgs_mp", "wgs_latency"};
  for (int checked = 0; checked < 2; checked++) {
    CHECK_OK(wgs_tools_program(dev, checked, &prog));
    wgs_program_t *again = NULL;
    CHECK_OK(wgs_tools_program(dev, checked, &again));
    CHECK(again == prog); /* made once, owned by the device */
    printf("%s build: %s\n", checked ? "checked" : "unchecked", wgs_program_build_log(prog));
    for (unsigned i = 0; i < 3; i++) {
      wgs_kernel_t *k = NULL;
      wgs_kernel_resources r;
      CHECK_OK(wgs_kernel_create(prog, names[i], &k));
      CHECK_OK(wgs_kernel_get_resources(k, &r));
      printf("  %-12s max local %zu, local %llu B, private %llu B, registers %d\n", names[i],
             r.max_local_size, (unsigned long long)r.local_mem_bytes,
             (unsigned long long)r.private_mem_bytes, r.registers);
      CHECK(r.max_local_size >= 1 && r.max_local_size <= in->max_work_group_size);
      CHECK(r.local_mem_bytes <= in->local_mem_bytes);
      if (in->backend == WGS_BACKEND_CUDA) /* compiled with --maxrregcount=32: full occupancy */
        CHECK(r.registers > 0 && r.registers <= 32);
      else
        CHECK_EQ(r.registers, -1);
      wgs_kernel_release(k);
    }
    wgs_kernel_t *k = NULL;
    CHECK_STATUS(wgs_kernel_create(prog, "wgs_no_such_kernel", &k), WGS_ENOKERNEL);
    CHECK(k == NULL && strstr(wgs_last_error(), "wgs_no_such_kernel"));
  }
  wgs_kernel_resources r;
  CHECK_STATUS(wgs_kernel_get_resources(NULL, &r), WGS_EINVAL);
  return 0;
}

/* A missed grid barrier (a checked build, a Vulkan device): participant 1 leaves before the
 * barrier of round 3; the launch fails with WGS_EDEADLOCK naming that barrier and group 1, in
 * bounded time, and the next launch on the same state runs clean. */
static int t_missed(wgs_device_t *dev, const wgs_device_info *in)
{
  if (in->backend != WGS_BACKEND_VULKAN) {
    printf("SKIP: the missed-barrier case is the Vulkan library's (other backends: misuse.*, "
           "cuda.deadlock)\n");
    return WGS_SKIP;
  }
  wgs_program_t *prog = NULL;
  wgs_kernel_t *k = NULL;
  CHECK_OK(vulkan_count(dev, 1, &prog, &k));
  uint32_t groups = in->compute_units >= 2 ? in->compute_units : 2, rounds = 5, skip = 3;
  uint32_t zero[2] = {0, 0};
  wgs_state_t *st = NULL;
  wgs_buffer_t *out = NULL;
  CHECK_OK(wgs_state_create(dev, groups, &st));
  CHECK_OK(wgs_buffer_create(dev, sizeof zero, &out));
  CHECK_OK(wgs_buffer_write(out, 0, sizeof zero, zero));
  CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, out));
  CHECK_OK(wgs_kernel_set_arg(k, 2, sizeof rounds, &rounds));
  CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof skip, &skip));
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  cfg.groups = 2;
  cfg.discovery = WGS_DISCOVERY_FIXED; /* two groups, both running: only the skip can stop them */
  wgs_launch_result r;
  CHECK_STATUS(wgs_launch(st, k, &cfg, &r), WGS_EDEADLOCK);
  printf("missed barrier: %s\n", wgs_last_error());
  /* (with one worker thread group 1 never runs while group 0 waits: then the first barrier) */
  CHECK(strstr(wgs_last_error(), in->compute_units >= 2 ? "barrier instance 2" : "barrier instance 0"));
  CHECK(strstr(wgs_last_error(), "missing group ids: 1 "));
  skip = 0; /* the same state again, clean, with what runs at once */
  cfg.groups = in->compute_units >= 2 ? 2 : 1;
  CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof skip, &skip));
  CHECK_OK(wgs_launch(st, k, &cfg, &r));
  CHECK_EQ(r.participants, cfg.groups);
  wgs_buffer_release(out);
  wgs_state_release(st);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  return 0;
}

static const struct {
  const char *name;
  int (*run)(wgs_device_t *, const wgs_device_info *);
} cases[] = {
    {"info", t_info},
    {"default_groups", t_default_groups},
    {"discover", t_discover},
    {"discover_locks", t_discover_locks},
    {"discover_repeat", t_discover_repeat},
    {"discover_all_polled", t_discover_all_polled},
    {"max_local_mem", t_max_local_mem},
    {"bound", t_bound},
    {"selftest_counter", t_selftest_counter},
    {"selftest_xf", t_selftest_xf},
    {"selftest_split", t_selftest_split},
    {"selftest_unchecked_too_many", t_selftest_unchecked_too_many},
    {"latency", t_latency},
    {"latency_split", t_latency_split},
    {"bad", t_bad},
    {"launch", t_launch},
    {"args", t_args},
    {"reduce", t_reduce},
    {"tools", t_tools},
    {"missed", t_missed},
    {"split_wg", t_split_wg},
    {"crossings", t_crossings},
    {"recall", t_recall},
    {"link", t_link},
    {"modules", t_modules},
    {"persistent_loaded", t_persistent_loaded},
};

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "--list")) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      printf("%s\n", cases[i].name);
    return 0;
  }
  if (argc != 3 || (strcmp(argv[1], "opencl") && strcmp(argv[1], "cuda") && strcmp(argv[1], "null") &&
                    strcmp(argv[1], "vulkan"))) {
    fprintf(stderr, "usage: test_backends opencl|cuda|vulkan|null CASE   (test_backends --list)\n");
    return 2;
  }
  backend_name = argv[1];
  int opencl = !strcmp(backend_name, "opencl");
  wgs_device_select s = {-1, -1, !strcmp(backend_name, "cuda")     ? "cuda:0"
                                 : !strcmp(backend_name, "vulkan") ? "vulkan:0"
                                                                   : "null"};
  wgs_device_t *dev = NULL;
  int rc = wgs_device_open(opencl ? NULL : &s, &dev);
  if (rc == WGS_ENODEV || rc == WGS_EUNSUPPORTED) {
    printf("SKIP: no %s device: %s\n", backend_name, wgs_last_error());
    return WGS_SKIP;
  }
  CHECK_OK(rc);
  wgs_device_info in;
  CHECK_OK(wgs_device_get_info(dev, &in));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(cases[i].name, argv[2])) {
      rc = cases[i].run(dev, &in);
      wgs_device_close(dev);
      if (rc == 0)
        printf("PASS %s.%s\n", backend_name, argv[2]);
      return rc;
    }
  fprintf(stderr, "test_backends: unknown case '%s' (test_backends --list)\n", argv[2]);
  wgs_device_close(dev);
  return 2;
}
