/* Vulkan backend: the loader's entry points, devices (list, open, info, references), one-time
 * command buffers, and the backend's table (src/device.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vk_internal.h"
#include "wgsync_vulkan.h"

/* ---- the loader and the process's instance --------------------------------------------------- */
static pthread_mutex_t instance_lock = PTHREAD_MUTEX_INITIALIZER;
static VkInstance instance;
static wgs__vk_fns fns;
static int instance_rc = -1; /* -1: not tried; else the status of the one try */
static char instance_why[256];

static int make_instance(void)
{
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return wgs__fail(WGS_ENODEV, "no Vulkan loader (libvulkan.so.1: %s)", dlerror());
  fns.vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  if (!fns.vkGetInstanceProcAddr)
    return wgs__fail(WGS_ENODEV, "the Vulkan loader has no vkGetInstanceProcAddr");
  fns.vkCreateInstance = (PFN_vkCreateInstance)fns.vkGetInstanceProcAddr(NULL, "vkCreateInstance");
  fns.vkEnumerateInstanceVersion =
      (PFN_vkEnumerateInstanceVersion)fns.vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
  uint32_t version = VK_API_VERSION_1_0;
  if (fns.vkEnumerateInstanceVersion)
    fns.vkEnumerateInstanceVersion(&version);
  if (!fns.vkCreateInstance || version < VK_API_VERSION_1_2)
    return wgs__fail(WGS_ENODEV, "the Vulkan loader offers %u.%u; wgsync needs Vulkan 1.2 (the "
                                 "memory model)", VK_API_VERSION_MAJOR(version),
                     VK_API_VERSION_MINOR(version));
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "wgsync", .pEngineName = "wgsync",
                           .apiVersion = VK_API_VERSION_1_2};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  WGS__VK(fns.vkCreateInstance(&ci, NULL, &instance), "vkCreateInstance");
#define WGS_VK_LOAD(f) fns.f = (PFN_##f)fns.vkGetInstanceProcAddr(instance, #f);
  WGS_VK_INSTANCE_FNS(WGS_VK_LOAD)
#undef WGS_VK_LOAD
  return WGS_OK;
}

int wgs__vk_instance(VkInstance *inst, const wgs__vk_fns **out)
{
  pthread_mutex_lock(&instance_lock);
  if (instance_rc < 0) {
    instance_rc = make_instance();
    snprintf(instance_why, sizeof instance_why, "%s", instance_rc ? wgs_last_error() : "");
  }
  int rc = instance_rc;
  pthread_mutex_unlock(&instance_lock);
  if (rc != WGS_OK)
    return wgs__fail(rc, "%s", instance_why);
  *inst = instance;
  *out = &fns;
  return WGS_OK;
}

/* ---- physical devices ------------------------------------------------------------------------ */
#define MAX_PHYS 16
static const char *const needed_ext[] = {"VK_KHR_shader_clock", "VK_KHR_push_descriptor"};

/* Whether the device can run wgsync's shaders: the memory model, 64-bit integers, the device
 * clock, subgroup votes, push descriptors, a compute queue. why: the first thing missing. */
