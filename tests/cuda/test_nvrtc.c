/*
 * A kernel compiled at run time by NVRTC and launched as a CUfunction
 * (wgs_cuda_launch_function): plain C, linked with the shared libwgsync_cuda, as a program that
 * loads its kernels from modules would be (CuPy, cuda-python, Numba, Triton).
 *
 *   test_nvrtc compile   NVRTC compiles wgsync.cuh (checked and unchecked); needs no GPU
 *   test_nvrtc launch    message passing across grid barriers with discovery, sync and async
 *                        launches, and a missed barrier reported as WGS_EDEADLOCK (GPU)
 */
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wgsync_cuda.h"

#ifndef WGS_DEVICE_INCLUDE_CUDA
#error "WGS_DEVICE_INCLUDE_CUDA (device/cuda) and WGS_DEVICE_INCLUDE_COMMON must be defined"
#endif

/* Each round every group writes its slot, crosses the barrier, and reads its neighbour's slot:
 * a stale read means the barrier did not order the write before the read. With `skip`, group 1
 * leaves before the first barrier (a checked build reports the deadlock). */
static const char *source =
    "#include \"wgsync.cuh\"\n"
    "extern \"C\" __global__ void mp(unsigned *wgs, unsigned *slot, unsigned *bad,\n"
    "                                unsigned rounds, unsigned skip)\n"
    "{\n"
    "  wgs_env e;\n"
    "  if (wgs_discover(wgs, &e)) {\n"
    "    unsigned g = wgs_get_group_id(&e), n = wgs_get_num_groups(&e);\n"
    "    if (skip && g == 1u) return;\n"
    "    for (unsigned r = 1; r <= rounds; r++) {\n"
    "      if (e.local_id == 0u) slot[g] = r;\n"
    "      wgs_grid_barrier(&e);\n"
    "      if (e.local_id == 0u && *(volatile unsigned *)&slot[(g + 1u) % n] < r)\n"
    "        atomicAdd(bad, 1u);\n"
    "      wgs_grid_barrier(&e);\n"
    "    }\n"
    "  }\n"
    "}\n";

#define NVRTC(call)                                                                          \
  do {                                                                                       \
    nvrtcResult r_ = (call);                                                                 \
    CHECK_MSG(r_ == NVRTC_SUCCESS, "%s", nvrtcGetErrorString(r_));                           \
  } while (0)
/* The driver calls, through the runtime's entry points: the test links no libcuda, so that it
 * loads (and compiles) on machines without a driver. */
static struct {
  CUresult (*load)(CUmodule *, const void *);
  CUresult (*get)(CUfunction *, CUmodule, const char *);
  CUresult (*unload)(CUmodule);
} cu;

static void load_driver(void)
{
  struct { const char *name; void **fn; } e[] = {{"cuModuleLoadData", (void **)&cu.load},
                                                {"cuModuleGetFunction", (void **)&cu.get},
                                                {"cuModuleUnload", (void **)&cu.unload}};
  for (int i = 0; i < 3; i++) {
    enum cudaDriverEntryPointQueryResult q;
    CHECK_EQ(cudaGetDriverEntryPointByVersion(e[i].name, e[i].fn, 12000, cudaEnableDefault, &q),
             cudaSuccess);
    CHECK_MSG(q == cudaDriverEntryPointSuccess, "no driver entry point %s", e[i].name);
  }
}

#define CUDRV(call)                                                                          \
  do {                                                                                       \
    CUresult r_ = (call);                                                                    \
    CHECK_MSG(r_ == CUDA_SUCCESS, "CUresult %d", (int)r_);                                   \
  } while (0)

/* Compiles the source for sm_<arch>; returns the cubin (malloc'd). */
static char *compile(int arch, int checked, size_t *size)
{
  nvrtcProgram p;
  NVRTC(nvrtcCreateProgram(&p, source, "mp.cu", 0, NULL, NULL));
  char gpu[32];
  snprintf(gpu, sizeof gpu, "--gpu-architecture=sm_%d", arch);
  const char *opts[] = {gpu, "-I" WGS_DEVICE_INCLUDE_CUDA, "-I" WGS_DEVICE_INCLUDE_COMMON,
                        checked ? "-DWGS_CHECKED=1" : "-DWGS_CHECKED=0"};
  nvrtcResult r = nvrtcCompileProgram(p, 4, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(p, &log_size);
  char *log = (char *)malloc(log_size + 1);
  CHECK(log);
  nvrtcGetProgramLog(p, log);
  if (r != NVRTC_SUCCESS || log_size > 1)
    printf("NVRTC log (%s, sm_%d):\n%s\n", checked ? "checked" : "unchecked", arch, log);
  free(log);
  NVRTC(r);
  NVRTC(nvrtcGetCUBINSize(p, size));
  char *cubin = (char *)malloc(*size);
  CHECK(cubin);
  NVRTC(nvrtcGetCUBIN(p, cubin));
  nvrtcDestroyProgram(&p);
  printf("NVRTC: wgsync.cuh compiled (%s, sm_%d, %zu-byte cubin)\n",
         checked ? "checked" : "unchecked", arch, *size);
  return cubin;
}

static int gpu_arch(void)
{
  int n = 0;
  if (wgs_cuda_device_count(&n) != WGS_OK || n == 0)
    return 0;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess)
    return 0;
  return major * 10 + minor;
}

