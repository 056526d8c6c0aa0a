/*
 * A team of GPUs in one process (include/wgsync_team.h): NCCL communicators from
 * ncclCommInitAll, a device communicator with one LSA barrier per GPU, a window for the team's
 * participant counts, a wgsync state per GPU, and the launch of one kernel on every GPU.
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "wgsync_team.cuh"
#include "wgsync_team.h"

#define WGS_TEAM_MAX_BUFFERS 16

/* The GPUs of this process are local index i = 0..n-1, team rank first + i: every rank of the
 * team when made by wgs_cuda_team_create, one when made from a communicator. */
struct wgs_cuda_team {
  int n, first, nranks;
  int own_comms; /* made by ncclCommInitAll (destroyed with the team), not the user's */
  int dev[WGS_TEAM_MAX_GPUS];
  ncclComm_t comm[WGS_TEAM_MAX_GPUS];
  ncclDevComm dcomm[WGS_TEAM_MAX_GPUS];
  int dcomm_made;
  cudaStream_t stream[WGS_TEAM_MAX_GPUS];
  wgs_cuda_state_t *st[WGS_TEAM_MAX_GPUS];
  wgs_team_ctx *ctx[WGS_TEAM_MAX_GPUS]; /* device copies */
  unsigned *release[WGS_TEAM_MAX_GPUS];  /* the release word copies (wgs_team_ctx::release) */
  /* windows: [0] the participant counts, then the user's (wgs_cuda_team_alloc) */
  int nbuf;
  void *buf[WGS_TEAM_MAX_BUFFERS][WGS_TEAM_MAX_GPUS];
  ncclWindow_t win[WGS_TEAM_MAX_BUFFERS][WGS_TEAM_MAX_GPUS];
};