static int usable(const wgs__vk_fns *vk, VkPhysicalDevice p, uint32_t *qfam, int *device_scope,
                  int *chains, char *why, size_t cap)
{
  VkExtensionProperties ext[512];
  uint32_t n = 512;
  vk->vkEnumerateDeviceExtensionProperties(p, NULL, &n, ext);
  for (unsigned i = 0; i < sizeof needed_ext / sizeof *needed_ext; i++) {
    int found = 0;
    for (uint32_t j = 0; j < n && !found; j++)
      found = !strcmp(ext[j].extensionName, needed_ext[i]);
    if (!found) {
      snprintf(why, cap, "no %s", needed_ext[i]);
      return 0;
    }
  }
  VkPhysicalDeviceShaderClockFeaturesKHR clock = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                          .pNext = &clock};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v12};
  vk->vkGetPhysicalDeviceFeatures2(p, &f);
  const char *miss = !v12.vulkanMemoryModel ? "vulkanMemoryModel"
                     : !f.features.shaderInt64 ? "shaderInt64"
                     : !clock.shaderDeviceClock ? "shaderDeviceClock (VK_KHR_shader_clock)"
                                                : NULL;
  if (miss) {
    snprintf(why, cap, "no %s", miss);
    return 0;
  }
  VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 pp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
  vk->vkGetPhysicalDeviceProperties2(p, &pp);
  if (!(sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
      !(sg.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT)) {
    snprintf(why, cap, "no subgroup vote in compute shaders");
    return 0;
  }
  *device_scope = v12.vulkanMemoryModelDeviceScope;
  *chains = v12.vulkanMemoryModelAvailabilityVisibilityChains;
  VkQueueFamilyProperties q[32];
  uint32_t nq = 32;
  vk->vkGetPhysicalDeviceQueueFamilyProperties(p, &nq, q);
  for (uint32_t i = 0; i < nq; i++)
    if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      *qfam = i;
      return 1;
    }
  snprintf(why, cap, "no compute queue");
  return 0;
}

/* The usable physical devices, in the loader's order ("vulkan:N" is the N-th of them). */
static int usable_devices(const wgs__vk_fns **vk, VkPhysicalDevice *out, uint32_t *count)
{
  VkInstance inst;
  int rc = wgs__vk_instance(&inst, vk);
  if (rc != WGS_OK)
    return rc;
  VkPhysicalDevice all[MAX_PHYS];
  uint32_t n = MAX_PHYS;
  VkResult r = (*vk)->vkEnumeratePhysicalDevices(inst, &n, all);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return wgs__vk_fail("vkEnumeratePhysicalDevices", r);
  char why[512] = "";
  *count = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t q;
    int ds, ch;
    char one[128];
    if (usable(*vk, all[i], &q, &ds, &ch, one, sizeof one)) {
      out[(*count)++] = all[i];
    } else {
      VkPhysicalDeviceProperties pp;
      (*vk)->vkGetPhysicalDeviceProperties(all[i], &pp);
      size_t used = strlen(why);
      snprintf(why + used, sizeof why - used, "%s'%s': %s", used ? "; " : "", pp.deviceName, one);
    }
  }
  if (*count == 0)
    return wgs__fail(WGS_ENODEV, "no Vulkan device wgsync can use (%s)",
                     n ? why : "the loader found no device");
  return WGS_OK;
}

static const char *vendor_name(uint32_t id)
{
  switch (id) {
  case 0x10de: return "NVIDIA";
  case 0x1002: return "AMD";
  case 0x8086: return "Intel";
  case 0x13b5: return "ARM";
  case 0x5143: return "Qualcomm";
  case 0x106b: return "Apple";
  case 0x10005: return "Mesa";
  default: return "unknown";
  }
}

