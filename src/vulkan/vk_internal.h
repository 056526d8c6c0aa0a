/*
 * Vulkan backend internals, shared by its files (the same jobs as src/opencl's and src/cuda's):
 * vk_device.c (the loader's entry points, devices, the table), vk_launch.c (states, launches,
 * result words), vk_program.c (SPIR-V programs, kernels, buffers), vk_tools.c (the tools'
 * launches, on the tools' shaders through the one API), vk_errors.c (statuses from VkResults).
 *
 * The loader (libvulkan.so.1) is opened at run time: a program linked with wgsync runs where
 * Vulkan is absent, and then lists no Vulkan device, saying why.
 */
#ifndef WGS_VK_INTERNAL_H
#define WGS_VK_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "../device.h"
#include "../launch.h"
#include "wgs_layout.h"

extern const wgs__backend_ops wgs__vulkan_ops;

/* The entry points the backend calls, from the loader (instance level, then device level). */
#define WGS_VK_INSTANCE_FNS(X)                                                                    \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2)                               \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties)              \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceProcAddr)
#define WGS_VK_DEVICE_FNS(X)                                                                      \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer)                     \
  X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)      \
  X(vkMapMemory) X(vkUnmapMemory) X(vkCreateShaderModule) X(vkDestroyShaderModule)                \
  X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline)                    \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)                      \
  X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline)      \
  X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkCmdFillBuffer)               \
  X(vkCmdUpdateBuffer) X(vkCmdWriteTimestamp) X(vkCmdResetQueryPool) X(vkCreateQueryPool)         \
  X(vkDestroyQueryPool) X(vkGetQueryPoolResults) X(vkCreateFence) X(vkDestroyFence)              \
  X(vkWaitForFences) X(vkQueueSubmit) X(vkQueueWaitIdle) X(vkCmdPushDescriptorSetKHR)        \
  X(vkCreateEvent) X(vkDestroyEvent) X(vkCmdSetEvent) X(vkGetEventStatus) X(vkResetEvent)
typedef struct {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  PFN_vkCreateInstance vkCreateInstance;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion;
#define WGS_VK_FIELD(f) PFN_##f f;
  WGS_VK_INSTANCE_FNS(WGS_VK_FIELD)
  WGS_VK_DEVICE_FNS(WGS_VK_FIELD)
#undef WGS_VK_FIELD
} wgs__vk_fns;

/* One instance for the process (made on first use; the loader's entry points with it). */
int wgs__vk_instance(VkInstance *inst, const wgs__vk_fns **fns);

/* Statuses from VkResults, with the call named (vk_errors.c). */
const char *wgs__vk_result_name(VkResult r);
int wgs__vk_fail(const char *what, VkResult r);
#define WGS__VK(call, what)                                                                       \
  do {                                                                                            \
    VkResult wgs__r = (call);                                                                     \
    if (wgs__r != VK_SUCCESS)                                                                     \
      return wgs__vk_fail((what), wgs__r);                                                        \
  } while (0)

typedef struct {
  WGS__DEVICE_HEAD;
  int refs;                    /* the user's handle and every state, program, kernel and buffer */
  const wgs__vk_fns *vk;       /* instance-level entry points */
  wgs__vk_fns wrapped_fns;     /* a wrapped device's: from the user's loader and instance */
  wgs__vk_fns d;               /* with the device-level ones of this device */
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkCommandPool pool;
  pthread_mutex_t lock;        /* the queue and the pool, one thread at a time */
  VkPhysicalDeviceMemoryProperties mem;
  double timestamp_ns;         /* a timestamp tick in ns (0: no timestamps on the queue) */
  double ticks_per_us;         /* the shader clock's rate, measured on first use (0: not yet) */
  int clock32;                 /* the clock counts in 32 bits (lavapipe): bounds kept below 2^31 */
  int group_scope;             /* work-group barriers at work-group scope (wgsync.glsl: a GPU
                                  with availability and visibility chains) */
  int wrapped;                 /* the user's VkDevice (wgs_device_wrap_vulkan): never destroyed
                                  here; wgsync's own objects on it are */
  wgs_program_t *tools[2];     /* the tools' shaders, unchecked and checked (made on first use) */
} wgs__vk_device;

typedef struct {
  WGS__BUFFER_HEAD; /* ops, device, size (src/device.h) */
  VkBuffer buf;
  VkDeviceMemory mem;
  void *map; /* host-visible, coherent, mapped for its life (NULL: the user's, wrapped) */
  int wrapped; /* the user's VkBuffer (wgs_buffer_wrap_vulkan): neither mapped nor freed here */
} wgs__vk_buffer;

/* A launch in flight: its command buffer, fence and (when timed) timestamps. */
typedef struct {
  VkCommandBuffer cb;
  VkFence fence;
} wgs__vk_flight;
#define WGS_VK_FLIGHTS 8

