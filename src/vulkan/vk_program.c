/* Vulkan backend: buffers, SPIR-V programs and their kernels (entry points with arguments by
 * index), and the compute pipelines a kernel is launched with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"
#include "wgsync_vulkan.h"

static wgs__vk_device *vdev(wgs_device_t *dev) { return (wgs__vk_device *)(void *)dev; }

/* ---- buffers --------------------------------------------------------------------------------- */
/* Device memory the host maps: device-local where the device offers it host-visible (a GPU's
 * BAR), else host memory; coherent either way, so host copies need no flushes. */
int wgs__vk_buffer_alloc(wgs__vk_device *d, size_t bytes, wgs__vk_buffer *b)
{
  memset(b, 0, sizeof *b);
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = bytes ? bytes : 4,
                           .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  WGS__VK(d->d.vkCreateBuffer(d->device, &bi, NULL, &b->buf), "vkCreateBuffer");
  VkMemoryRequirements req;
  d->d.vkGetBufferMemoryRequirements(d->device, b->buf, &req);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = -1;
  for (int pass = 0; pass < 2 && type < 0; pass++)
    for (uint32_t i = 0; i < d->mem.memoryTypeCount && type < 0; i++) {
      VkMemoryPropertyFlags f = d->mem.memoryTypes[i].propertyFlags;
      VkMemoryPropertyFlags want = pass == 0 ? host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT : host;
      uint64_t heap = d->mem.memoryHeaps[d->mem.memoryTypes[i].heapIndex].size;
      if ((req.memoryTypeBits & (1u << i)) && (f & want) == want && heap >= req.size)
        type = (int)i;
    }
  VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (type >= 0) {
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size, .memoryTypeIndex = (uint32_t)type};
    r = d->d.vkAllocateMemory(d->device, &ai, NULL, &b->mem);
  }
  if (r == VK_SUCCESS)
    r = d->d.vkBindBufferMemory(d->device, b->buf, b->mem, 0);
  if (r == VK_SUCCESS)
    r = d->d.vkMapMemory(d->device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map);
  if (r != VK_SUCCESS) {
    wgs__vk_buffer_free(d, b);
    return wgs__fail(WGS_ENOMEM, "a buffer of %zu bytes on '%s': %s (no host-visible memory "
                                 "type holds it)", bytes, d->info.name, wgs__vk_result_name(r));
  }
  b->bytes = bytes;
  return WGS_OK;
}

void wgs__vk_buffer_free(wgs__vk_device *d, wgs__vk_buffer *b)
{
  if (b->map)
    d->d.vkUnmapMemory(d->device, b->mem);
  if (b->buf)
    d->d.vkDestroyBuffer(d->device, b->buf, NULL);
  if (b->mem)
    d->d.vkFreeMemory(d->device, b->mem, NULL);
  memset(b, 0, sizeof *b);
}

int wgs__vk_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  wgs__vk_buffer *b = calloc(1, sizeof *b);
  if (!b)
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory");
  int rc = wgs__vk_buffer_alloc(vdev(dev), bytes, b);
  if (rc != WGS_OK) {
    free(b);
    return rc;
  }
  b->ops = &wgs__vulkan_ops;
  b->dev = dev;
  wgs__vk_dev_retain(dev);
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

void wgs__vk_buffer_release(wgs_buffer_t *pb)
{
  wgs__vk_buffer *b = (wgs__vk_buffer *)(void *)pb;
  wgs_device_t *dev = b->dev;
  if (!b->wrapped) { /* (the user's: theirs to wait for and free) */
    wgs__vk_idle(vdev(dev)); /* a launch still running may use it */
    wgs__vk_buffer_free(vdev(dev), b);
  }
  free(b);
  wgs__vk_dev_release(dev);
}

