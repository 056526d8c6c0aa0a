/* The backend the OpenCL library carries, named for src/device.c: a strong reference that links
 * the backend in with the device API, wherever the library is linked statically. */
#include "../device.h"

const wgs__backend_ops *const wgs__own_backend = &wgs__opencl_ops;