/* The device's info (src/device.h's head): the limits wgsync plans launches with. */
static void describe(const wgs__vk_fns *vk, VkPhysicalDevice p, uint32_t index, wgs_device_info *in)
{
  memset(in, 0, sizeof *in);
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                          .pNext = &sm};
  VkPhysicalDeviceProperties2 pp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &drv};
  vk->vkGetPhysicalDeviceProperties2(p, &pp);
  const VkPhysicalDeviceProperties *pr = &pp.properties;
  in->backend = WGS_BACKEND_VULKAN;
  in->platform_index = -1;
  in->device_index = (int)index;
  snprintf(in->platform_name, sizeof in->platform_name, "Vulkan");
  snprintf(in->name, sizeof in->name, "%s", pr->deviceName);
  snprintf(in->vendor, sizeof in->vendor, "%s", vendor_name(pr->vendorID));
  snprintf(in->driver_version, sizeof in->driver_version, "%.60s %.60s", drv.driverName, drv.driverInfo);
  snprintf(in->device_version, sizeof in->device_version, "Vulkan %u.%u.%u",
           VK_API_VERSION_MAJOR(pr->apiVersion), VK_API_VERSION_MINOR(pr->apiVersion),
           VK_API_VERSION_PATCH(pr->apiVersion));
  snprintf(in->c_version, sizeof in->c_version, "GLSL 4.60 (SPIR-V)");
  in->is_gpu = pr->deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
               pr->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
               pr->deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
  in->is_cpu = pr->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  /* Compute units: NVIDIA's SMs (VK_NV_shader_sm_builtins, zero elsewhere); lavapipe runs one
   * work-group per worker thread, LP_NUM_THREADS of them (the machine's processors unless set). */
  in->compute_units = sm.shaderSMCount;
  if (in->is_cpu) {
    const char *t = getenv("LP_NUM_THREADS");
    long v = t && *t ? strtol(t, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    in->compute_units = v > 0 ? (unsigned)v : 1;
  }
  in->max_work_group_size = pr->limits.maxComputeWorkGroupInvocations < pr->limits.maxComputeWorkGroupSize[0]
                                ? pr->limits.maxComputeWorkGroupInvocations
                                : pr->limits.maxComputeWorkGroupSize[0];
  in->local_mem_bytes = pr->limits.maxComputeSharedMemorySize;
  VkPhysicalDeviceMemoryProperties mp;
  vk->vkGetPhysicalDeviceMemoryProperties(p, &mp);
  for (uint32_t h = 0; h < mp.memoryHeapCount; h++)
    if ((mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        mp.memoryHeaps[h].size > in->global_mem_bytes)
      in->global_mem_bytes = mp.memoryHeaps[h].size;
  in->atomics = WGS_ATOMICS_VULKAN;
  in->has_acq_rel = 1;
  in->has_scope_device = 1; /* (QueueFamily scope: every invocation of a dispatch) */
  in->has_split_barrier = 0;
  in->has_timer = 1;
}

static int vk_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  const wgs__vk_fns *vk;
  VkPhysicalDevice p[MAX_PHYS];
  uint32_t n = 0;
  *count = 0;
  int rc = usable_devices(&vk, p, &n);
  if (rc != WGS_OK)
    return rc;
  for (uint32_t i = 0; i < n && *count < cap; i++)
    describe(vk, p[i], i, &infos[(*count)++]);
  return WGS_OK;
}

/* A program's modules and memory, destroyed with the device's functions: for a program's last
 * release (vk_program.c), and for the tools' programs the device owns, at its teardown. */
void wgs__vk_program_free(wgs_program_t *pp)
{
  wgs__vk_program *p = (wgs__vk_program *)(void *)pp;
  wgs__vk_device *d = (wgs__vk_device *)(void *)p->dev;
  for (unsigned i = 0; i < p->n; i++) {
    if (p->m[i].module)
      d->d.vkDestroyShaderModule(d->device, p->m[i].module, NULL);
    free(p->m[i].words);
    free(p->m[i].name);
    free(p->m[i].entry);
  }
  free(p->m);
  free(p);
}

void wgs__vk_dev_retain(wgs_device_t *dev)
{
  __atomic_add_fetch(&((wgs__vk_device *)(void *)dev)->refs, 1, __ATOMIC_RELAXED);
}