static int case_compile(void)
{
  int arch = gpu_arch();
  size_t size;
  for (int checked = 0; checked <= 1; checked++)
    free(compile(arch ? arch : 90, checked, &size));
  return 0;
}

static int case_launch(void)
{
  int arch = gpu_arch();
  if (!arch) {
    printf("SKIP: %s\n", wgs_last_error());
    return WGS_SKIP;
  }
  size_t size;
  char *cubin = compile(arch, 1, &size);
  /* The runtime's primary context, where wgsync's state lives: the module goes there too. */
  CHECK_EQ(cudaSetDevice(0), cudaSuccess);
  CHECK_EQ(cudaFree(0), cudaSuccess);
  load_driver();
  CUmodule mod;
  CUfunction fn;
  CUDRV(cu.load(&mod, cubin));
  CUDRV(cu.get(&fn, mod, "mp"));
  free(cubin);

  uint32_t max = wgs_cuda_default_groups(0, 256);
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, max, &st));
  unsigned *slot, *bad;
  CHECK_EQ(cudaMalloc((void **)&slot, max * sizeof(unsigned)), cudaSuccess);
  CHECK_EQ(cudaMalloc((void **)&bad, sizeof(unsigned)), cudaSuccess);
  unsigned rounds = 2000, skip = 0;
  void *args[] = {NULL, &slot, &bad, &rounds, &skip};
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 256;
  cfg.timeout_ms = 2000;
  for (int l = 0; l < 3; l++) { /* sync, then two async launches on one state */
    CHECK_EQ(cudaMemset(slot, 0, max * sizeof(unsigned)), cudaSuccess);
    CHECK_EQ(cudaMemset(bad, 0, sizeof(unsigned)), cudaSuccess);
    wgs_launch_result res;
    if (l == 0) {
      CHECK_OK(wgs_cuda_launch_function(st, fn, args, 5, 0, 0, &cfg, &res));
    } else {
      CHECK_OK(wgs_cuda_launch_function_async(st, fn, args, 5, 0, 0, &cfg));
      CHECK_OK(wgs_cuda_state_result(st, 0, &res));
    }
    unsigned stale = 0;
    CHECK_EQ(cudaMemcpy(&stale, bad, sizeof stale, cudaMemcpyDeviceToHost), cudaSuccess);
    printf("launch %d (%s): %u of %u groups took part, %u rounds, %u stale reads\n", l,
           l ? "async" : "sync", res.participants, max, rounds, stale);
    CHECK(res.participants >= 2 && res.participants <= max);
    CHECK_EQ(stale, 0);
  }

  /* A barrier group 1 never reaches: reported, not hung, and the state stays usable. */
  skip = 1;
  rounds = 1;
  cfg.timeout_ms = 200;
  wgs_launch_result res;
  int rc = wgs_cuda_launch_function(st, fn, args, 5, 0, 0, &cfg, &res);
  printf("missed barrier: %s: %s\n", wgs_status_name(rc), wgs_last_error());
  CHECK_EQ(rc, WGS_EDEADLOCK);
  CHECK(strstr(wgs_last_error(), "missing group ids: 1") != NULL);
  skip = 0;
  CHECK_OK(wgs_cuda_launch_function(st, fn, args, 5, 0, 0, &cfg, &res));

  /* Bad input: a clear error, nothing launched. */
  CHECK_EQ(wgs_cuda_launch_function(st, NULL, args, 5, 0, 0, &cfg, &res), WGS_EINVAL);
  cfg.state_arg = 7;
  rc = wgs_cuda_launch_function(st, fn, args, 5, 0, 0, &cfg, &res);
  CHECK_EQ(rc, WGS_EINVAL);
  CHECK(strstr(wgs_last_error(), "wgs_cuda_launch_function: state_arg is 7") != NULL);

  cudaFree(slot);
  cudaFree(bad);
  wgs_cuda_state_release(st);
  CUDRV(cu.unload(mod));
  return 0;
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 2 && !strcmp(argv[1], "compile"))
    return case_compile();
  if (argc == 2 && !strcmp(argv[1], "launch"))
    return case_launch();
  fprintf(stderr, "usage: %s compile|launch\n", argv[0]);
  return 2;
}