/* The user's storage buffer as a kernel argument (wgsync_vulkan.h). */
int wgs_buffer_wrap_vulkan(wgs_device_t *dev, VkBuffer buffer, size_t bytes, wgs_buffer_t **out)
{
  if (!dev || !buffer || !out)
    return wgs__fail(WGS_EINVAL, "wgs_buffer_wrap_vulkan: argument '%s' is NULL",
                     !dev ? "dev" : !buffer ? "buffer" : "out");
  *out = NULL;
  if (wgs__head(dev)->ops != &wgs__vulkan_ops)
    return wgs__fail(WGS_EINVAL, "wgs_buffer_wrap_vulkan: the device is not a Vulkan device");
  if (bytes == 0)
    return wgs__fail(WGS_EINVAL, "wgs_buffer_wrap_vulkan: bytes is 0 (expected the buffer's size)");
  wgs__vk_buffer *b = calloc(1, sizeof *b);
  if (!b)
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_wrap_vulkan: out of memory");
  b->ops = &wgs__vulkan_ops;
  b->dev = dev;
  b->bytes = bytes;
  b->buf = buffer;
  b->wrapped = 1;
  wgs__vk_dev_retain(dev);
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

static int refuse_wrapped(const char *who)
{
  return wgs__fail(WGS_EINVAL, "%s: the buffer is your VkBuffer (wgs_buffer_wrap_vulkan), which "
                               "wgsync does not map: copy it with your own commands", who);
}

/* Copies after every launch on the queue (the core checked the range). */
int wgs__vk_buffer_write(wgs_buffer_t *pb, size_t off, size_t bytes, const void *src)
{
  wgs__vk_buffer *b = (wgs__vk_buffer *)(void *)pb;
  if (b->wrapped)
    return refuse_wrapped("wgs_buffer_write");
  int rc = wgs__vk_idle(vdev(b->dev));
  if (rc == WGS_OK)
    memcpy((char *)b->map + off, src, bytes);
  return rc;
}

int wgs__vk_buffer_read(wgs_buffer_t *pb, size_t off, size_t bytes, void *dst)
{
  wgs__vk_buffer *b = (wgs__vk_buffer *)(void *)pb;
  if (b->wrapped)
    return refuse_wrapped("wgs_buffer_read");
  int rc = wgs__vk_idle(vdev(b->dev));
  if (rc == WGS_OK)
    memcpy(dst, (const char *)b->map + off, bytes);
  return rc;
}

/* ---- programs ---------------------------------------------------------------------------------- */
/* The GLCompute entry points of a module whose structure was checked (OpEntryPoint: opcode 15,
 * execution model 5): pointers to their NUL-terminated names in w, count of them (names is
 * malloc'd; NULL with count 0 when there is none). */
static const char **entry_points(const uint32_t *w, size_t n, unsigned *count)
{
  const char **names = NULL;
  *count = 0;
  for (size_t i = 5; i < n;) {
    uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
    if (op == 15 && len >= 4 && w[i + 1] == 5) {
      const char **more = realloc(names, (*count + 1) * sizeof *names);
      if (!more) {
        free(names);
        *count = 0;
        return NULL;
      }
      names = more;
      names[(*count)++] = (const char *)&w[i + 3];
    }
    i += len;
  }
  return names;
}

static int add_module(wgs__vk_device *d, wgs__vk_program *p, const char *name, const char *entry,
                      const uint32_t *words, size_t n_words)
{
  unsigned i = p->n;
  struct wgs__vk_module *more = realloc(p->m, (i + 1) * sizeof *more);
  if (!more)
    return wgs__fail(WGS_ENOMEM, "a program: out of memory");
  p->m = more;
  memset(&p->m[i], 0, sizeof p->m[i]);
  p->n++;
  p->m[i].words = malloc(n_words * sizeof *words);
  p->m[i].name = strdup(name);
  p->m[i].entry = strdup(entry);
  if (!p->m[i].words || !p->m[i].name || !p->m[i].entry)
    return wgs__fail(WGS_ENOMEM, "a program: out of memory");
  memcpy(p->m[i].words, words, n_words * sizeof *words);
  p->m[i].n_words = n_words;
  VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = n_words * sizeof *words, .pCode = p->m[i].words};
  WGS__VK(d->d.vkCreateShaderModule(d->device, &ci, NULL, &p->m[i].module), "vkCreateShaderModule");
  return WGS_OK;
}

