/*
 * wgsync on your own Vulkan objects (host API, C): a wgsync device made from your instance,
 * physical device, device and queue; your storage buffers as kernel arguments; and a launch
 * recorded into your command buffer, which you submit.
 *
 * Your device must have been created with what wgsync's shaders use (device/vulkan/wgsync.glsl):
 * Vulkan 1.2's vulkanMemoryModel, shaderInt64, VK_KHR_shader_clock with shaderDeviceClock, and
 * VK_KHR_push_descriptor (your own shaders' Device-scope atomics need
 * vulkanMemoryModelDeviceScope besides, as always). Vulkan
 * cannot be asked what a device was created with: wgs_device_wrap_vulkan checks the physical
 * device and the entry points it can load (a device without push descriptors is refused); the
 * features are your promise. wgsync never destroys your objects. Its own (a command pool, the
 * state's buffers, pipelines, an event per state) are freed when you release the wgsync objects,
 * which you do before destroying your device.
 *
 * Statuses, wgs_strerror and wgs_last_error are those of wgsync.h.
 */
#ifndef WGSYNC_VULKAN_H
#define WGSYNC_VULKAN_H

#include <vulkan/vulkan.h>

#include "wgsync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A wgsync device on your VkDevice. get_instance_proc_addr is your loader's (wgsync calls Vulkan
 * through it, so it works with a statically linked loader or VK_NO_PROTOTYPES); queue is a queue
 * of queue_family, which must have compute. Everything of wgsync.h works on it (programs from
 * SPIR-V, kernels, states, wgs_launch); wgs_launch and wgs_buffer_create submit to and wait on
 * `queue`, so do not use the queue from another thread meanwhile (Vulkan's external
 * synchronisation). Release it with wgs_device_close. */
int wgs_device_wrap_vulkan(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance,
                           VkPhysicalDevice physical_device, VkDevice device, uint32_t queue_family,
                           VkQueue queue, wgs_device_t **out);

/* Your storage buffer (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) of `bytes` as a kernel argument
 * (wgs_kernel_set_arg_buffer). wgsync neither maps nor frees it: wgs_buffer_read and
 * wgs_buffer_write refuse it. */
int wgs_buffer_wrap_vulkan(wgs_device_t *dev, VkBuffer buffer, size_t bytes, wgs_buffer_t **out);

/* Records a launch of k into cb (in the recording state, from a pool of the device's queue
 * family), as wgs_launch_async would submit it: the state's config words and clearing, the
 * dispatch of the launch's groups, and an event wgsync waits on for the result. The launch is
 * ordered after every command recorded before it and before every command after it (memory
 * barriers over all commands), so your commands can fill its inputs and read its outputs in the
 * same command buffer. Submit cb yourself, once; after that submit has completed (your fence),
 * wgs_state_result reports the launch as for any launch (participants, a checked build's
 * deadlock report). One recorded launch per state until its result is read: a second record, a
 * wgs_launch, and a result asked before the command buffer completed are refused
 * (WGS_EINVAL), the launch staying pending. cfg->time_kernel is refused. */
int wgs_launch_record_vulkan(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg,
                             VkCommandBuffer cb);

#ifdef __cplusplus
}
#endif
#endif
