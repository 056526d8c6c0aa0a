/*
 * wgsync across GPUs (host API): a team of GPUs joined by NCCL, one persistent kernel per GPU
 * launched together, and a team-wide grid barrier in the kernels (device/cuda/wgsync_team.cuh,
 * installed as wgsync/wgsync_team.cuh). A team holds the GPUs of one process
 * (wgs_cuda_team_create) or this process's GPU of a communicator spanning processes
 * (wgs_cuda_team_from_comm). Built when NCCL with its device API (nccl_device.h, NCCL >= 2.28) is
 * found; links NCCL.
 *
 * The GPUs a team holds in this process are its local GPUs, i = 0 .. wgs_cuda_team_local_size - 1,
 * team rank wgs_cuda_team_first_rank + i; every array below is indexed by i.
 *
 * NVLink multicast is never used (the LSA barrier runs unicast, no multimem instructions); on a
 * shared host also set NCCL_NVLS_ENABLE=0.
 */
#ifndef WGSYNC_TEAM_H
#define WGSYNC_TEAM_H

#include <nccl.h>

#include "wgsync_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wgs_cuda_team wgs_cuda_team_t;

/* A team of ndev GPUs (devices[i] becomes rank i; NULL: devices 0..ndev-1), one NCCL
 * communicator each (ncclCommInitAll), a wgsync state of max_groups per GPU, and a stream per
 * GPU. At most 64 GPUs; every pair must reach each other's memory (NVLink or PCIe P2P). */
int wgs_cuda_team_create(int ndev, const int *devices, uint32_t max_groups, wgs_cuda_team_t **out);
/* A team across processes: this process's rank of the user's communicator (one GPU per process,
 * made by ncclCommInitRank on the device it names; the communicator stays the user's and must
 * outlive the team). Every rank calls this, wgs_cuda_team_alloc (same sizes, same order) and
 * wgs_cuda_team_release together: they are collective over the communicator. Every rank must
 * reach every other's memory by load/store (the GPUs of one node over NVLink or PCIe P2P). */
int wgs_cuda_team_from_comm(ncclComm_t comm, uint32_t max_groups, wgs_cuda_team_t **out);
void wgs_cuda_team_release(wgs_cuda_team_t *t);
int wgs_cuda_team_size(const wgs_cuda_team_t *t);       /* GPUs in the team, every process */
int wgs_cuda_team_local_size(const wgs_cuda_team_t *t); /* GPUs of the team in this process */
int wgs_cuda_team_first_rank(const wgs_cuda_team_t *t); /* team rank of local GPU 0 */
int wgs_cuda_team_device(const wgs_cuda_team_t *t, int i); /* CUDA device of local GPU i; -1: none */
cudaStream_t wgs_cuda_team_stream(const wgs_cuda_team_t *t, int i);
ncclComm_t wgs_cuda_team_comm(const wgs_cuda_team_t *t, int i);

/* A buffer of bytes on every GPU of the team, registered as one NCCL window, so that kernels
 * can store into a peer's copy (wgs_team_peer_ptr), zeroed. local[i] receives each local GPU's own
 * address, win[i] the window handle to pass to that GPU's kernel. Freed with the team. */
int wgs_cuda_team_alloc(wgs_cuda_team_t *t, size_t bytes, void **local, ncclWindow_t *win);

/* Launches kernel on every local GPU of the team on its stream, all before waiting for any (a
 * team barrier needs every GPU's kernel running; across processes every rank launches): args[i]
 * are local GPU i's num_args arguments, and the one at cfg->state_arg (may be NULL) is set to the
 * GPU's `wgs_team_ctx *`. Then waits for all; res[i] receives each GPU's result (NULL: not
 * wanted). cfg as wgs_cuda_launch; the first failure is returned, naming the GPU. */
int wgs_cuda_team_launch(wgs_cuda_team_t *t, const void *kernel, void **const *args,
                         unsigned num_args, size_t shared_bytes, const wgs_launch_config *cfg,
                         wgs_launch_result *res);

#ifdef __cplusplus
}
#endif
#endif
