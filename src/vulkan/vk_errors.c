/* Statuses from VkResults, so that failures print VK_ERROR_DEVICE_LOST rather than -4. */
#include "vk_internal.h"

const char *wgs__vk_result_name(VkResult r)
{
  switch (r) {
#define E(x) \
  case x:    \
    return #x;
    E(VK_SUCCESS) E(VK_NOT_READY) E(VK_TIMEOUT) E(VK_INCOMPLETE) E(VK_ERROR_OUT_OF_HOST_MEMORY)
    E(VK_ERROR_OUT_OF_DEVICE_MEMORY) E(VK_ERROR_INITIALIZATION_FAILED) E(VK_ERROR_DEVICE_LOST)
    E(VK_ERROR_MEMORY_MAP_FAILED) E(VK_ERROR_LAYER_NOT_PRESENT) E(VK_ERROR_EXTENSION_NOT_PRESENT)
    E(VK_ERROR_FEATURE_NOT_PRESENT) E(VK_ERROR_INCOMPATIBLE_DRIVER) E(VK_ERROR_TOO_MANY_OBJECTS)
    E(VK_ERROR_FORMAT_NOT_SUPPORTED) E(VK_ERROR_FRAGMENTED_POOL) E(VK_ERROR_UNKNOWN)
    E(VK_ERROR_OUT_OF_POOL_MEMORY) E(VK_ERROR_INVALID_EXTERNAL_HANDLE) E(VK_ERROR_FRAGMENTATION)
    E(VK_ERROR_INVALID_SHADER_NV)
#undef E
  default:
    return "an unknown VkResult";
  }
}

int wgs__vk_fail(const char *what, VkResult r)
{
  return wgs__fail(r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                       ? WGS_ENOMEM
                       : WGS_EBACKEND,
                   "%s failed: %s (%d)", what, wgs__vk_result_name(r), (int)r);
}
