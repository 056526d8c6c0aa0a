/*
 * wgsync-bench-jacobi-vk: 1-D Jacobi on a Vulkan device in three forms, each checked against the
 * host's result, timed side by side in one process:
 *   persistent   every step in one dispatch, wgsync's discovery and grid barrier (bench/apps/
 *                jacobi.comp with JACOBI_PERSISTENT), launched through wgsync.h
 *   cmdbuf       one dispatch per step, all recorded in one command buffer with a compute-to-
 *                compute pipeline barrier between steps, one submit, one wait
 *   submit       one dispatch per step, each its own submit and wait (a host loop that could
 *                read a residual every step)
 * The two loop forms use the Vulkan device, queue and buffers wgsync opened (its private
 * src/vulkan/vk_internal.h: measurement code only), so all three run on the same objects.
 *
 *   wgsync-bench-jacobi-vk [-n vulkan:N] [--size N] [--steps S] [--local L] [--groups G]
 *                          [--runs R] [--csv F]
 * The persistent form launches as many groups as the grid has work for, at most the
 * over-provisioned default (discovery keeps those that run at once), or --groups.
 * Prints one line per form: microseconds per step (median, min, max of R runs after a warm-up)
 * and the check; exit 1 when a form's result differs from the host's.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wgsync.h"
#include "vulkan/vk_internal.h"

static double now_us(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static uint32_t *read_spv(const char *name, size_t *n)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", WGS_BENCH_SPV_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint32_t *w = malloc((size_t)bytes);
  *n = w ? fread(w, 4, (size_t)bytes / 4, f) : 0;
  fclose(f);
  return w;
}

#define DIE(...)                                                                                \
  do {                                                                                          \
    fprintf(stderr, "wgsync-bench-jacobi-vk: " __VA_ARGS__);                                    \
    fputc('\n', stderr);                                                                        \
    exit(2);                                                                                    \
  } while (0)
#define OK(call)                                                                                \
  do {                                                                                          \
    int rc_ = (call);                                                                           \
    if (rc_ != WGS_OK)                                                                          \
      DIE("%s: %s: %s", #call, wgs_status_name(rc_), wgs_last_error());                        \
  } while (0)
#define VK(call)                                                                                \
  do {                                                                                          \
    VkResult r_ = (call);                                                                       \
    if (r_ != VK_SUCCESS)                                                                       \
      DIE("%s failed: %d", #call, (int)r_);                                                     \
  } while (0)

/* The loop forms' Vulkan objects, on wgsync's device. */
typedef struct {
  wgs__vk_device *d;
  PFN_vkResetFences reset_fences;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipe;
  VkShaderModule module;
  VkCommandPool pool;
  VkCommandBuffer all, one[2];
  VkFence fence;
} loop_forms;

static void record(loop_forms *lf, VkCommandBuffer cb, VkBuffer u, VkBuffer f, uint32_t n,
                   uint32_t first, uint32_t steps)
{
  wgs__vk_fns *vk = &lf->d->d;
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK(vk->vkBeginCommandBuffer(cb, &bi));
  vk->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, lf->pipe);
  VkDescriptorBufferInfo bu = {u, 0, VK_WHOLE_SIZE}, bf = {f, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w[2] = {
      {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = 0, .descriptorCount = 1,
       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bu},
      {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = 1, .descriptorCount = 1,
       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bf}};
  vk->vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, lf->layout, 0, 2, w);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  for (uint32_t k = 0; k < steps; k++) {
    /* the last step's writes (in this command buffer or an earlier submit) before this one's
     * reads: a barrier's first scope is every command earlier in submission order */
    vk->vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    uint32_t pc[2] = {n, (first + k) & 1u};
    vk->vkCmdPushConstants(cb, lf->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
    vk->vkCmdDispatch(cb, (n + 255) / 256, 1, 1);
  }
  VK(vk->vkEndCommandBuffer(cb));
}

