/* CUDA backend: CUDA and driver-API errors as wgsync statuses with one message each. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

int wgs__cuda_fail(const char *what, cudaError_t e)
{
  int status = WGS_EBACKEND;
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice)
    status = WGS_ENODEV;
  else if (e == cudaErrorInvalidConfiguration || e == cudaErrorLaunchOutOfResources ||
           e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorMemoryAllocation)
    status = WGS_ELIMIT;
  cudaGetLastError(); /* clear a sticky launch error so the next call starts clean */
  return wgs__fail(status, "%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

int wgs__cu_fail(const char *what, CUresult r)
{
  const char *name = NULL;
  if (wgs__cuda_drv.error_name)
    wgs__cuda_drv.error_name(r, &name);
  int status = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || r == CUDA_ERROR_INVALID_VALUE
                   ? WGS_ELIMIT : WGS_EBACKEND;
  return wgs__fail(status, "%s failed: %s (%d)%s", what, name ? name : "CUresult", (int)r,
                   r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_INVALID_CONTEXT
                       ? " (is the function from a module loaded on this state's device?)" : "");
}

