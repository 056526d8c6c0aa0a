/* Vulkan backend: states, launches (one command buffer each: the config words and the state's
 * clearing, then the dispatch; or the same recorded into the user's command buffer), and the
 * words a result is decoded from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"
#include "wgsync_vulkan.h"

static wgs__vk_device *vdev(wgs_device_t *dev) { return (wgs__vk_device *)(void *)dev; }
static wgs__vk_state *vst(wgs_state_t *st) { return (wgs__vk_state *)(void *)st; }

int wgs__vk_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  wgs__vk_device *d = vdev(dev);
  wgs__vk_state *st = calloc(1, sizeof *st);
  if (!st)
    return wgs__fail(WGS_ENOMEM, "wgs_state_create: out of memory");
  size_t bytes = (size_t)WGS_STATE_WORDS(max_groups) * sizeof(uint32_t);
  int rc = wgs__vk_buffer_alloc(d, bytes, &st->words);
  if (rc != WGS_OK) {
    free(st);
    return rc;
  }
  wgs__state_head_init((wgs__state_head *)st, &wgs__vulkan_ops, dev, max_groups);
  wgs__vk_dev_retain(dev);
  /* All zero, then each half's way back to the base (nothing runs on it yet). */
  uint32_t *w = st->words.map;
  memset(w, 0, bytes);
  w[WGS_HALF(max_groups, 0u)] = WGS_HALF(max_groups, 0u);
  w[WGS_HALF(max_groups, 1u)] = WGS_HALF(max_groups, 1u);
  if (d->timestamp_ns > 0) {
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    VkResult r = d->d.vkCreateQueryPool(d->device, &qi, NULL, &st->timing);
    if (r != VK_SUCCESS) {
      wgs__vk_state_release((wgs_state_t *)(void *)st);
      return wgs__vk_fail("vkCreateQueryPool", r);
    }
  }
  *out = (wgs_state_t *)(void *)st;
  return WGS_OK;
}

