/*
 * wgsync on a program's own Vulkan objects (include/wgsync_vulkan.h), as an engine would use it:
 * the program makes its instance, device, queue, command pool and storage buffer, and its own
 * memory; wgsync wraps them; the README's persistent shader (tests/kernels/persist.comp) is
 * recorded into the program's command buffer between the program's own commands (a fill before,
 * a copy after), the program submits with its own fence, and the result comes from wgsync after.
 * Checked: every element (the fill's value + the rounds), the copy made after the launch in the
 * same command buffer, the participants; a result asked before the submit, a second record, a
 * wgs_launch while a recorded one is pending, and wgsync reads of the program's buffer are
 * refused with messages; a wgs_launch on the wrapped device after that; and the program's device
 * is still its own after wgsync is closed (it is used, then destroyed, by the program).
 *   test_vulkan_interop [checked]     (77: no Vulkan device)
 */
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wgsync_vulkan.h"

static PFN_vkGetInstanceProcAddr gipa;
static VkInstance inst;
static VkDevice dev;
#define GI(f) PFN_##f f = (PFN_##f)gipa(inst, #f)
#define GD(f) PFN_##f f = (PFN_##f)vkGetDeviceProcAddr(dev, #f)

static size_t read_spv(const char *file, uint32_t *w, size_t cap)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", WGS_TEST_SPV_DIR, file);
  FILE *f = fopen(path, "rb");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  size_t n = fread(w, 4, cap, f);
  fclose(f);
  return n;
}

static uint32_t memory_type(VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags want)
{
  for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
    if ((bits >> i & 1u) && (mp->memoryTypes[i].propertyFlags & want) == want)
      return i;
  CHECK_MSG(0, "no memory type with flags 0x%x", (unsigned)want);
  return 0;
}