void wgs__vk_dev_release(wgs_device_t *dev)
{
  wgs__vk_device *d = (wgs__vk_device *)(void *)dev;
  if (!d || __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  for (int i = 0; i < 2; i++)
    if (d->tools[i])
      wgs__vk_program_free(d->tools[i]); /* (it holds no reference to the device) */
  if (d->device && d->pool) {
    /* (the user's queue: wgsync's own launches on it have been waited for, see the drains) */
    if (!d->wrapped)
      d->d.vkQueueWaitIdle(d->queue);
    d->d.vkDestroyCommandPool(d->device, d->pool, NULL);
  }
  if (d->device && !d->wrapped)
    d->d.vkDestroyDevice(d->device, NULL);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

static int finish(wgs__vk_device *d, wgs_device_t **out);

static int vk_open(const wgs_device_select *sel, const char *how, wgs_device_t **out)
{
  const wgs__vk_fns *vk;
  VkPhysicalDevice p[MAX_PHYS];
  uint32_t n = 0;
  int rc = usable_devices(&vk, p, &n);
  if (rc != WGS_OK)
    return rc;
  uint32_t index = sel->device < 0 ? 0u : (uint32_t)sel->device;
  if (index >= n)
    return wgs__fail(WGS_ENODEV, "no Vulkan device matches %s: this machine has %u Vulkan "
                                 "device(s) wgsync can use (vulkan:0..vulkan:%u)", how, n, n - 1);
  wgs__vk_device *d = calloc(1, sizeof *d);
  if (!d)
    return wgs__fail(WGS_ENOMEM, "wgs_device_open: out of memory");
  d->ops = &wgs__vulkan_ops;
  d->refs = 1;
  d->vk = vk;
  d->d = *vk;
  d->phys = p[index];
  pthread_mutex_init(&d->lock, NULL);
  describe(vk, d->phys, index, &d->info);
  int device_scope = 0, chains = 0;
  char why[128];
  usable(vk, d->phys, &d->queue_family, &device_scope, &chains, why, sizeof why);
  d->group_scope = chains && !d->info.is_cpu;
  vk->vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem);
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                .queueFamilyIndex = d->queue_family, .queueCount = 1,
                                .pQueuePriorities = &prio};
  VkPhysicalDeviceShaderClockFeaturesKHR clock = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
      .shaderDeviceClock = VK_TRUE};
  /* Device scope too where offered: a user's atomics at Device scope (GLSL's default under the
   * memory model) need it. */
  VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                          .pNext = &clock, .vulkanMemoryModel = VK_TRUE,
                                          .vulkanMemoryModelDeviceScope = device_scope ? VK_TRUE : VK_FALSE,
                                          .vulkanMemoryModelAvailabilityVisibilityChains =
                                              chains ? VK_TRUE : VK_FALSE};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v12};
  f.features.shaderInt64 = VK_TRUE;
  VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f,
                           .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
                           .enabledExtensionCount = sizeof needed_ext / sizeof *needed_ext,
                           .ppEnabledExtensionNames = needed_ext};
  VkResult r = vk->vkCreateDevice(d->phys, &di, NULL, &d->device);
  if (r != VK_SUCCESS) {
    d->device = VK_NULL_HANDLE;
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__vk_fail("vkCreateDevice", r);
  }
  return finish(d, out);
}

/* A device's entry points, its command pool and timestamp period, once d->device and its queue
 * are known (a device wgsync made, or the user's). Releases d on failure. */
