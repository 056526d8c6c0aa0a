/* The device API (src/device.c) in the CUDA library, which carries the CUDA backend. */
#define WGS_DEVICE_OWN_CUDA 1
#include "../device.c"