static wgs__vk_program *new_program(wgs_device_t *dev, int checked)
{
  wgs__vk_program *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->ops = &wgs__vulkan_ops;
  p->dev = dev;
  p->refs = 1;
  p->checked = checked;
  wgs__vk_dev_retain(dev);
  return p;
}

/* A SPIR-V module compiled from GLSL with the wgsync library (device/vulkan/wgsync.glsl). options:
 * "-DWGS_CHECKED=1" (or "-D WGS_CHECKED=1") says the module is a checked build, as it was
 * compiled, so that its reports are decoded. Each GLCompute entry point is a kernel. */
int wgs__vk_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                             const char *options, wgs_program_t **out)
{
  if (n_words < 5 || words[0] != 0x07230203u)
    return wgs__fail(WGS_EINVAL, "wgs_program_build_il: the %zu words are not a SPIR-V module "
                                 "(magic 0x07230203, then instructions)", n_words);
  /* no driver sees a module whose structure is broken: some crash on it */
  int rc = wgs__spirv_check_structure(words, n_words);
  if (rc != WGS_OK) {
    char why[512];
    snprintf(why, sizeof why, "%s", wgs_last_error());
    return wgs__fail(rc, "wgs_program_build_il: %s", why);
  }
  unsigned n = 0;
  const char **names = entry_points(words, n_words, &n);
  if (n == 0)
    return wgs__fail(WGS_EINVAL, "wgs_program_build_il: the module has no compute entry point "
                                 "(compile a .comp shader: glslangValidator -V)");
  /* Split work-group barriers (SPV_EXT_split_barrier, SPV_INTEL_split_barrier) are lowered for
   * every device: no driver wgsync opens enables VK_EXT_shader_split_barrier (src/spirv/spirv.c
   * argues the lowering; a module that breaks the rules is refused naming the instruction). */
  int split = 0;
  uint32_t *lowered = NULL;
  size_t lowered_n = 0;
  rc = wgs_spirv_uses_split_barrier(words, n_words, &split);
  if (rc == WGS_OK && split)
    rc = wgs_spirv_lower(words, n_words, &lowered, &lowered_n);
  if (rc != WGS_OK) {
    char why[512];
    snprintf(why, sizeof why, "%s", wgs_last_error());
    free(names);
    return wgs__fail(rc, "wgs_program_build_il: %s", why);
  }
  if (split) {
    words = lowered;
    n_words = lowered_n;
  }
  int checked = options && (strstr(options, "-DWGS_CHECKED=1") || strstr(options, "-D WGS_CHECKED=1"));
  wgs__vk_program *p = new_program(dev, checked);
  if (!p) {
    wgs_spirv_free(lowered);
    free(names);
    return wgs__fail(WGS_ENOMEM, "wgs_program_build_il: out of memory");
  }
  /* (the names point into the caller's words, which outlive this call) */
  for (unsigned i = 0; i < n && rc == WGS_OK; i++) /* one module per entry point */
    rc = add_module(vdev(dev), p, names[i], names[i], words, n_words);
  wgs_spirv_free(lowered);
  free(names);
  if (rc != WGS_OK) {
    wgs__vk_program_release((wgs_program_t *)(void *)p);
    return rc;
  }
  snprintf(p->log, sizeof p->log, "SPIR-V module of %zu words, %u entry point(s)%s%s", n_words, n,
           checked ? ", a checked build" : "",
           split ? ", split barriers lowered (the device lacks VK_EXT_shader_split_barrier)" : "");
  *out = (wgs_program_t *)(void *)p;
  return WGS_OK;
}

/* The tools' shaders (device/vulkan/kernels/tools.comp), compiled at build time. */
#include "vk_tools_spv.h"