typedef struct {
  WGS__STATE_HEAD;       /* ops, device, capacity, launch log and lock (src/device.h) */
  wgs__vk_buffer words;  /* the state (wgs_layout.h) */
  wgs__vk_flight flight[WGS_VK_FLIGHTS];
  unsigned in_flight;    /* launches submitted since the last result */
  VkQueryPool timing;    /* 2 timestamps: the latest timed launch's dispatch */
  int timed;             /* the latest launch wrote them */
  VkEvent done;          /* set by a launch recorded into the user's command buffer at its end
                            (wgs_launch_record_vulkan), made on the first one */
  int recorded;          /* such a launch is pending: its result not yet read */
} wgs__vk_state;

/* A program: SPIR-V modules, one per kernel (a user module's entry points, the tools' by name),
 * as many as it has. */
typedef struct {
  WGS__OBJECT_HEAD;
  int refs;
  int checked;           /* built with -DWGS_CHECKED=1 (options), or the tools' checked set */
  int owned;             /* the tools': the device holds it */
  unsigned n;
  struct wgs__vk_module {
    char *name;          /* the entry point (a user module) or the tool's name */
    char *entry;
    uint32_t *words;
    size_t n_words;
    VkShaderModule module;
  } *m;
  char log[256];
} wgs__vk_program;

/* A kernel: a module's entry point, its arguments by index (a buffer at binding = index, bytes in
 * the push constants in index order, a __local size as specialisation constant 1), and the
 * pipelines made for the local sizes it was launched with. */
#define WGS_VK_ARGS 16
#define WGS_VK_PIPELINES 4
typedef struct {
  WGS__OBJECT_HEAD;
  wgs__vk_program *prog;
  unsigned module;
  struct {
    int kind;            /* 0 unset, 1 buffer, 2 bytes, 3 local memory */
    VkBuffer buf;
    unsigned char bytes[16];
    size_t size;
  } arg[WGS_VK_ARGS];
  unsigned nargs;
  wgs__spirv_args want;  /* what the entry point takes (src/spirv/reflect.c) */
  uint32_t local_words;  /* specialisation constant 1 */
  struct {
    size_t local;
    uint32_t local_words, bindings; /* what the pipeline was made for */
    unsigned push_bytes, state_arg;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe;
  } pipe[WGS_VK_PIPELINES];
  unsigned next_pipe;
} wgs__vk_kernel;

/* Devices (vk_device.c). */
void wgs__vk_dev_retain(wgs_device_t *dev);
void wgs__vk_dev_release(wgs_device_t *dev);
/* A one-time command buffer on the device's queue, waited for (copies, fills). */
int wgs__vk_begin_once(wgs__vk_device *d, VkCommandBuffer *cb);
int wgs__vk_end_once(wgs__vk_device *d, VkCommandBuffer cb, const char *what);
/* Waits for everything the device's queue holds. */
int wgs__vk_idle(wgs__vk_device *d);
/* The shader clock's ticks per microsecond (measured once per device). */
int wgs__vk_clock_rate(wgs__vk_device *d, double *ticks_per_us);

/* Buffers (vk_program.c). */
int wgs__vk_buffer_alloc(wgs__vk_device *d, size_t bytes, wgs__vk_buffer *b);
void wgs__vk_buffer_free(wgs__vk_device *d, wgs__vk_buffer *b);

/* The table's entries. */
int wgs__vk_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
void wgs__vk_state_release(wgs_state_t *st);
extern const wgs__launch_via wgs__vk_launch; /* the table's (src/launch.h) */
/* The arguments kernel k's shader takes (k->want), as a count and as text for messages. */
unsigned wgs__vk_arg_count(const wgs__vk_kernel *k);
const char *wgs__vk_args_text(const wgs__vk_kernel *k, char *out, size_t cap);
const char *wgs__vk_other_name(const wgs__vk_kernel *k, unsigned binding);
int wgs__vk_result_words(wgs_state_t *st, uint32_t *glob, double *kernel_us);
int wgs__vk_clear_error(wgs_state_t *st);
int wgs__vk_read_words(wgs_state_t *st, size_t offset, size_t n, uint32_t *out);
int wgs__vk_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                             const char *options, wgs_program_t **out);
void wgs__vk_program_release(wgs_program_t *p);
void wgs__vk_program_free(wgs_program_t *p); /* (vk_device.c) without the device's reference (the tools') */
const char *wgs__vk_program_build_log(const wgs_program_t *p);
int wgs__vk_kernel_create(wgs_program_t *p, const char *name, wgs_kernel_t **out);
void wgs__vk_kernel_release(wgs_kernel_t *k);
int wgs__vk_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value);
int wgs__vk_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b);
int wgs__vk_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out);
int wgs__vk_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
void wgs__vk_buffer_release(wgs_buffer_t *b);
int wgs__vk_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src);
int wgs__vk_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst);
int wgs__vk_tools_program(wgs_device_t *dev, int checked, wgs_program_t **out);
/* The shared memory the device library takes (wgsync.glsl: wgsi_sh). */
#define WGS_VK_LIBRARY_SHARED 12u
int wgs__vk_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                  wgs_discovery disc, int do_barrier, wgs_launch_result *res);
int wgs__vk_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
               uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8]);
int wgs__vk_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                    uint32_t rounds, uint32_t repeats, double *us);

#endif