/* Waits for the state's launches and frees their command buffers and fences. */
static int drain(wgs__vk_state *st)
{
  wgs__vk_device *d = vdev(st->dev);
  VkResult worst = VK_SUCCESS;
  for (unsigned i = 0; i < st->in_flight; i++) {
    wgs__vk_flight *f = &st->flight[i];
    VkResult r = d->d.vkWaitForFences(d->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
    if (r != VK_SUCCESS && worst == VK_SUCCESS)
      worst = r;
    pthread_mutex_lock(&d->lock);
    d->d.vkFreeCommandBuffers(d->device, d->pool, 1, &f->cb);
    pthread_mutex_unlock(&d->lock);
    d->d.vkDestroyFence(d->device, f->fence, NULL);
  }
  st->in_flight = 0;
  return worst == VK_SUCCESS ? WGS_OK : wgs__vk_fail("vkWaitForFences (the launch)", worst);
}

void wgs__vk_state_release(wgs_state_t *pst)
{
  wgs__vk_state *st = vst(pst);
  wgs__vk_device *d = vdev(st->dev);
  drain(st);
  if (st->timing)
    d->d.vkDestroyQueryPool(d->device, st->timing, NULL);
  if (st->done) /* (a recorded launch still pending is the user's to have waited for) */
    d->d.vkDestroyEvent(d->device, st->done, NULL);
  wgs__vk_buffer_free(d, &st->words);
  wgs_device_t *dev = st->dev;
  wgs__state_head_fini((wgs__state_head *)st);
  free(st);
  wgs__vk_dev_release(dev);
}

/* ---- pipelines ------------------------------------------------------------------------------- */
/* The pipeline of k for this local size and these arguments: made once, kept with the kernel
 * (the last WGS_VK_PIPELINES shapes). Bindings: the state's and each buffer argument's, at their
 * argument index, in set 0 (push descriptors); push constants: the byte arguments in index
 * order, each aligned to its size; specialisation constants 0 (local size) and 1 (shared words). */
static int pipeline(wgs__vk_kernel *k, size_t local, unsigned state_arg, unsigned *slot,
                    unsigned *push_bytes)
{
  wgs__vk_device *d = vdev(k->dev);
  uint32_t bindings = 1u << state_arg;
  unsigned push = 0, values = 0, n = k->nargs;
  const wgs__spirv_args *want = k->want.known ? &k->want : NULL;
  const char *entry = k->prog->m[k->module].name;
  char have[256] = ""; /* the shader's arguments in words, made only for a message */
  if (want) {
    for (unsigned b = 0; b < 32; b++)
      if (want->others >> b & 1u)
        return wgs__fail(WGS_EINVAL, "wgs_launch: kernel '%s' has %s at set 0, binding %u, where "
                                     "wgsync binds storage buffers only (%s)", entry,
                         wgs__vk_other_name(k, b), b, wgs__vk_args_text(k, have, sizeof have));
    if (!(want->bindings >> state_arg & 1u))
      return wgs__fail(WGS_EINVAL, "wgs_launch: state_arg %u, but kernel '%s' has no buffer at set "
                                   "0, binding %u for the state (%s; wgsync.glsl declares it at "
                                   "WGS_STATE_BINDING)", state_arg, entry, state_arg,
                       wgs__vk_args_text(k, have, sizeof have));
    n = wgs__vk_arg_count(k); /* (set_arg refused every index past it) */
  }
  for (unsigned i = 0; i < n; i++) {
    if (i == state_arg)
      continue;
    if (k->arg[i].kind == 0 && want && !(want->bindings >> i & 1u))
      continue; /* the shared memory, which may stay unset, or a value: counted below */
    if (k->arg[i].kind == 0)
      return wgs__fail(WGS_EINVAL, "wgs_launch: kernel '%s' argument %u was never set "
                                   "(wgs_kernel_set_arg[_buffer]; argument %u is the state)%s%s",
                       entry, i, state_arg, want ? "; it takes " : "",
                       want ? wgs__vk_args_text(k, have, sizeof have) : "");
    if (k->arg[i].kind == 1)
      bindings |= 1u << i;
    if (k->arg[i].kind == 2) {
      unsigned sz = (unsigned)k->arg[i].size;
      push = (push + sz - 1) / sz * sz; /* where this value goes: aligned to its size */
      if (want && values < want->n_push && want->push[values].bytes != sz)
        return wgs__fail(WGS_EINVAL, "wgs_launch: kernel '%s' argument %u is %u bytes, but push-constant "
                                     "member %u is %s%u bytes", entry, i, sz, values,
                         want->push[values].bytes ? "" : "not a scalar or vector: ",
                         want->push[values].bytes);
      if (want && values < want->n_push && want->push[values].offset != push)
        return wgs__fail(WGS_EINVAL, "wgs_launch: kernel '%s' argument %u goes at push-constant offset "
                                     "%u (values packed in argument order, each aligned to its "
                                     "size), but member %u is at offset %u", entry, i, push, values,
                         want->push[values].offset);
      push += sz;
      values++;
    }
  }
  if (want && values < want->n_push) { /* the first index a value would take, never set */
    unsigned i = 0, seen = 0;
    while (i < n && (i == state_arg || (want->bindings >> i & 1u) || k->arg[i].kind != 0))
      i++;
    for (unsigned j = 0; j < i; j++)
      seen += k->arg[j].kind == 2;
    return wgs__fail(WGS_EINVAL, "wgs_launch: kernel '%s' argument %u was never set: it is "
                                 "push-constant member %u (%u bytes at offset %u); the kernel reads "
                                 "%u push-constant value%s, %u %s set (%s)", entry, i, seen,
                     want->push[seen].bytes, want->push[seen].offset, want->n_push,
                     want->n_push == 1 ? "" : "s", values, values == 1 ? "was" : "were",
                     wgs__vk_args_text(k, have, sizeof have));
  }
  if (push > 128)
    return wgs__fail(WGS_ELIMIT, "wgs_launch: %u bytes of push constants (the kernel's value "
                                 "arguments); Vulkan guarantees 128", push);
  *push_bytes = push;
  for (unsigned i = 0; i < WGS_VK_PIPELINES; i++)
    if (k->pipe[i].pipe && k->pipe[i].local == local && k->pipe[i].bindings == bindings &&
        k->pipe[i].push_bytes == push && k->pipe[i].local_words == k->local_words &&
        k->pipe[i].state_arg == state_arg) {
      *slot = i;
      return WGS_OK;
    }
  unsigned s = k->next_pipe;
  k->next_pipe = (s + 1) % WGS_VK_PIPELINES;
  if (k->pipe[s].pipe) { /* the oldest shape goes (after the launches that use it) */
    wgs__vk_idle(d);
    d->d.vkDestroyPipeline(d->device, k->pipe[s].pipe, NULL);
    d->d.vkDestroyPipelineLayout(d->device, k->pipe[s].layout, NULL);
    d->d.vkDestroyDescriptorSetLayout(d->device, k->pipe[s].dsl, NULL);
    memset(&k->pipe[s], 0, sizeof k->pipe[s]);
  }
  VkDescriptorSetLayoutBinding b[WGS_VK_ARGS];
  uint32_t nb = 0;
  for (uint32_t i = 0; i < WGS_VK_ARGS; i++)
    if (bindings & (1u << i))
      b[nb++] = (VkDescriptorSetLayoutBinding){.binding = i,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                        .bindingCount = nb, .pBindings = b};
  WGS__VK(d->d.vkCreateDescriptorSetLayout(d->device, &li, NULL, &k->pipe[s].dsl),
          "vkCreateDescriptorSetLayout");
  VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = push};
  VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                    .setLayoutCount = 1, .pSetLayouts = &k->pipe[s].dsl,
                                    .pushConstantRangeCount = push ? 1u : 0u, .pPushConstantRanges = &pr};
  WGS__VK(d->d.vkCreatePipelineLayout(d->device, &pli, NULL, &k->pipe[s].layout),
          "vkCreatePipelineLayout");
  /* 0: the local size; 1: the shared words; 2000: a CPU device pauses in its spins; 2001:
   * work-group barriers at work-group scope (wgsync.glsl) */
  uint32_t spec[4] = {(uint32_t)local, k->local_words, d->info.is_cpu ? 1u : 0u,
                      d->group_scope ? 1u : 0u};
  VkSpecializationMapEntry me[4] = {{0, 0, 4}, {1, 4, 4}, {2000, 8, 4}, {2001, 12, 4}};
  VkSpecializationInfo si = {.mapEntryCount = 4, .pMapEntries = me, .dataSize = sizeof spec, .pData = spec};
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = k->prog->m[k->module].module,
                .pName = k->prog->m[k->module].entry, .pSpecializationInfo = &si},
      .layout = k->pipe[s].layout};
  VkResult r = d->d.vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &ci, NULL, &k->pipe[s].pipe);
  if (r != VK_SUCCESS) {
    k->pipe[s].pipe = VK_NULL_HANDLE;
    return wgs__fail(WGS_EBACKEND, "kernel '%s': vkCreateComputePipelines (local size %zu) failed: "
                                   "%s (does the shader declare layout(local_size_x_id = 0) in, "
                                   "and its buffers at the bindings of their arguments?)",
                     k->prog->m[k->module].name, local, wgs__vk_result_name(r));
  }
  k->pipe[s].local = local;
  k->pipe[s].bindings = bindings;
  k->pipe[s].push_bytes = push;
  k->pipe[s].local_words = k->local_words;
  k->pipe[s].state_arg = state_arg;
  *slot = s;
  return WGS_OK;
}