static int team_cuda_fail(const char *what, int rank, cudaError_t e)
{
  cudaGetLastError();
  return wgs__fail(e == cudaErrorMemoryAllocation ? WGS_ENOMEM : WGS_EBACKEND,
                   "team GPU (local %d): %s failed: %s (%s)", rank, what, cudaGetErrorName(e),
                   cudaGetErrorString(e));
}
static int team_nccl_fail(const char *what, ncclResult_t r)
{
  return wgs__fail(WGS_EBACKEND, "team: %s failed: %s (NCCL %d.%d.%d)", what, ncclGetErrorString(r),
                   NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
}
#define TCK(rank, call)                                                                       \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess)                                                                    \
      return team_cuda_fail(#call, (rank), e_);                                               \
  } while (0)
#define NCK(call)                                                                             \
  do {                                                                                        \
    ncclResult_t r_ = (call);                                                                 \
    if (r_ != ncclSuccess)                                                                    \
      return team_nccl_fail(#call, r_);                                                       \
  } while (0)

/* One window of bytes on every GPU: ncclMemAlloc, then a collective registration. */
static int team_window(wgs_cuda_team_t *t, size_t bytes, void **local, ncclWindow_t *win)
{
  for (int r = 0; r < t->n; ++r) {
    TCK(r, cudaSetDevice(t->dev[r]));
    NCK(ncclMemAlloc(&local[r], bytes));
    TCK(r, cudaMemset(local[r], 0, bytes));
  }
  NCK(ncclGroupStart());
  for (int r = 0; r < t->n; ++r)
    NCK(ncclCommWindowRegister(t->comm[r], local[r], bytes, &win[r], NCCL_WIN_COLL_SYMMETRIC));
  NCK(ncclGroupEnd());
  return WGS_OK;
}

/* Everything past the communicators: device communicators, the counts window, states, streams,
 * the release words and each GPU's context. */
static int team_setup(wgs_cuda_team_t *t, uint32_t max_groups)
{
  ncclDevCommRequirements reqs;
  memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = 1; /* wgs_team_barrier's crossing uses barrier 0 */
  NCK(ncclGroupStart());
  for (int r = 0; r < t->n; ++r)
    NCK(ncclDevCommCreate(t->comm[r], &reqs, &t->dcomm[r]));
  NCK(ncclGroupEnd());
  t->dcomm_made = 1;
  for (int r = 0; r < t->n; ++r) {
    if (t->dcomm[r].lsaSize != t->nranks)
      return wgs__fail(WGS_EUNSUPPORTED, "team: GPU %d reaches %d of the team's %d GPUs by load/store "
                       "(NVLink or PCIe peer access is needed between every pair)",
                       t->dev[r], t->dcomm[r].lsaSize, t->nranks);
  }
  int rc = team_window(t, 4096, t->buf[0], t->win[0]);
  if (rc != WGS_OK)
    return rc;
  t->nbuf = 1;
  for (int r = 0; r < t->n; ++r) {
    TCK(r, cudaSetDevice(t->dev[r]));
    TCK(r, cudaStreamCreateWithFlags(&t->stream[r], cudaStreamNonBlocking));
    if ((rc = wgs_cuda_state_create(t->dev[r], max_groups, &t->st[r])) != WGS_OK) {
      wgs__fail_append(" (team GPU)");
      return rc;
    }
    TCK(r, cudaSetDevice(t->dev[r]));
    /* the release word copies, then a line for the missing ranks (wgs__team_missing) */
    size_t rb = (WGS_TEAM_RELEASE_LINES + 1u) * WGS_LINE_WORDS * sizeof(unsigned);
    TCK(r, cudaMalloc((void **)&t->release[r], rb));
    TCK(r, cudaMemset(t->release[r], 0, rb));
    wgs_team_ctx c;
    memset(&c, 0, sizeof c);
    c.state = wgs_cuda_state_device_ptr(t->st[r]);
    c.comm = t->dcomm[r];
    c.counts = t->win[0][r];
    c.rank = (unsigned)(t->first + r);
    c.nranks = (unsigned)t->nranks;
    c.release = t->release[r];
    TCK(r, cudaMalloc((void **)&t->ctx[r], sizeof c));
    TCK(r, cudaMemcpy(t->ctx[r], &c, sizeof c, cudaMemcpyHostToDevice));
  }
  return WGS_OK;
}

/* The kernels hold NCCL's device structures as built from nccl_device.h; the library that runs
 * must be that version (another libnccl.so.2 first on the library path made the team kernels
 * fault with illegal addresses, 2 x H200). */
static int team_check_nccl(const char *who)
{
  int v = 0;
  NCK(ncclGetVersion(&v));
  if (v != NCCL_VERSION_CODE)
    return wgs__fail(WGS_EBACKEND, "%s: wgsync was built with NCCL %d.%d.%d (nccl_device.h) but the "
                     "libnccl loaded now is %d.%d.%d; the device API's structures differ between "
                     "versions: put the NCCL wgsync was built with first on the library path "
                     "(LD_LIBRARY_PATH)", who, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, v / 10000,
                     v / 100 % 100, v % 100);
  return WGS_OK;
}

extern "C" int wgs_cuda_team_create(int ndev, const int *devices, uint32_t max_groups,
                                    wgs_cuda_team_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  if (ndev < 1 || ndev > (int)WGS_TEAM_MAX_GPUS)
    return wgs__fail(WGS_EINVAL, "wgs_cuda_team_create: %d GPUs; expected 1 to %u", ndev,
                     WGS_TEAM_MAX_GPUS);
  int rc0 = team_check_nccl("wgs_cuda_team_create");
  if (rc0 != WGS_OK)
    return rc0;
  int have = 0;
  cudaError_t e = cudaGetDeviceCount(&have);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return wgs__fail(WGS_ENODEV, "wgs_cuda_team_create: no CUDA device (%s)", cudaGetErrorName(e));
  }
  wgs_cuda_team_t *t = (wgs_cuda_team_t *)calloc(1, sizeof *t);
  if (!t)
    return wgs__fail(WGS_ENOMEM, "wgs_cuda_team_create: out of memory");
  t->n = ndev;
  t->first = 0;
  t->nranks = ndev;
  for (int r = 0; r < ndev; ++r) {
    t->dev[r] = devices ? devices[r] : r;
    if (t->dev[r] < 0 || t->dev[r] >= have) {
      int d = t->dev[r];
      free(t);
      return wgs__fail(WGS_ENODEV, "wgs_cuda_team_create: rank %d names device %d; this machine "
                       "has %d CUDA device%s", r, d, have, have == 1 ? "" : "s");
    }
    for (int q = 0; q < r; ++q)
      if (t->dev[q] == t->dev[r]) {
        int d = t->dev[r];
        free(t);
        return wgs__fail(WGS_EINVAL, "wgs_cuda_team_create: device %d given twice (ranks %d "
                         "and %d); a team has one rank per GPU", d, q, r);
      }
  }
  ncclResult_t nr = ncclCommInitAll(t->comm, t->n, t->dev);
  if (nr != ncclSuccess) {
    memset(t->comm, 0, sizeof t->comm);
    free(t);
    return team_nccl_fail("ncclCommInitAll", nr);
  }
  t->own_comms = 1;
  int rc = team_setup(t, max_groups);
  if (rc != WGS_OK) {
    wgs_cuda_team_release(t);
    return rc;
  }
  *out = t;
  return WGS_OK;
}

extern "C" int wgs_cuda_team_from_comm(ncclComm_t comm, uint32_t max_groups, wgs_cuda_team_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(comm);
  int rc0 = team_check_nccl("wgs_cuda_team_from_comm");
  if (rc0 != WGS_OK)
    return rc0;
  int dev = -1, rank = -1, count = 0;
  NCK(ncclCommCuDevice(comm, &dev));
  NCK(ncclCommUserRank(comm, &rank));
  NCK(ncclCommCount(comm, &count));
  if (count < 1 || count > (int)WGS_TEAM_MAX_GPUS)
    return wgs__fail(WGS_ELIMIT, "wgs_cuda_team_from_comm: the communicator has %d ranks; a team "
                     "has 1 to %u", count, WGS_TEAM_MAX_GPUS);
  wgs_cuda_team_t *t = (wgs_cuda_team_t *)calloc(1, sizeof *t);
  if (!t)
    return wgs__fail(WGS_ENOMEM, "wgs_cuda_team_from_comm: out of memory");
  t->n = 1;
  t->first = rank;
  t->nranks = count;
  t->dev[0] = dev;
  t->comm[0] = comm; /* the user's: not destroyed with the team */
  int rc = team_setup(t, max_groups);
  if (rc != WGS_OK) {
    wgs_cuda_team_release(t);
    return rc;
  }
  *out = t;
  return WGS_OK;
}

extern "C" void wgs_cuda_team_release(wgs_cuda_team_t *t)
{
  if (!t)
    return;
  for (int r = 0; r < t->n; ++r) {
    cudaSetDevice(t->dev[r]);
    if (t->stream[r])
      cudaStreamSynchronize(t->stream[r]);
  }
  if (t->comm[0]) {
    ncclGroupStart();
    for (int b = 0; b < t->nbuf; ++b)
      for (int r = 0; r < t->n; ++r)
        if (t->win[b][r])
          ncclCommWindowDeregister(t->comm[r], t->win[b][r]);
    ncclGroupEnd();
    if (t->dcomm_made) {
      ncclGroupStart();
      for (int r = 0; r < t->n; ++r)
        ncclDevCommDestroy(t->comm[r], &t->dcomm[r]);
      ncclGroupEnd();
    }
  }
  for (int r = 0; r < t->n; ++r) {
    cudaSetDevice(t->dev[r]);
    for (int b = 0; b < t->nbuf; ++b)
      if (t->buf[b][r])
        ncclMemFree(t->buf[b][r]);
    if (t->ctx[r])
      cudaFree(t->ctx[r]);
    if (t->release[r])
      cudaFree(t->release[r]);
    wgs_cuda_state_release(t->st[r]);
    if (t->stream[r])
      cudaStreamDestroy(t->stream[r]);
    if (t->comm[r] && t->own_comms)
      ncclCommDestroy(t->comm[r]);
  }
  cudaGetLastError();
  free(t);
}

extern "C" int wgs_cuda_team_size(const wgs_cuda_team_t *t) { return t ? t->nranks : 0; }
extern "C" int wgs_cuda_team_local_size(const wgs_cuda_team_t *t) { return t ? t->n : 0; }
extern "C" int wgs_cuda_team_first_rank(const wgs_cuda_team_t *t) { return t ? t->first : -1; }
extern "C" int wgs_cuda_team_device(const wgs_cuda_team_t *t, int i)
{
  return t && i >= 0 && i < t->n ? t->dev[i] : -1;
}
extern "C" cudaStream_t wgs_cuda_team_stream(const wgs_cuda_team_t *t, int i)
{
  return t && i >= 0 && i < t->n ? t->stream[i] : NULL;
}
extern "C" ncclComm_t wgs_cuda_team_comm(const wgs_cuda_team_t *t, int i)
{
  return t && i >= 0 && i < t->n ? t->comm[i] : NULL;
}

extern "C" int wgs_cuda_team_alloc(wgs_cuda_team_t *t, size_t bytes, void **local, ncclWindow_t *win)
{
  WGS__REQUIRE(t);
  WGS__REQUIRE(local);
  WGS__REQUIRE(win);
  if (bytes == 0)
    return wgs__fail(WGS_EINVAL, "wgs_cuda_team_alloc: 0 bytes");
  if (t->nbuf == WGS_TEAM_MAX_BUFFERS)
    return wgs__fail(WGS_ELIMIT, "wgs_cuda_team_alloc: a team holds at most %d buffers",
                     WGS_TEAM_MAX_BUFFERS - 1);
  int rc = team_window(t, bytes, t->buf[t->nbuf], t->win[t->nbuf]);
  for (int r = 0; r < t->n; ++r) {
    local[r] = t->buf[t->nbuf][r];
    win[r] = t->win[t->nbuf][r];
  }
  t->nbuf++; /* even on failure: release frees what was made */
  return rc;
}

/* After a failed launch on local GPU i: the team ranks its crossing gave up waiting for (checked
 * builds record them), appended to the error and cleared. Returns 1 when it named any. */
static int team_append_missing(wgs_cuda_team_t *t, int i)
{
  unsigned m[2] = {0, 0};
  unsigned *at = t->release[i] + WGS_TEAM_RELEASE_LINES * WGS_LINE_WORDS;
  cudaSetDevice(t->dev[i]);
  if (cudaMemcpy(m, at, sizeof m, cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  if (!m[0] && !m[1])
    return 0;
  char msg[256];
  int len = snprintf(msg, sizeof msg, "; team GPU rank %d waited for rank", t->first + i);
  for (int q = 0; q < 64 && len < (int)sizeof msg - 8; ++q)
    if (m[q / 32] >> (q % 32) & 1u)
      len += snprintf(msg + len, sizeof msg - len, " %d", q);
  snprintf(msg + len, sizeof msg - len, ", which never reached the team barrier");
  wgs__fail_append(msg);
  cudaMemset(at, 0, sizeof m);
  return 1;
}

extern "C" int wgs_cuda_team_launch(wgs_cuda_team_t *t, const void *kernel, void **const *args,
                                    unsigned num_args, size_t shared_bytes,
                                    const wgs_launch_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(t);
  WGS__REQUIRE(kernel);
  WGS__REQUIRE(args);
  wgs_launch_config c;
  if (cfg)
    c = *cfg;
  else
    wgs_launch_config_init(&c);
  if (c.state_arg >= num_args)
    return wgs__fail(WGS_EINVAL, "wgs_cuda_team_launch: state_arg is %u but the kernel has %u "
                     "arguments", c.state_arg, num_args);
  if (num_args > 31)
    return wgs__fail(WGS_ELIMIT, "wgs_cuda_team_launch: %u arguments; at most 31", num_args);
  /* The kernel takes the team context where the single-GPU launch puts the state; that launch
   * fills its state_arg itself, so it gets one slot past the kernel's arguments (not read: a
   * launch reads as many arguments as the kernel has). */
  wgs_launch_config one = c;
  one.state_arg = num_args;
  /* every GPU's kernel is enqueued before any is waited for */
  int launched = 0, rc = WGS_OK;
  for (int r = 0; r < t->n && rc == WGS_OK; ++r) {
    if (!args[r]) {
      rc = wgs__fail(WGS_EINVAL, "wgs_cuda_team_launch: args[%d] is NULL", r);
      break;
    }
    void *a[32];
    memcpy(a, args[r], num_args * sizeof *a);
    a[c.state_arg] = &t->ctx[r];
    a[num_args] = NULL;
    cudaSetDevice(t->dev[r]);
    rc = wgs_cuda_launch_async(t->st[r], kernel, a, num_args + 1, shared_bytes, t->stream[r], &one);
    if (rc != WGS_OK)
      wgs__fail_append(r == 0 ? " (the team's first local GPU)"
                              : " (a later local GPU of the team; the GPUs before it were launched "
                                "and are waited for)");
    else
      launched++;
  }
  int failed = 0;
  for (int r = 0; r < launched; ++r) {
    cudaSetDevice(t->dev[r]);
    wgs_launch_result one;
    int rr = wgs_cuda_state_result(t->st[r], t->stream[r], res ? &res[r] : &one);
    if (rr != WGS_OK && rc == WGS_OK) {
      char where[64];
      snprintf(where, sizeof where, " (team GPU rank %d, device %d)", t->first + r, t->dev[r]);
      wgs__fail_append(where);
      rc = rr;
      failed = 1;
    }
  }
  /* Whom the crossings waited for, from every GPU that recorded it: the GPU whose report comes
   * first may only have waited for its own groups while another GPU's crossing waited for the
   * GPU that left (with more than 2 GPUs, the first report is often not the crossing's). */
  int named = 0;
  for (int r = 0; failed && r < launched; ++r)
    named |= team_append_missing(t, r);
  if (failed && !named && rc == WGS_EDEADLOCK)
    wgs__fail_append("; no GPU of this process recorded a team rank it waited for (the team "
                     "barrier's other ranks run in other processes, or the build is unchecked)");
  return rc;
}