int main(int argc, char **argv)
{
  int checked = argc > 1 && !strcmp(argv[1], "checked");
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("SKIP: no Vulkan loader\n");
    return WGS_SKIP;
  }
  gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  PFN_vkCreateInstance vkCreateInstance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "interop",
                           .apiVersion = VK_API_VERSION_1_2};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
    printf("SKIP: no Vulkan 1.2 instance\n");
    return WGS_SKIP;
  }
  GI(vkEnumeratePhysicalDevices);
  GI(vkGetPhysicalDeviceQueueFamilyProperties);
  GI(vkGetPhysicalDeviceFeatures2);
  GI(vkGetPhysicalDeviceMemoryProperties);
  GI(vkGetPhysicalDeviceProperties);
  GI(vkCreateDevice);
  GI(vkGetDeviceProcAddr);
  GI(vkDestroyInstance);
  VkPhysicalDevice phys[8];
  uint32_t np = 8;
  vkEnumeratePhysicalDevices(inst, &np, phys);
  if (np == 0) {
    printf("SKIP: no Vulkan device\n");
    return WGS_SKIP;
  }
  VkPhysicalDevice pd = phys[0];
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  VkQueueFamilyProperties qf[16];
  uint32_t nq = 16, fam = UINT32_MAX;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);
  for (uint32_t i = 0; i < nq && fam == UINT32_MAX; i++)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      fam = i;
  CHECK(fam != UINT32_MAX);

  /* the program's device, made with what wgsync_vulkan.h asks for */
  VkPhysicalDeviceShaderClockFeaturesKHR clock = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &clock};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v12};
  vkGetPhysicalDeviceFeatures2(pd, &f2);
  VkPhysicalDeviceShaderClockFeaturesKHR want_clock = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR, .shaderDeviceClock = VK_TRUE};
  VkPhysicalDeviceVulkan12Features want12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .pNext = &want_clock, .vulkanMemoryModel = VK_TRUE,
                                             .vulkanMemoryModelDeviceScope = v12.vulkanMemoryModelDeviceScope};
  VkPhysicalDeviceFeatures2 want = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &want12};
  want.features.shaderInt64 = VK_TRUE;
  const char *ext[] = {"VK_KHR_shader_clock", "VK_KHR_push_descriptor"};
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = fam,
                                .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &want,
                            .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
                            .enabledExtensionCount = 2, .ppEnabledExtensionNames = ext};
  if (!v12.vulkanMemoryModel || !clock.shaderDeviceClock || vkCreateDevice(pd, &dci, NULL, &dev) != VK_SUCCESS) {
    printf("SKIP: '%s' cannot make the device wgsync needs\n", props.deviceName);
    return WGS_SKIP;
  }
  GD(vkGetDeviceQueue);
  GD(vkCreateBuffer);
  GD(vkGetBufferMemoryRequirements);
  GD(vkAllocateMemory);
  GD(vkBindBufferMemory);
  GD(vkMapMemory);
  GD(vkCreateCommandPool);
  GD(vkAllocateCommandBuffers);
  GD(vkBeginCommandBuffer);
  GD(vkEndCommandBuffer);
  GD(vkCmdFillBuffer);
  GD(vkCmdCopyBuffer);
  GD(vkCreateFence);
  GD(vkWaitForFences);
  GD(vkQueueSubmit);
  GD(vkDeviceWaitIdle);
  GD(vkDestroyBuffer);
  GD(vkFreeMemory);
  GD(vkDestroyCommandPool);
  GD(vkDestroyFence);
  GD(vkDestroyDevice);
  VkQueue queue;
  vkGetDeviceQueue(dev, fam, 0, &queue);

  /* the program's buffers: x (the shader's) and y (its copy after the launch), host-visible */
  const uint32_t n = 4096, iters = 50, fill = 7;
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  VkBuffer buf[2];
  VkDeviceMemory mem[2];
  uint32_t *map[2];
  for (int i = 0; i < 2; i++) {
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = n * 4u,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
    CHECK(vkCreateBuffer(dev, &bci, NULL, &buf[i]) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, buf[i], &req);
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = memory_type(&mp, req.memoryTypeBits,
                                                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)};
    CHECK(vkAllocateMemory(dev, &mai, NULL, &mem[i]) == VK_SUCCESS);
    CHECK(vkBindBufferMemory(dev, buf[i], mem[i], 0) == VK_SUCCESS);
    CHECK(vkMapMemory(dev, mem[i], 0, VK_WHOLE_SIZE, 0, (void **)&map[i]) == VK_SUCCESS);
    memset(map[i], 0xff, n * 4u);
  }
  VkCommandPool pool;
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = fam};
  CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool) == VK_SUCCESS);
  VkCommandBuffer cb;
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  CHECK(vkAllocateCommandBuffers(dev, &cai, &cb) == VK_SUCCESS);

  /* wgsync on them */
  wgs_device_t *wd;
  CHECK_OK(wgs_device_wrap_vulkan(gipa, inst, pd, dev, fam, queue, &wd));
  wgs_device_info info;
  CHECK_OK(wgs_device_get_info(wd, &info));
  printf("wrapped '%s' (%s), queue family %u, %u compute units\n", info.name, wgs_backend_name(info.backend),
         fam, info.compute_units);
  static uint32_t words[1 << 18];
  size_t nw = read_spv(checked ? "persist_1.spv" : "persist_0.spv", words, sizeof words / sizeof *words);
  wgs_program_t *prog;
  wgs_kernel_t *k;
  CHECK_OK(wgs_program_build_il(wd, words, nw, checked ? "-DWGS_CHECKED=1" : "", &prog));
  CHECK_OK(wgs_kernel_create(prog, "main", &k));
  wgs_buffer_t *x;
  CHECK_OK(wgs_buffer_wrap_vulkan(wd, buf[0], n * 4u, &x));
  CHECK_OK(wgs_kernel_set_arg_buffer(k, 1, x));
  CHECK_OK(wgs_kernel_set_arg(k, 2, sizeof n, &n));
  CHECK_OK(wgs_kernel_set_arg(k, 3, sizeof iters, &iters));
  wgs_state_t *st;
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  CHECK_OK(wgs_state_create(wd, wgs_default_groups(wd, cfg.local_size), &st));

  /* the program's command buffer: its fill, wgsync's launch, its copy */
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  CHECK(vkBeginCommandBuffer(cb, &bi) == VK_SUCCESS);
  vkCmdFillBuffer(cb, buf[0], 0, VK_WHOLE_SIZE, fill);
  CHECK_OK(wgs_launch_record_vulkan(st, k, &cfg, cb));
  VkBufferCopy region = {0, 0, n * 4u};
  vkCmdCopyBuffer(cb, buf[0], buf[1], 1, &region);
  CHECK(vkEndCommandBuffer(cb) == VK_SUCCESS);

  /* refused while the launch is recorded and not submitted */
  wgs_launch_result res;
  int rc = wgs_state_result(st, &res);
  CHECK_MSG(rc == WGS_EINVAL && strstr(wgs_last_error(), "has not completed"),
            "a result before the submit: %s: %s", wgs_status_name(rc), wgs_last_error());
  printf("refused as it should: %s\n", wgs_last_error());
  VkCommandBuffer cb2;
  CHECK(vkAllocateCommandBuffers(dev, &cai, &cb2) == VK_SUCCESS);
  CHECK(vkBeginCommandBuffer(cb2, &bi) == VK_SUCCESS);
  rc = wgs_launch_record_vulkan(st, k, &cfg, cb2);
  CHECK_MSG(rc == WGS_EINVAL && strstr(wgs_last_error(), "one recorded launch per state"),
            "a second record: %s: %s", wgs_status_name(rc), wgs_last_error());
  printf("refused as it should: %s\n", wgs_last_error());
  rc = wgs_launch_async(st, k, &cfg);
  CHECK_MSG(rc == WGS_EINVAL && strstr(wgs_last_error(), "has not been reported"),
            "wgs_launch while a recorded launch is pending: %s: %s", wgs_status_name(rc), wgs_last_error());
  uint32_t probe;
  rc = wgs_buffer_read(x, 0, 4, &probe);
  CHECK_MSG(rc == WGS_EINVAL && strstr(wgs_last_error(), "your VkBuffer"),
            "wgs_buffer_read of the program's buffer: %s: %s", wgs_status_name(rc), wgs_last_error());
  printf("refused as it should: %s\n", wgs_last_error());

  /* the program submits and waits with its own fence */
  VkFence fence;
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  CHECK(vkCreateFence(dev, &fci, NULL, &fence) == VK_SUCCESS);
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  CHECK(vkQueueSubmit(queue, 1, &si, fence) == VK_SUCCESS);
  CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 60ull * 1000000000ull) == VK_SUCCESS);
  CHECK_OK(wgs_state_result(st, &res));
  printf("recorded launch: %u of %u groups took part\n", res.participants, res.launched);
  CHECK(res.participants > 0 && res.participants <= res.launched);
  for (uint32_t i = 0; i < n; i++) {
    CHECK_MSG(map[0][i] == fill + iters, "x[%u] = %u, expected %u (the program's fill, then %u rounds)",
              i, map[0][i], fill + iters, iters);
    CHECK_MSG(map[1][i] == fill + iters, "the program's copy after the launch: y[%u] = %u, expected %u",
              i, map[1][i], fill + iters);
  }
  printf("x and the program's copy of it: %u elements, each %u\n", n, fill + iters);

  /* the wrapped device runs wgsync's own launches too, on the program's queue */
  CHECK_OK(wgs_launch(st, k, &cfg, &res));
  CHECK(res.participants > 0);
  for (uint32_t i = 0; i < n; i++)
    CHECK_MSG(map[0][i] == fill + 2 * iters, "after wgs_launch: x[%u] = %u, expected %u", i, map[0][i],
              fill + 2 * iters);
  printf("wgs_launch on the wrapped device: %u groups took part\n", res.participants);

  /* wgsync's objects go; the program's device is still the program's */
  wgs_state_release(st);
  wgs_buffer_release(x);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  wgs_device_close(wd);
  CHECK(vkDeviceWaitIdle(dev) == VK_SUCCESS);
  vkDestroyFence(dev, fence, NULL);
  vkDestroyCommandPool(dev, pool, NULL);
  for (int i = 0; i < 2; i++) {
    vkDestroyBuffer(dev, buf[i], NULL);
    vkFreeMemory(dev, mem[i], NULL);
  }
  vkDestroyDevice(dev, NULL);
  vkDestroyInstance(inst, NULL);
  printf("PASS vulkan interop%s\n", checked ? " (checked)" : "");
  return 0;
}