int wgs__vk_tools_program(wgs_device_t *dev, int checked, wgs_program_t **out)
{
  wgs__vk_device *d = vdev(dev);
  pthread_mutex_lock(&d->lock);
  wgs_program_t *have = d->tools[checked];
  pthread_mutex_unlock(&d->lock);
  if (!have) {
    static const struct {
      const char *name;
      const uint32_t *plain, *checked;
      size_t plain_n, checked_n;
    } tools[] = {
        {"wgs_micro", wgs_vk_micro_0, wgs_vk_micro_1, sizeof wgs_vk_micro_0 / 4, sizeof wgs_vk_micro_1 / 4},
        {"wgs_mp", wgs_vk_mp_0, wgs_vk_mp_1, sizeof wgs_vk_mp_0 / 4, sizeof wgs_vk_mp_1 / 4},
        {"wgs_latency", wgs_vk_latency_0, wgs_vk_latency_1, sizeof wgs_vk_latency_0 / 4, sizeof wgs_vk_latency_1 / 4},
        {"wgs_clock", wgs_vk_clock_0, wgs_vk_clock_1, sizeof wgs_vk_clock_0 / 4, sizeof wgs_vk_clock_1 / 4},
    };
    wgs__vk_program *p = new_program(dev, checked);
    if (!p)
      return wgs__fail(WGS_ENOMEM, "wgs_tools_program: out of memory");
    int rc = WGS_OK;
    for (unsigned i = 0; i < 4 && rc == WGS_OK; i++)
      rc = add_module(d, p, tools[i].name, "main", checked ? tools[i].checked : tools[i].plain,
                      checked ? tools[i].checked_n : tools[i].plain_n);
    if (rc != WGS_OK) {
      wgs__vk_program_release((wgs_program_t *)(void *)p);
      return rc;
    }
    snprintf(p->log, sizeof p->log, "compiled into libwgsync by glslangValidator from "
             "device/vulkan/kernels/tools.comp, %s", checked ? "checked (WGS_CHECKED=1)" : "unchecked");
    p->owned = 1;
    wgs__vk_dev_release(dev); /* the device holds it: no reference back */
    pthread_mutex_lock(&d->lock);
    if (!d->tools[checked]) {
      d->tools[checked] = (wgs_program_t *)(void *)p;
      p = NULL;
    }
    have = d->tools[checked];
    pthread_mutex_unlock(&d->lock);
    if (p) /* another thread made it first */
      wgs__vk_program_free((wgs_program_t *)(void *)p);
  }
  *out = have;
  return WGS_OK;
}

void wgs__vk_program_release(wgs_program_t *pp)
{
  wgs__vk_program *p = (wgs__vk_program *)(void *)pp;
  if (p->owned || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  wgs_device_t *dev = p->dev;
  wgs__vk_program_free(pp);
  wgs__vk_dev_release(dev);
}

const char *wgs__vk_program_build_log(const wgs_program_t *p)
{
  return ((const wgs__vk_program *)(const void *)p)->log;
}

/* ---- kernels ------------------------------------------------------------------------------------- */
int wgs__vk_kernel_create(wgs_program_t *pp, const char *name, wgs_kernel_t **out)
{
  wgs__vk_program *p = (wgs__vk_program *)(void *)pp;
  unsigned i = 0;
  while (i < p->n && strcmp(p->m[i].name, name) != 0)
    i++;
  if (i == p->n) {
    char have[1024] = "";
    for (unsigned j = 0; j < p->n && strlen(have) < sizeof have - 1; j++)
      snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", j ? ", " : "", p->m[j].name);
    return wgs__fail(WGS_ENOKERNEL, "no kernel named '%s' in the program; it has: %s", name, have);
  }
  wgs__vk_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_create: out of memory");
  int rc = wgs__spirv_reflect(p->m[i].words, p->m[i].n_words, p->m[i].entry, &k->want);
  if (rc != WGS_OK) {
    free(k);
    return rc;
  }
  k->ops = &wgs__vulkan_ops;
  k->dev = p->dev;
  k->prog = p;
  k->module = i;
  k->local_words = 1;
  if (!p->owned)
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED); /* a kernel keeps its program */
  wgs__vk_dev_retain(p->dev);
  *out = (wgs_kernel_t *)(void *)k;
  return WGS_OK;
}