/* ---- launches -------------------------------------------------------------------------------- */
static int vk_to_spin(void *ctx, double us, uint64_t *out)
{
  double rate = 0;
  int rc = wgs__vk_clock_rate(ctx, &rate);
  if (rc == WGS_OK)
    *out = wgs__saturate_u64(us * rate);
  /* a 32-bit clock measures a wait only while it lasts under 2^32 ticks (wgsi_since) */
  if (rc == WGS_OK && ((wgs__vk_device *)ctx)->clock32 && *out > (1ull << 31))
    *out = 1ull << 31;
  return rc;
}

static void full_barrier(wgs__vk_device *d, VkCommandBuffer cb, VkPipelineStageFlags from,
                         VkPipelineStageFlags to, VkAccessFlags dst)
{
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT, .dstAccessMask = dst};
  d->d.vkCmdPipelineBarrier(cb, from, to, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* The table's launches (src/device.h, src/launch.h): the core checked the devices and holds the
 * state's lock. What the core plans from, and what a CPU device requires of the launch. */
static int vk_describe(wgs_state_t *pst, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  wgs__vk_state *st = vst(pst);
  wgs__vk_kernel *k = what;
  wgs__vk_device *d = vdev(st->dev);
  const char *kname = k->prog->m[k->module].name;
  if (cfg->barrier == WGS_BARRIER_XF || cfg->barrier == WGS_BARRIER_PUBLISHED)
    return wgs__fail(WGS_EUNSUPPORTED, "wgs_launch: the Vulkan library has the counter grid "
                                       "barrier in its default shapes only (WGS_BARRIER_COUNTER), "
                                       "not %s", cfg->barrier == WGS_BARRIER_XF ? "the XF barrier"
                                       : "the published shape (WGS_BARRIER_PUBLISHED)");
  if (cfg->state_arg >= WGS_VK_ARGS)
    return wgs__fail(WGS_EINVAL, "wgs_launch: state_arg %u (the state's binding; at most %u)",
                     cfg->state_arg, WGS_VK_ARGS - 1);
  /* On a CPU device a checked spin gives up after 60 ms unless told otherwise: lavapipe's loop
   * budget (device/vulkan/wgsync.glsl) holds about 135 ms of waiting, and a spin that gives up
   * within it still has the rounds to name the groups that never came. */
  if (d->info.is_cpu && cfg->timeout_ms <= 0)
    cfg->timeout_ms = 60;
  int checked = k->prog->checked;
  *c = (wgs__launch_ctx){"wgs_launch", kname, 0, "wgs_state_create", &d->info,
                         wgs__default_local(d->info.max_work_group_size), st->max_groups, 1u,
                         checked, 0, checked, vk_to_spin, NULL, d};
  return WGS_OK;
}

/* A launch's commands on cb: after everything recorded before them, the plan's words and the
 * state's reset, the dispatch, then a barrier before everything after them (the host's reads
 * after the submit's end included). */
static void record(wgs__vk_state *st, wgs__vk_kernel *k, const wgs_launch_config *cfg,
                   const wgs__launch_plan *pp, unsigned slot, unsigned push, VkCommandBuffer cb,
                   int timed)
{
  wgs__vk_device *d = vdev(st->dev);
  const wgs__launch_plan plan = *pp;
  /* the config words, the control line and half 0 cleared (no launch epochs on Vulkan) */
  VkBuffer sb = st->words.buf;
  uint32_t mg = st->max_groups;
  full_barrier(d, cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
               VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  d->d.vkCmdUpdateBuffer(cb, sb, WGS_G_CONFIG * 4u, WGS_CFG_WORDS * 4u, plan.w);
  d->d.vkCmdFillBuffer(cb, sb, WGS_G_CTRL * 4u, WGS_LINE_WORDS * 4u, 0u);
  d->d.vkCmdFillBuffer(cb, sb, (WGS_HALF(mg, 0u) + WGS_LINE_WORDS) * 4u,
                       (WGS_HALF_WORDS(mg) - WGS_LINE_WORDS) * 4u, 0u);
  /* (the launch's own buffers may have been written by any command before: all of them) */
  full_barrier(d, cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  d->d.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe[slot].pipe);
  VkDescriptorBufferInfo bi[WGS_VK_ARGS];
  VkWriteDescriptorSet wr[WGS_VK_ARGS];
  uint32_t nw = 0;
  unsigned char pc[128];
  unsigned off = 0;
  for (unsigned i = 0; i < WGS_VK_ARGS; i++) {
    int is_state = i == cfg->state_arg;
    if (is_state || (i < k->nargs && k->arg[i].kind == 1)) {
      bi[nw] = (VkDescriptorBufferInfo){is_state ? sb : k->arg[i].buf, 0, VK_WHOLE_SIZE};
      wr[nw] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[nw]};
      nw++;
    } else if (i < k->nargs && k->arg[i].kind == 2) {
      unsigned sz = (unsigned)k->arg[i].size;
      off = (off + sz - 1) / sz * sz;
      memcpy(pc + off, k->arg[i].bytes, sz);
      off += sz;
    }
  }
  d->d.vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe[slot].layout, 0, nw, wr);
  if (push)
    d->d.vkCmdPushConstants(cb, k->pipe[slot].layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push, pc);
  if (timed) {
    d->d.vkCmdResetQueryPool(cb, st->timing, 0, 2);
    d->d.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, st->timing, 0);
  }
  d->d.vkCmdDispatch(cb, plan.groups, 1, 1);
  if (timed)
    d->d.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, st->timing, 1);
  /* the state and the buffers, made visible to every later command and to the host's reads
   * after the submit has ended */
  full_barrier(d, cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
               VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

static const char *const pending_recorded =
    "the state's launch recorded into your command buffer (wgs_launch_record_vulkan) has not been "
    "reported: call wgs_state_result once your submit has completed";

/* The table's launch: its own command buffer, submitted with a fence on the device's queue. */
static int vk_enqueue(wgs_state_t *pst, void *what, const wgs_launch_config *cfg,
                      const wgs__launch_ctx *c, const wgs__launch_plan *pp, int *captured)
{
  wgs__vk_state *st = vst(pst);
  wgs__vk_kernel *k = what;
  wgs__vk_device *d = vdev(st->dev);
  const char *kname = c->kname;
  int rc;
  (void)captured;
  if (st->recorded) /* (ordering it against the user's submit is the user's to say) */
    return wgs__fail(WGS_EINVAL, "wgs_launch: %s", pending_recorded);
  unsigned slot = 0, push = 0;
  if ((rc = pipeline(k, pp->local, cfg->state_arg, &slot, &push)) != WGS_OK)
    return rc;
  if (st->in_flight == WGS_VK_FLIGHTS && (rc = drain(st)) != WGS_OK)
    return rc;
  VkCommandBuffer cb;
  if ((rc = wgs__vk_begin_once(d, &cb)) != WGS_OK)
    return rc;
  int timed = cfg->time_kernel && st->timing;
  record(st, k, cfg, pp, slot, push, cb, timed);
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  VkResult r = d->d.vkCreateFence(d->device, &fi, NULL, &fence);
  pthread_mutex_lock(&d->lock);
  if (r == VK_SUCCESS)
    r = d->d.vkEndCommandBuffer(cb);
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  if (r == VK_SUCCESS)
    r = d->d.vkQueueSubmit(d->queue, 1, &si, fence);
  if (r != VK_SUCCESS)
    d->d.vkFreeCommandBuffers(d->device, d->pool, 1, &cb);
  pthread_mutex_unlock(&d->lock);
  if (r != VK_SUCCESS) {
    if (fence)
      d->d.vkDestroyFence(d->device, fence, NULL);
    return wgs__fail(WGS_EBACKEND, "kernel '%s' (%u groups x %zu): vkQueueSubmit failed: %s",
                     kname, pp->groups, pp->local, wgs__vk_result_name(r));
  }
  st->flight[st->in_flight++] = (wgs__vk_flight){cb, fence};
  st->timed = timed;
  return WGS_OK;
}

const wgs__launch_via wgs__vk_launch = {vk_describe, vk_enqueue};

/* ---- a launch recorded into the user's command buffer (wgsync_vulkan.h) ---------------------- */
typedef struct {
  wgs__vk_kernel *k;
  VkCommandBuffer cb;
} recorded_launch;

static int rec_describe(wgs_state_t *st, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  int rc = vk_describe(st, ((recorded_launch *)what)->k, cfg, c);
  c->who = "wgs_launch_record_vulkan";
  return rc;
}

/* The commands, and the event the result waits for, on the user's command buffer; nothing is
 * submitted. The event is reset here, on the host: the launch that last set it was reported, so
 * its command buffer has completed. */
static int rec_enqueue(wgs_state_t *pst, void *what, const wgs_launch_config *cfg,
                       const wgs__launch_ctx *c, const wgs__launch_plan *pp, int *captured)
{
  wgs__vk_state *st = vst(pst);
  recorded_launch *rl = what;
  wgs__vk_device *d = vdev(st->dev);
  (void)c;
  (void)captured;
  if (st->recorded)
    return wgs__fail(WGS_EINVAL, "wgs_launch_record_vulkan: %s (one recorded launch per state "
                                 "at a time)", pending_recorded);
  int rc = drain(st); /* (the table's launches before it: their command buffers and fences) */
  if (rc != WGS_OK)
    return rc;
  if (cfg->time_kernel)
    return wgs__fail(WGS_EINVAL, "wgs_launch_record_vulkan: time_kernel is set, but the launch is "
                                 "in your command buffer (time it with your own timestamps)");
  unsigned slot = 0, push = 0;
  if ((rc = pipeline(rl->k, pp->local, cfg->state_arg, &slot, &push)) != WGS_OK)
    return rc;
  if (!st->done) {
    VkEventCreateInfo ei = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    WGS__VK(d->d.vkCreateEvent(d->device, &ei, NULL, &st->done), "vkCreateEvent");
  } else {
    WGS__VK(d->d.vkResetEvent(d->device, st->done), "vkResetEvent");
  }
  record(st, rl->k, cfg, pp, slot, push, rl->cb, 0);
  d->d.vkCmdSetEvent(rl->cb, st->done, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  st->recorded = 1;
  st->timed = 0;
  return WGS_OK;
}

static const wgs__launch_via recorded_via = {rec_describe, rec_enqueue};

int wgs_launch_record_vulkan(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg,
                             VkCommandBuffer cb)
{
  if (!st || !k || !cb)
    return wgs__fail(WGS_EINVAL, "wgs_launch_record_vulkan: argument '%s' is NULL",
                     !st ? "st" : !k ? "k" : "cb");
  if (wgs__object(st)->ops != &wgs__vulkan_ops || wgs__object(k)->ops != &wgs__vulkan_ops)
    return wgs__fail(WGS_EINVAL, "wgs_launch_record_vulkan: the %s is not on a Vulkan device",
                     wgs__object(st)->ops != &wgs__vulkan_ops ? "state" : "kernel");
  if (wgs__object(k)->dev != wgs__object(st)->dev)
    return wgs__fail(WGS_EINVAL, "wgs_launch_record_vulkan: the kernel and the state belong to "
                                 "different devices");
  recorded_launch rl = {(wgs__vk_kernel *)(void *)k, cb};
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  int rc = wgs__launch_via_locked(st, &recorded_via, &rl, cfg);
  pthread_mutex_unlock(&h->lock);
  return rc;
}

/* The result's words (src/device.h): after the state's launches end, from the mapped state. */
int wgs__vk_result_words(wgs_state_t *pst, uint32_t *glob, double *kernel_us)
{
  wgs__vk_state *st = vst(pst);
  wgs__vk_device *d = vdev(st->dev);
  if (st->recorded) { /* the user's submit: its end is the event the launch sets */
    VkResult r = d->d.vkGetEventStatus(d->device, st->done);
    if (r == VK_EVENT_RESET)
      return wgs__fail(WGS_EINVAL, "wgs_state_result: the launch recorded into your command "
                                   "buffer has not completed (submit it, wait for your fence, "
                                   "then ask; it stays pending)");
    if (r != VK_EVENT_SET)
      return wgs__vk_fail("vkGetEventStatus (the recorded launch)", r);
    st->recorded = 0;
  }
  int rc = drain(st);
  if (rc != WGS_OK) {
    wgs__fail(rc, "kernel '%s' (%u groups) failed: %s", st->log.last.kname, st->log.last.launched,
              wgs_last_error());
    return rc;
  }
  memcpy(glob, st->words.map, WGS_G_LINES * WGS_LINE_WORDS * sizeof(uint32_t));
  if (st->timed) {
    uint64_t ts[2] = {0, 0};
    if (d->d.vkGetQueryPoolResults(d->device, st->timing, 0, 2, sizeof ts, ts, sizeof ts[0],
                                   VK_QUERY_RESULT_64_BIT) == VK_SUCCESS && ts[1] >= ts[0])
      *kernel_us = (double)(ts[1] - ts[0]) * d->timestamp_ns / 1e3;
    st->timed = 0;
  }
  return WGS_OK;
}

int wgs__vk_clear_error(wgs_state_t *pst)
{
  wgs__vk_state *st = vst(pst);
  int rc = drain(st);
  if (rc == WGS_OK)
    memset((uint32_t *)st->words.map + WGS_G_ERROR, 0, WGS_LINE_WORDS * sizeof(uint32_t));
  return rc;
}

int wgs__vk_read_words(wgs_state_t *pst, size_t offset, size_t n, uint32_t *out)
{
  wgs__vk_state *st = vst(pst);
  int rc = drain(st);
  if (rc == WGS_OK)
    memcpy(out, (const uint32_t *)st->words.map + offset, n * sizeof(uint32_t));
  return rc;
}