static int finish(wgs__vk_device *d, wgs_device_t **out)
{
  const wgs__vk_fns *vk = d->vk;
  const char *missing = NULL;
#define WGS_VK_LOAD(f)                                                                            \
  if (!(d->d.f = (PFN_##f)vk->vkGetDeviceProcAddr(d->device, #f)) && !missing)                    \
    missing = #f;
  WGS_VK_DEVICE_FNS(WGS_VK_LOAD)
#undef WGS_VK_LOAD
  if (missing) {
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__fail(WGS_EINVAL, "the Vulkan device has no %s (wgsync needs the device made with "
                                 "VK_KHR_push_descriptor and VK_KHR_shader_clock enabled)", missing);
  }
  if (!d->queue) /* (a device wgsync made: its one queue) */
    d->d.vkGetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = d->queue_family};
  VkResult r = d->d.vkCreateCommandPool(d->device, &pi, NULL, &d->pool);
  if (r != VK_SUCCESS) {
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__vk_fail("vkCreateCommandPool", r);
  }
  VkPhysicalDeviceProperties pp;
  vk->vkGetPhysicalDeviceProperties(d->phys, &pp);
  VkQueueFamilyProperties q[32];
  uint32_t nq = 32;
  vk->vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nq, q);
  d->timestamp_ns = q[d->queue_family].timestampValidBits ? pp.limits.timestampPeriod : 0.0;
  *out = (wgs_device_t *)(void *)d;
  return WGS_OK;
}

/* wgsync on the user's device (wgsync_vulkan.h): the entry points from the user's loader, the
 * physical device checked as a device wgsync opens is, the queue family checked for compute.
 * What the device was created with cannot be asked of Vulkan: the device-level entry points
 * that are missing (push descriptors) say so, the rest is the caller's promise. */
int wgs_device_wrap_vulkan(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance,
                           VkPhysicalDevice physical_device, VkDevice device, uint32_t queue_family,
                           VkQueue queue, wgs_device_t **out)
{
  const char *null = !get_instance_proc_addr ? "get_instance_proc_addr" : !instance ? "instance"
                     : !physical_device ? "physical_device" : !device ? "device"
                     : !queue ? "queue" : !out ? "out" : NULL;
  if (null)
    return wgs__fail(WGS_EINVAL, "wgs_device_wrap_vulkan: argument '%s' is NULL", null);
  *out = NULL;
  wgs__vk_device *d = calloc(1, sizeof *d);
  if (!d)
    return wgs__fail(WGS_ENOMEM, "wgs_device_wrap_vulkan: out of memory");
  wgs__vk_fns *f = &d->d; /* (the instance-level ones first, kept beside the device's) */
  f->vkGetInstanceProcAddr = get_instance_proc_addr;
#define WGS_VK_LOAD(fn) f->fn = (PFN_##fn)get_instance_proc_addr(instance, #fn);
  WGS_VK_INSTANCE_FNS(WGS_VK_LOAD)
#undef WGS_VK_LOAD
  d->wrapped_fns = *f;
  d->vk = &d->wrapped_fns;
  d->ops = &wgs__vulkan_ops;
  d->refs = 1;
  d->wrapped = 1;
  d->phys = physical_device;
  d->device = device;
  d->queue = queue;
  pthread_mutex_init(&d->lock, NULL);
  if (!f->vkGetDeviceProcAddr || !f->vkGetPhysicalDeviceFeatures2) {
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__fail(WGS_EINVAL, "wgs_device_wrap_vulkan: the instance gives no "
                                 "vkGetDeviceProcAddr or vkGetPhysicalDeviceFeatures2 (Vulkan 1.2 "
                                 "is needed)");
  }
  uint32_t family = 0;
  int device_scope = 0, chains = 0;
  char why[128];
  if (!usable(d->vk, physical_device, &family, &device_scope, &chains, why, sizeof why)) {
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__fail(WGS_EINVAL, "wgs_device_wrap_vulkan: the physical device cannot run "
                                 "wgsync's shaders: %s", why);
  }
  VkQueueFamilyProperties q[32];
  uint32_t nq = 32;
  d->vk->vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &nq, q);
  if (queue_family >= nq || !(q[queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
    wgs__vk_dev_release((wgs_device_t *)(void *)d);
    return wgs__fail(WGS_EINVAL, "wgs_device_wrap_vulkan: queue family %u %s", queue_family,
                     queue_family >= nq ? "does not exist on the physical device"
                                        : "has no compute queues");
  }
  d->queue_family = queue_family;
  describe(d->vk, physical_device, 0, &d->info);
  /* work-group scope barriers need the availability and visibility chains enabled, which the
   * caller may not have done: the library's own queue-family scope (wgsync.glsl), which needs
   * the memory model alone */
  d->group_scope = 0;
  d->vk->vkGetPhysicalDeviceMemoryProperties(physical_device, &d->mem);
  return finish(d, out);
}

static void vk_close(wgs_device_t *dev) { wgs__vk_dev_release(dev); }

static uint32_t vk_default_groups(const wgs_device_t *dev, size_t local_size)
{
  const wgs_device_info *in = &wgs__head(dev)->info;
  unsigned cu = in->compute_units ? in->compute_units : 64; /* (no count known: a GPU's guess) */
  return wgs__default_groups(cu, local_size, in->is_gpu, strcmp(in->vendor, "NVIDIA") ? 2u : 1u);
}

static int vk_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes)
{
  (void)local_size; /* (the device's limit less what the device library takes) */
  *bytes = (size_t)wgs__head(dev)->info.local_mem_bytes - WGS_VK_LIBRARY_SHARED;
  return WGS_OK;
}

/* ---- one-time command buffers ------------------------------------------------------------------ */
int wgs__vk_begin_once(wgs__vk_device *d, VkCommandBuffer *cb)
{
  pthread_mutex_lock(&d->lock);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = d->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkResult r = d->d.vkAllocateCommandBuffers(d->device, &ai, cb);
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    r = d->d.vkBeginCommandBuffer(*cb, &bi);
  }
  pthread_mutex_unlock(&d->lock);
  return r == VK_SUCCESS ? WGS_OK : wgs__vk_fail("vkAllocateCommandBuffers", r);
}

