/* The backend the OpenCL library carries, named for src/device.c: a strong reference that links
 * the backend in with the device API, wherever the library is linked statically. The same
 * library carries the Vulkan backend where it was built (src/vulkan): referenced here too, so
 * that a static link brings it along. */
#include "../device.h"

const wgs__backend_ops *const wgs__own_backend = &wgs__opencl_ops;
#ifdef WGSYNC_HAVE_VULKAN
extern const wgs__backend_ops wgs__vulkan_ops;
const wgs__backend_ops *const wgs__vulkan_anchor = &wgs__vulkan_ops;
#endif