static void loop_forms_make(loop_forms *lf, wgs_device_t *dev, VkBuffer u, VkBuffer f, uint32_t n,
                            uint32_t steps)
{
  wgs__vk_device *d = lf->d = (wgs__vk_device *)(void *)dev;
  wgs__vk_fns *vk = &d->d;
  lf->reset_fences = (PFN_vkResetFences)vk->vkGetDeviceProcAddr(d->device, "vkResetFences");
  if (!lf->reset_fences)
    DIE("no vkResetFences");
  size_t nw = 0;
  uint32_t *words = read_spv("jacobi_step.spv", &nw);
  if (!words)
    exit(2);
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = nw * 4, .pCode = words};
  VK(vk->vkCreateShaderModule(d->device, &mi, NULL, &lf->module));
  free(words);
  VkDescriptorSetLayoutBinding b[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
  VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                        .bindingCount = 2, .pBindings = b};
  VK(vk->vkCreateDescriptorSetLayout(d->device, &li, NULL, &lf->dsl));
  VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
  VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                    .setLayoutCount = 1, .pSetLayouts = &lf->dsl,
                                    .pushConstantRangeCount = 1, .pPushConstantRanges = &pr};
  VK(vk->vkCreatePipelineLayout(d->device, &pli, NULL, &lf->layout));
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = lf->module, .pName = "main"},
      .layout = lf->layout};
  VK(vk->vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &ci, NULL, &lf->pipe));
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .queueFamilyIndex = d->queue_family};
  VK(vk->vkCreateCommandPool(d->device, &pi, NULL, &lf->pool));
  VkCommandBuffer cbs[3];
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = lf->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 3};
  VK(vk->vkAllocateCommandBuffers(d->device, &ai, cbs));
  lf->all = cbs[0];
  lf->one[0] = cbs[1];
  lf->one[1] = cbs[2];
  record(lf, lf->all, u, f, n, 0, steps);
  record(lf, lf->one[0], u, f, n, 0, 1);
  record(lf, lf->one[1], u, f, n, 1, 1);
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK(vk->vkCreateFence(d->device, &fi, NULL, &lf->fence));
}

static void submit_wait(loop_forms *lf, VkCommandBuffer cb)
{
  wgs__vk_fns *vk = &lf->d->d;
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                     .pCommandBuffers = &cb};
  pthread_mutex_lock(&lf->d->lock); /* wgsync's queue lock */
  VK(vk->vkQueueSubmit(lf->d->queue, 1, &si, lf->fence));
  pthread_mutex_unlock(&lf->d->lock);
  VK(vk->vkWaitForFences(lf->d->device, 1, &lf->fence, VK_TRUE, UINT64_MAX));
  VK(lf->reset_fences(lf->d->device, 1, &lf->fence));
}

static void loop_forms_free(loop_forms *lf)
{
  wgs__vk_fns *vk = &lf->d->d;
  VkDevice dv = lf->d->device;
  vk->vkDestroyFence(dv, lf->fence, NULL);
  vk->vkDestroyCommandPool(dv, lf->pool, NULL);
  vk->vkDestroyPipeline(dv, lf->pipe, NULL);
  vk->vkDestroyPipelineLayout(dv, lf->layout, NULL);
  vk->vkDestroyDescriptorSetLayout(dv, lf->dsl, NULL);
  vk->vkDestroyShaderModule(dv, lf->module, NULL);
}