void wgs__vk_kernel_release(wgs_kernel_t *pk)
{
  wgs__vk_kernel *k = (wgs__vk_kernel *)(void *)pk;
  wgs__vk_device *d = vdev(k->dev);
  wgs__vk_idle(d); /* its pipelines may still run */
  for (unsigned i = 0; i < WGS_VK_PIPELINES; i++) {
    if (k->pipe[i].pipe)
      d->d.vkDestroyPipeline(d->device, k->pipe[i].pipe, NULL);
    if (k->pipe[i].layout)
      d->d.vkDestroyPipelineLayout(d->device, k->pipe[i].layout, NULL);
    if (k->pipe[i].dsl)
      d->d.vkDestroyDescriptorSetLayout(d->device, k->pipe[i].dsl, NULL);
  }
  wgs_device_t *dev = k->dev;
  wgs__vk_program_release((wgs_program_t *)(void *)k->prog);
  free(k);
  wgs__vk_dev_release(dev);
}

/* ---- arguments, checked against the shader (k->want: its buffers at set 0, its push-constant
 * members, its shared-memory constant). Argument i is the buffer at binding i where the shader
 * has one; the other indices take the push constants in order, and the shared memory. */
unsigned wgs__vk_arg_count(const wgs__vk_kernel *k)
{
  const wgs__spirv_args *a = &k->want;
  uint32_t all = a->bindings | a->others;
  unsigned n = (unsigned)__builtin_popcount(all) + a->n_push + (unsigned)a->shared_arg;
  for (unsigned b = 0; b < 32; b++)
    if ((all >> b & 1u) && b + 1 > n)
      n = b + 1;
  return n;
}

/* What the shader has at binding b where it is no storage buffer. */
const char *wgs__vk_other_name(const wgs__vk_kernel *k, unsigned b)
{
  return k->want.other_kind[b] == 1 ? "a uniform buffer" : "an image, sampler or other resource";
}

/* "bindings 0, 1; 2 push-constant values; shared memory", into out (returned): for messages,
 * so made only where one is written */
const char *wgs__vk_args_text(const wgs__vk_kernel *k, char *out, size_t cap)
{
  const wgs__spirv_args *a = &k->want;
  size_t used = 0;
  out[0] = '\0';
  for (unsigned b = 0; b < 32 && used < cap; b++)
    if (a->bindings >> b & 1u)
      used += (size_t)snprintf(out + used, cap - used, "%s%u", used ? ", " : "buffers at bindings ", b);
  if (used < cap)
    used += (size_t)snprintf(out + used, cap - used, "%s%u push-constant value%s", used ? "; " : "",
                             a->n_push, a->n_push == 1 ? "" : "s");
  for (unsigned b = 0; b < 32 && used < cap; b++)
    if (a->others >> b & 1u)
      used += (size_t)snprintf(out + used, cap - used, "; %s at binding %u", wgs__vk_other_name(k, b), b);
  if (a->shared_arg && used < cap)
    snprintf(out + used, cap - used, "; shared memory (specialisation constant 1), if asked for");
  return out;
}

static int arg_index_check(const wgs__vk_kernel *k, unsigned index, int buffer, const char *fn)
{
  if (index >= WGS_VK_ARGS)
    return wgs__fail(WGS_ELIMIT, "%s: index %u (Vulkan kernels take at most %u arguments through "
                                 "wgsync)", fn, index, WGS_VK_ARGS);
  if (!k->want.known)
    return WGS_OK;
  const char *entry = k->prog->m[k->module].name;
  char have[256]; /* the shader's arguments in words, made only for a message */
  unsigned n = wgs__vk_arg_count(k), is_binding = k->want.bindings >> index & 1u;
  if (index >= n)
    return wgs__fail(WGS_EINVAL, "%s: argument %u, but kernel '%s' takes %u argument%s (%s)", fn,
                     index, entry, n, n == 1 ? "" : "s", wgs__vk_args_text(k, have, sizeof have));
  if (k->want.others >> index & 1u)
    return wgs__fail(WGS_EINVAL, "%s: argument %u: kernel '%s' has %s at set 0, binding %u, where "
                                 "wgsync binds storage buffers only (%s)", fn, index, entry,
                     wgs__vk_other_name(k, index), index, wgs__vk_args_text(k, have, sizeof have));
  if (buffer && !is_binding)
    return wgs__fail(WGS_EINVAL, "%s: argument %u is a buffer, but kernel '%s' has no buffer at "
                                 "set 0, binding %u (%s): argument i is the buffer at binding i",
                     fn, index, entry, index, wgs__vk_args_text(k, have, sizeof have));
  if (!buffer && is_binding)
    return wgs__fail(WGS_EINVAL, "%s: argument %u of kernel '%s' is its buffer at binding %u: set "
                                 "it with wgs_kernel_set_arg_buffer (%s)", fn, index, entry, index,
                     wgs__vk_args_text(k, have, sizeof have));
  return WGS_OK;
}

