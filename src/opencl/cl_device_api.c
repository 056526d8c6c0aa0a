/* The device API (src/device.c) in the OpenCL library, which carries the OpenCL backend. */
#define WGS_DEVICE_OWN_OPENCL 1
#include "../device.c"