int main(int argc, char **argv)
{
  const char *name = "vulkan", *csv = NULL;
  uint32_t n = 1u << 16, steps = 1000, local = 256, runs = 7, user_groups = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-n") && v) name = v, i++;
    else if (!strcmp(a, "--size") && v) n = (uint32_t)strtoul(v, NULL, 10), i++;
    else if (!strcmp(a, "--steps") && v) steps = (uint32_t)strtoul(v, NULL, 10), i++;
    else if (!strcmp(a, "--local") && v) local = (uint32_t)strtoul(v, NULL, 10), i++;
    else if (!strcmp(a, "--runs") && v) runs = (uint32_t)strtoul(v, NULL, 10), i++;
    else if (!strcmp(a, "--groups") && v) user_groups = (uint32_t)strtoul(v, NULL, 10), i++;
    else if (!strcmp(a, "--csv") && v) csv = v, i++;
    else DIE("usage: wgsync-bench-jacobi-vk [-n vulkan:N] [--size N] [--steps S] [--local L] "
             "[--groups G] [--runs R] [--csv FILE] (got '%s')", a);
  }
  if (n < 2 || steps < 1 || runs < 1 || runs > 1000 || local < 1 || local > 1024)
    DIE("--size >= 2, --steps >= 1, --runs 1..1000, --local 1..1024");
  wgs_device_t *dev;
  wgs_device_select sel = {-1, -1, name};
  OK(wgs_device_open(&sel, &dev));
  wgs_device_info in;
  OK(wgs_device_get_info(dev, &in));
  if (in.backend != WGS_BACKEND_VULKAN)
    DIE("'%s' is not a Vulkan device (-n vulkan:N)", in.name);
  char date[32];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  printf("# 1-D Jacobi, %u points, %u steps, %u runs after a warm-up\n# %s, driver %s, %s\n", n,
         steps, runs, in.name, in.driver_version, date);

  /* the host's result: the same operations in the same order */
  float *f = malloc(n * sizeof *f), *ref = calloc(2 * (size_t)n, sizeof *ref), *got = malloc(2 * (size_t)n * sizeof *got);
  float *zero = calloc(2 * (size_t)n, sizeof *zero);
  if (!f || !ref || !got || !zero)
    DIE("out of memory");
  for (uint32_t i = 0; i < n; i++)
    f[i] = 1e-3f * (float)(1 + i % 7);
  for (uint32_t k = 0; k < steps; k++) {
    float *s = ref + (size_t)(k & 1) * n, *dst = ref + (size_t)(1 - (k & 1)) * n;
    for (uint32_t i = 0; i < n; i++)
      dst[i] = ((i > 0 ? s[i - 1] : 0.0f) + (i + 1 < n ? s[i + 1] : 0.0f) + f[i]) * 0.5f;
  }
  const float *want = ref + (size_t)(steps & 1) * n;

  wgs_buffer_t *bu, *bf;
  OK(wgs_buffer_create(dev, 2 * (size_t)n * 4, &bu));
  OK(wgs_buffer_create(dev, (size_t)n * 4, &bf));
  OK(wgs_buffer_write(bf, 0, (size_t)n * 4, f));
  VkBuffer vu = ((wgs__vk_buffer *)(void *)bu)->buf, vf = ((wgs__vk_buffer *)(void *)bf)->buf;

  size_t nw = 0;
  uint32_t *words = read_spv("jacobi_persistent.spv", &nw);
  if (!words)
    return 2;
  wgs_program_t *prog;
  wgs_kernel_t *k;
  OK(wgs_program_build_il(dev, words, nw, NULL, &prog));
  free(words);
  OK(wgs_kernel_create(prog, "main", &k));
  /* right-sized: no more groups than the grid has work for (at most the over-provisioned
   * default, of which discovery keeps those that run at once); --groups sets it */
  uint32_t need = (n + local - 1) / local, groups = wgs_default_groups(dev, local);
  if (user_groups)
    groups = user_groups;
  else if (need < groups)
    groups = need;
  wgs_state_t *st;
  OK(wgs_state_create(dev, groups, &st));
  OK(wgs_kernel_set_arg_buffer(k, 1, bu));
  OK(wgs_kernel_set_arg_buffer(k, 2, bf));
  OK(wgs_kernel_set_arg(k, 3, 4, &n));
  OK(wgs_kernel_set_arg(k, 4, 4, &steps));
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = local;
  cfg.groups = groups;

  loop_forms lf;
  memset(&lf, 0, sizeof lf);
  loop_forms_make(&lf, dev, vu, vf, n, steps);

  static const char *forms[3] = {"persistent", "cmdbuf", "submit"};
  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (csv && !out)
    DIE("cannot write %s", csv);
  if (out)
    fprintf(out, "device,driver,date,form,points,steps,groups,local,median_us_per_step,min_us_per_step,"
                 "max_us_per_step,runs,max_abs_err\n");
  int bad = 0;
  double *us = malloc((runs + 1) * sizeof *us);
  if (!us)
    DIE("out of memory");
  for (int form = 0; form < 3; form++) {
    uint32_t participants = 0;
    for (uint32_t r = 0; r <= runs; r++) { /* run 0: the warm-up */
      OK(wgs_buffer_write(bu, 0, 2 * (size_t)n * 4, zero));
      double t0 = now_us();
      if (form == 0) {
        wgs_launch_result res;
        OK(wgs_launch(st, k, &cfg, &res));
        participants = res.participants;
      } else if (form == 1) {
        submit_wait(&lf, lf.all);
      } else {
        for (uint32_t s = 0; s < steps; s++)
          submit_wait(&lf, lf.one[s & 1]);
      }
      us[r] = (now_us() - t0) / steps;
    }
    OK(wgs_buffer_read(bu, 0, 2 * (size_t)n * 4, got));
    double err = 0;
    for (uint32_t i = 0; i < n; i++) {
      double e = fabs((double)got[(size_t)(steps & 1) * n + i] - want[i]);
      err = e > err ? e : err;
    }
    int ok = err <= 1e-6 * (1 + fabs(want[n / 2]));
    bad |= !ok;
    qsort(us + 1, runs, sizeof *us, cmp_double);
    double med = us[1 + runs / 2], lo = us[1], hi = us[runs];
    char shape[64];
    snprintf(shape, sizeof shape, form == 0 ? "%u groups x %u (of %u)" : "%u groups x 256",
             form == 0 ? participants : (n + 255) / 256, local, groups);
    printf("%-10s %-26s %9.3f us/step (min %.3f, max %.3f)  %s (max |error| %.2g)\n", forms[form],
           shape, med, lo, hi, ok ? "checked: equals the host's" : "WRONG", err);
    if (out)
      fprintf(out, "%s,%s,%s,%s,%u,%u,%u,%u,%.4f,%.4f,%.4f,%u,%.3g\n", in.name, in.driver_version,
              date, forms[form], n, steps, form == 0 ? participants : (n + 255) / 256,
              form == 0 ? local : 256, med, lo, hi, runs, err);
  }
  if (out)
    fclose(out);
  free(us);
  loop_forms_free(&lf);
  wgs_state_release(st);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  wgs_buffer_release(bu);
  wgs_buffer_release(bf);
  wgs_device_close(dev);
  free(f), free(ref), free(got), free(zero);
  return bad ? 1 : 0;
}
