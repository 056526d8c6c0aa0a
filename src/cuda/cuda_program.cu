/* CUDA backend: kernel handles (a symbol or a CUfunction, with arguments by index) and buffers
 * of the one API (wgsync.h). */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* ---- kernels and buffers of the one API (wgsync.h) on a CUDA device ------------------------ */

#define CUDA_MAX_ARGS 64
/* A kernel symbol or a CUfunction, with the arguments wgs_kernel_set_arg gave (copies), so that
 * wgs_launch passes them as cudaLaunchKernel / cuLaunchKernel take them. */
typedef struct {
  WGS__OBJECT_HEAD;
  kernel_ref kr;
  unsigned nargs;                      /* 1 + the highest index set */
  unsigned char *value[CUDA_MAX_ARGS]; /* NULL: not set */
  size_t shared_bytes;                 /* dynamic shared memory (a NULL value's size) */
} cuda_kernel;
typedef struct {
  WGS__BUFFER_HEAD; /* ops, device, size (src/device.h) */
  void *ptr;
} cuda_buffer;

static int kernel_wrap(wgs_device_t *dev, const void *sym, CUfunction fn, const char *who,
                       wgs_kernel_t **out)
{
  if (wgs__head(dev)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "%s: the device is not a CUDA device (open \"cuda:N\")", who);
  cuda_kernel *k = (cuda_kernel *)calloc(1, sizeof *k);
  if (!k)
    return wgs__fail(WGS_ENOMEM, "%s: out of memory", who);
  k->ops = &wgs__cuda_ops;
  k->dev = dev;
  wgs__cuda_dev_retain(dev);
  k->kr.sym = sym;
  k->kr.fn = fn;
  k->kr.who = "wgs_launch";
  k->kr.name = NULL;
  *out = (wgs_kernel_t *)(void *)k;
  return WGS_OK;
}

extern "C" int wgs_kernel_cuda(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(kernel);
  return kernel_wrap(dev, kernel, NULL, "wgs_kernel_cuda", out);
}

extern "C" int wgs_kernel_cuda_function(wgs_device_t *dev, CUfunction fn, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(fn);
  if (wgs__load_driver() != WGS_OK)
    return WGS_EBACKEND;
  return kernel_wrap(dev, NULL, fn, "wgs_kernel_cuda_function", out);
}

void wgs__cuda_kernel_release(wgs_kernel_t *pk)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  for (unsigned i = 0; i < CUDA_MAX_ARGS; i++)
    free(k->value[i]);
  wgs__cuda_dev_release(k->dev);
  free(k);
}

int wgs__cuda_kernel_set_arg(wgs_kernel_t *pk, unsigned index, size_t size, const void *value)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  if (index >= CUDA_MAX_ARGS)
    return wgs__fail(WGS_ELIMIT, "wgs_kernel_set_arg: index %u (CUDA kernels take at most %u "
                                 "arguments through wgsync)", index, CUDA_MAX_ARGS);
  if (!value) { /* as OpenCL's __local argument: the launch's dynamic shared memory */
    const wgs_device_info *in = &wgs__head(k->dev)->info;
    if (size > in->local_mem_bytes)
      return wgs__fail(WGS_ELIMIT, "argument %u: %zu bytes of dynamic shared memory, but '%s' "
                                   "has %llu per block", index, size, in->name,
                       (unsigned long long)in->local_mem_bytes);
    k->shared_bytes = size;
    return WGS_OK;
  }
  if (size == 0 || size > 4096)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg: argument %u of %zu bytes (expected 1 to "
                                 "4096, the kernel parameter's size)", index, size);
  unsigned char *v = (unsigned char *)malloc(size);
  if (!v)
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_set_arg: out of memory");
  memcpy(v, value, size);
  free(k->value[index]);
  k->value[index] = v;
  if (index + 1 > k->nargs)
    k->nargs = index + 1;
  return WGS_OK;
}

int wgs__cuda_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  if (((wgs__cuda_device *)(void *)b->dev)->ordinal !=
      ((wgs__cuda_device *)(void *)wgs__object(k)->dev)->ordinal)
    return wgs__fail(WGS_EINVAL, "argument %u: the buffer is on another CUDA device than the "
                                 "kernel", index);
  return wgs__cuda_kernel_set_arg(k, index, sizeof b->ptr, &b->ptr);
}

/* The table's launch (src/device.h): the core checked the devices and holds the lock. On the
 * legacy default stream; launches on a stream of your own: wgs_cuda_launch. */
int wgs__cuda_launch(wgs_state_t *st, wgs_kernel_t *pk, const wgs_launch_config *cfg)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  unsigned state_arg = cfg ? cfg->state_arg : 0;
  unsigned n = k->nargs > state_arg ? k->nargs : state_arg + 1;
  void *argv[CUDA_MAX_ARGS + 1];
  for (unsigned i = 0; i < n; i++) {
    if (i != state_arg && !k->value[i])
      return wgs__fail(WGS_EINVAL, "wgs_launch: kernel argument %u was never set "
                                   "(wgs_kernel_set_arg; argument %u is the state)", i, state_arg);
    argv[i] = k->value[i];
  }
  return wgs__launch_async(cs(st), k->kr, argv, n, k->shared_bytes, 0, cfg);
}

int wgs__cuda_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  int rc = wgs__use_device(((wgs__cuda_device *)(void *)dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  void *ptr = NULL;
  CU(cudaMalloc(&ptr, bytes), "cudaMalloc(buffer)");
  cuda_buffer *b = (cuda_buffer *)calloc(1, sizeof *b);
  if (!b) {
    cudaFree(ptr);
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory");
  }
  b->ops = &wgs__cuda_ops;
  b->dev = dev;
  wgs__cuda_dev_retain(dev);
  b->ptr = ptr;
  b->bytes = bytes;
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

void wgs__cuda_buffer_release(wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  cudaFree(b->ptr);
  wgs__cuda_dev_release(b->dev);
  free(b);
}

static int cuda_buffer_copy(wgs_buffer_t *pb, size_t off, size_t bytes, void *host, int to_device)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  /* (the core checked the range) */
  int rc = wgs__use_device(((wgs__cuda_device *)(void *)b->dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  /* (the legacy default stream: ordered after the launches wgs_launch made) */
  CU(to_device ? cudaMemcpy((char *)b->ptr + off, host, bytes, cudaMemcpyHostToDevice)
               : cudaMemcpy(host, (char *)b->ptr + off, bytes, cudaMemcpyDeviceToHost),
     to_device ? "cudaMemcpy(buffer write)" : "cudaMemcpy(buffer read)");
  return WGS_OK;
}
int wgs__cuda_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src)
{
  return cuda_buffer_copy(b, off, bytes, (void *)src, 1);
}
int wgs__cuda_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst)
{
  return cuda_buffer_copy(b, off, bytes, dst, 0);
}

extern "C" void *wgs_buffer_cuda_ptr(const wgs_buffer_t *b)
{
  return b && wgs__object(b)->ops == &wgs__cuda_ops ? ((const cuda_buffer *)(const void *)b)->ptr
                                                    : NULL;
}