int wgs__vk_end_once(wgs__vk_device *d, VkCommandBuffer cb, const char *what)
{
  pthread_mutex_lock(&d->lock);
  VkResult r = d->d.vkEndCommandBuffer(cb);
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &cb};
  if (r == VK_SUCCESS)
    r = d->d.vkQueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
  if (r == VK_SUCCESS)
    r = d->d.vkQueueWaitIdle(d->queue);
  d->d.vkFreeCommandBuffers(d->device, d->pool, 1, &cb);
  pthread_mutex_unlock(&d->lock);
  return r == VK_SUCCESS ? WGS_OK : wgs__vk_fail(what, r);
}

int wgs__vk_idle(wgs__vk_device *d)
{
  pthread_mutex_lock(&d->lock);
  VkResult r = d->d.vkQueueWaitIdle(d->queue);
  pthread_mutex_unlock(&d->lock);
  return r == VK_SUCCESS ? WGS_OK : wgs__vk_fail("vkQueueWaitIdle", r);
}

/* The Vulkan backend's operations (src/device.h). Programs are SPIR-V modules (GLSL compiled
 * with glslangValidator against device/vulkan/wgsync.glsl); no source builds. */
const wgs__backend_ops wgs__vulkan_ops = {
    .name = "Vulkan",
    .open = vk_open,
    .list = vk_list,
    .close = vk_close,
    .default_groups = vk_default_groups,
    .max_local_mem = vk_max_local_mem,
    .micro = wgs__vk_micro,
    .mp = wgs__vk_mp,
    .latency = wgs__vk_latency,
    .program_build = NULL,
    .program_build_il = wgs__vk_program_build_il,
    .program_release = wgs__vk_program_release,
    .program_build_log = wgs__vk_program_build_log,
    .kernel_create = wgs__vk_kernel_create,
    .kernel_release = wgs__vk_kernel_release,
    .kernel_set_arg = wgs__vk_kernel_set_arg,
    .kernel_set_arg_buffer = wgs__vk_kernel_set_arg_buffer,
    .kernel_run = NULL,
    .kernel_resources = wgs__vk_kernel_resources,
    .tools_program = wgs__vk_tools_program,
    .buffer_create = wgs__vk_buffer_create,
    .buffer_release = wgs__vk_buffer_release,
    .buffer_write = wgs__vk_buffer_write,
    .buffer_read = wgs__vk_buffer_read,
    .state_create = wgs__vk_state_create,
    .state_release = wgs__vk_state_release,
    .launch = &wgs__vk_launch,
    .result_words = wgs__vk_result_words,
    .clear_error = wgs__vk_clear_error,
    .read_words = wgs__vk_read_words,
};