int wgs__vk_kernel_set_arg(wgs_kernel_t *pk, unsigned index, size_t size, const void *value)
{
  wgs__vk_kernel *k = (wgs__vk_kernel *)(void *)pk;
  int rc = arg_index_check(k, index, 0, "wgs_kernel_set_arg");
  if (rc != WGS_OK)
    return rc;
  if (!value && k->want.known && !k->want.shared_arg)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg: argument %u is shared memory (a NULL value), "
                                 "but kernel '%s' declares no specialisation constant 1 to size it",
                     index, k->prog->m[k->module].name);
  if (!value) { /* as OpenCL's __local argument: specialisation constant 1, in 32-bit words */
    uint64_t room = wgs__head(k->dev)->info.local_mem_bytes - WGS_VK_LIBRARY_SHARED;
    if (size > room)
      return wgs__fail(WGS_ELIMIT, "argument %u: %zu bytes of shared memory, but '%s' has %llu "
                                   "per work-group beside the %u wgsync takes", index, size,
                       wgs__head(k->dev)->info.name, (unsigned long long)room, WGS_VK_LIBRARY_SHARED);
    k->arg[index].kind = 3;
    k->local_words = (uint32_t)((size + 3) / 4);
  } else if (size == 4 || size == 8) { /* push constants, in argument order */
    k->arg[index].kind = 2;
    k->arg[index].size = size;
    memcpy(k->arg[index].bytes, value, size);
  } else {
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg: argument %u of %zu bytes (a Vulkan kernel "
                                 "takes 4- or 8-byte values, as push constants in argument order, "
                                 "and buffers with wgs_kernel_set_arg_buffer)", index, size);
  }
  if (index + 1 > k->nargs)
    k->nargs = index + 1;
  return WGS_OK;
}

int wgs__vk_kernel_set_arg_buffer(wgs_kernel_t *pk, unsigned index, wgs_buffer_t *pb)
{
  wgs__vk_kernel *k = (wgs__vk_kernel *)(void *)pk;
  int rc = arg_index_check(k, index, 1, "wgs_kernel_set_arg_buffer");
  if (rc != WGS_OK)
    return rc;
  if (wgs__object(pb)->dev != k->dev)
    return wgs__fail(WGS_EINVAL, "argument %u: the buffer is on another Vulkan device than the "
                                 "kernel", index);
  k->arg[index].kind = 1;
  k->arg[index].buf = ((wgs__vk_buffer *)(void *)pb)->buf;
  if (index + 1 > k->nargs)
    k->nargs = index + 1;
  return WGS_OK;
}

/* Vulkan says nothing of a pipeline's resources before it exists: the device's limits, and the
 * shared memory the kernel's local argument asks for. */
int wgs__vk_kernel_resources(wgs_kernel_t *pk, wgs_kernel_resources *out)
{
  wgs__vk_kernel *k = (wgs__vk_kernel *)(void *)pk;
  const wgs_device_info *in = &wgs__head(k->dev)->info;
  out->max_local_size = in->max_work_group_size;
  out->local_mem_bytes = (uint64_t)k->local_words * 4u;
  out->private_mem_bytes = 0;
  out->registers = -1;
  return WGS_OK;
}
