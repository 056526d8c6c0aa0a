/*
 * SPIR-V split barriers: reading a module, checking OpControlBarrierArriveINTEL (6142) and
 * OpControlBarrierWaitINTEL (6143) against the OpenCL environment rules (cl_intel_split_work_group_barrier, last section;
 * SPV_INTEL_split_barrier), and lowering them for consumers without the extension.
 *
 * Lowering, and why it keeps the guarantees of cl_intel_split_work_group_barrier and SPV_INTEL_split_barrier:
 *  - Arrive -> OpMemoryBarrier(Memory, Semantics) with the arrive's own operands: the release
 *    half, ordering this invocation's earlier accesses (nothing when Semantics is None).
 *  - Wait -> OpControlBarrier(Workgroup, Memory, AcquireRelease | storage classes), the storage
 *    classes being the wait's own and those of every arrive in the same function. A lone
 *    release OpMemoryBarrier followed later by an acquire-only OpControlBarrier does not clearly
 *    synchronise under the SPIR-V memory model (the release fence is not part of the control
 *    barrier); an AcquireRelease control barrier is itself a release and an acquire over those
 *    storage classes at the barrier, so every access before the arrive (program order before
 *    the barrier) happens-before every access after the wait in every invocation of the group.
 *    The union of storage classes is at least the intersection the seed requires: stronger than
 *    needed is allowed, weaker is not. A regular barrier between arrive and wait stays valid.
 *  - The capability and extension are removed once no split barrier remains.
 * SPV_EXT_split_barrier (Khronos's promotion of the INTEL extension: the same capability 6141 and
 * opcodes 6142/6143) is read and lowered the same way. Shader modules (Vulkan) are checked
 * against what Vulkan allows a control barrier (QueueFamily memory scope, the Vulkan memory
 * model's MakeAvailable/MakeVisible); their lowered wait keeps those bits of the arrives and of
 * itself too: under the Vulkan memory model the arrive's MakeAvailable and the wait's MakeVisible
 * are what make the group's writes available and visible, and an AcquireRelease control barrier
 * may carry both.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

#define SPV_MAGIC 0x07230203u
#define OP_EXTENSION 10u
#define OP_CAPABILITY 17u
#define OP_TYPE_INT 21u
#define OP_CONSTANT 43u
#define OP_FUNCTION 54u
#define OP_FUNCTION_END 56u
#define OP_CONTROL_BARRIER 224u
#define OP_MEMORY_BARRIER 225u
#define OP_LABEL 248u
#define OP_ARRIVE 6142u
#define OP_WAIT 6143u
#define CAP_SPLIT_BARRIER 6141u

#define SCOPE_WORKGROUP 2u
#define SEM_ACQUIRE 0x2u
#define SEM_RELEASE 0x4u
#define SEM_ACQ_REL 0x8u
#define SEM_SEQ_CST 0x10u
#define SEM_ORDER (SEM_ACQUIRE | SEM_RELEASE | SEM_ACQ_REL | SEM_SEQ_CST)
#define SEM_IMAGE 0x800u
#define SEM_STORAGE 0xFC0u /* Uniform, Subgroup, Workgroup, CrossWorkgroup, AtomicCounter, Image */
/* The Vulkan memory model's bits (Shader modules): OutputMemory, MakeAvailable, MakeVisible */
#define SEM_VULKAN 0x7000u
#define CAP_SHADER 1u
#define CAP_KERNEL 6u
#define MAX_BOUND (1u << 22)

typedef struct {
  uint32_t *w; /* native-endian copy */
  size_t n;
  uint32_t bound;
  uint8_t *is_const; /* id -> 1 if a 32-bit OpConstant */
  uint32_t *value;   /* id -> its value */
  uint32_t uint_type; /* an OpTypeInt 32 0, or 0 */
  int has_cap, has_ext, uses;
  int shader;   /* OpCapability Shader without Kernel: the Vulkan environment */
  int ext_only; /* SPV_EXT_split_barrier declared, SPV_INTEL_split_barrier not: the EXT names */
} module;

static void module_free(module *m)
{
  free(m->w);
  free(m->is_const);
  free(m->value);
}

static uint32_t swap32(uint32_t v)
{
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static const char *ext_name(const uint32_t *ins, uint32_t wc)
{
  /* OpExtension's literal string, NUL-terminated within its words (checked by the caller) */
  return wc > 1 ? (const char *)(ins + 1) : "";
}

static int string_fits(const uint32_t *ins, uint32_t wc)
{
  const char *s = (const char *)(ins + 1);
  return wc > 1 && memchr(s, '\0', (size_t)(wc - 1) * 4) != NULL;
}

/* Reads and checks the binary: header, word counts, ids of the instructions wgsync reads. */
static int module_read(const uint32_t *words, size_t n, module *m)
{
  memset(m, 0, sizeof *m);
  if (!words)
    return wgs__fail(WGS_EINVAL, "SPIR-V module: words is NULL");
  if (n < 5)
    return wgs__fail(WGS_ESPIRV, "SPIR-V module truncated: the header needs 5 words, the module has %zu", n);
  int swapped = words[0] == swap32(SPV_MAGIC);
  if (words[0] != SPV_MAGIC && !swapped)
    return wgs__fail(WGS_ESPIRV, "SPIR-V module: word 0 is 0x%08x, expected the magic number 0x%08x",
                     words[0], SPV_MAGIC);
  if (!(m->w = malloc(n * sizeof *m->w)))
    return wgs__fail(WGS_ENOMEM, "SPIR-V module: out of memory");
  for (size_t i = 0; i < n; i++)
    m->w[i] = swapped ? swap32(words[i]) : words[i];
  m->n = n;
  m->bound = m->w[3];
  if (m->bound == 0 || m->bound > MAX_BOUND) {
    module_free(m);
    return wgs__fail(WGS_ESPIRV, "SPIR-V module: id bound %u at word 3 is not in 1..%u", m->bound, MAX_BOUND);
  }
  m->is_const = calloc(m->bound, 1);
  m->value = calloc(m->bound, sizeof *m->value);
  if (!m->is_const || !m->value) {
    module_free(m);
    return wgs__fail(WGS_ENOMEM, "SPIR-V module: out of memory");
  }
  uint8_t *is_uint32 = calloc(m->bound, 1);
  if (!is_uint32) {
    module_free(m);
    return wgs__fail(WGS_ENOMEM, "SPIR-V module: out of memory");
  }
  int rc = WGS_OK;
  size_t open_fn = 0; /* word offset of an OpFunction without its OpFunctionEnd yet */
  for (size_t i = 5, k = 0; i < n && rc == WGS_OK; k++) {
    uint32_t wc = m->w[i] >> 16, op = m->w[i] & 0xffffu;
    const uint32_t *ins = m->w + i;
    if (wc == 0) {
      rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: instruction %zu at word offset %zu (opcode %u) has "
                                 "word count 0", k, i, op);
      break;
    }
    if (wc > n - i) {
      rc = wgs__fail(WGS_ESPIRV, "SPIR-V module truncated: instruction %zu at word offset %zu "
                                 "(opcode %u) needs %u words, %zu remain", k, i, op, wc, n - i);
      break;
    }
#define NEED(c)                                                                              \
  if (!(c)) {                                                                                \
    rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: instruction %zu at word offset %zu (opcode %u) " \
                               "is malformed: %s", k, i, op, #c);                            \
    break;                                                                                   \
  }
    switch (op) {
    case OP_CAPABILITY:
      NEED(wc == 2);
      if (ins[1] == CAP_SPLIT_BARRIER)
        m->has_cap = 1;
      if (ins[1] == CAP_SHADER && m->shader == 0)
        m->shader = 1;
      if (ins[1] == CAP_KERNEL)
        m->shader = -1; /* a Kernel module stays one */
      break;
    case OP_EXTENSION:
      NEED(string_fits(ins, wc));
      if (!strcmp(ext_name(ins, wc), "SPV_INTEL_split_barrier")) {
        m->has_ext = 1;
        m->ext_only = -1;
      } else if (!strcmp(ext_name(ins, wc), "SPV_EXT_split_barrier")) {
        m->has_ext = 1;
        if (m->ext_only == 0)
          m->ext_only = 1;
      }
      break;
    case OP_TYPE_INT:
      NEED(wc == 4 && ins[1] < m->bound);
      if (ins[2] == 32) {
        is_uint32[ins[1]] = 1;
        if (ins[3] == 0 && !m->uint_type)
          m->uint_type = ins[1];
      }
      break;
    case OP_CONSTANT:
      NEED(wc >= 3 && ins[1] < m->bound && ins[2] < m->bound);
      if (wc == 4 && is_uint32[ins[1]]) {
        m->is_const[ins[2]] = 1;
        m->value[ins[2]] = ins[3];
      }
      break;
    case OP_FUNCTION:
      open_fn = i;
      break;
    case OP_FUNCTION_END:
      open_fn = 0;
      break;
    case OP_ARRIVE:
    case OP_WAIT:
      m->uses = 1;
      NEED(wc == 4);
      NEED(ins[1] < m->bound && ins[2] < m->bound && ins[3] < m->bound);
      break;
    default:
      break;
    }
#undef NEED
    i += wc;
  }
  free(is_uint32);
  m->shader = m->shader > 0;
  m->ext_only = m->ext_only > 0;
  if (rc == WGS_OK && open_fn)
    rc = wgs__fail(WGS_ESPIRV, "SPIR-V module truncated: it ends inside the function that starts "
                               "at word offset %zu (no OpFunctionEnd)", open_fn);
  if (rc != WGS_OK)
    module_free(m);
  return rc;
}

typedef struct {
  wgs_spirv_issue *out;
  size_t cap, count;
} issue_list;

static void issue(issue_list *is, size_t off, size_t idx, uint32_t op, const char *fmt, ...)
    WGS__PRINTF(5, 6);
static void issue(issue_list *is, size_t off, size_t idx, uint32_t op, const char *fmt, ...)
{
  if (is->count < is->cap) {
    wgs_spirv_issue *e = &is->out[is->count];
    e->offset = off;
    e->index = idx;
    e->opcode = op;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
  }
  is->count++;
}

static const char *scope_name(uint32_t s)
{
  static const char *names[] = {"CrossDevice", "Device", "Workgroup", "Subgroup", "Invocation",
                                "QueueFamily", "ShaderCallKHR"};
  return s < 7 ? names[s] : "unknown";
}

static const char *order_name(uint32_t sem)
{
  switch (sem & SEM_ORDER) {
  case 0: return "None";
  case SEM_ACQUIRE: return "Acquire";
  case SEM_RELEASE: return "Release";
  case SEM_ACQ_REL: return "AcquireRelease";
  case SEM_SEQ_CST: return "SequentiallyConsistent";
  }
  return "several orders at once";
}

static void check(const module *m, issue_list *is)
{
  static const char *intel[2] = {"OpControlBarrierArriveINTEL", "OpControlBarrierWaitINTEL"};
  static const char *ext[2] = {"OpControlBarrierArriveEXT", "OpControlBarrierWaitEXT"};
  const char *const *name = m->ext_only ? ext : intel;
  /* The environment's rules: OpenCL's (cl_intel_split_work_group_barrier, SPIR-V section) for
   * Kernel modules; for Shader modules (Vulkan), the memory scopes and semantics Vulkan allows
   * an OpControlBarrier (QueueFamily, the Vulkan memory model's availability and visibility
   * bits; no CrossDevice). Both: Workgroup execution, the scope wgsync's lowering keeps (the
   * client API defines Subgroup and Invocation, SPV_EXT_split_barrier). */
  const char *env = m->shader ? "wgsync's Vulkan lowering" : "the OpenCL environment";
  uint32_t extra = m->shader ? SEM_VULKAN : 0u;
  int state = 0; /* straight-line code: 0 unknown, 1 none pending (entry), 2 arrived, 3 waited */
  int first_use_reported = 0;
  for (size_t i = 5, k = 0; i < m->n; k++) {
    uint32_t wc = m->w[i] >> 16, op = m->w[i] & 0xffffu;
    const uint32_t *ins = m->w + i;
    if (op == OP_FUNCTION) {
      state = 1;
    } else if (op == OP_LABEL) {
      state = state == 1 ? 1 : 0; /* a function's first label keeps "nothing pending" */
    } else if (op == OP_FUNCTION_END) {
      state = 0;
    } else if (op == OP_ARRIVE || op == OP_WAIT) {
      int w = op == OP_WAIT;
      if (!first_use_reported && (!m->has_cap || !m->has_ext)) {
        issue(is, i, k, op, "%s used, but the module does not declare %s", name[w],
              !m->has_cap ? "OpCapability SplitBarrierINTEL (6141) or SplitBarrierEXT"
                          : "OpExtension \"SPV_INTEL_split_barrier\" or \"SPV_EXT_split_barrier\"");
        first_use_reported = 1;
      }
      uint32_t ex = ins[1], mem = ins[2], sem = ins[3];
      if (!m->is_const[ex])
        issue(is, i, k, op, "%s: Execution scope %%%u is not a 32-bit OpConstant", name[w], ex);
      else if (m->value[ex] != SCOPE_WORKGROUP)
        issue(is, i, k, op, "%s: Execution scope is %s (%u); %s requires Workgroup (2)", name[w],
              scope_name(m->value[ex]), m->value[ex], env);
      if (!m->is_const[mem])
        issue(is, i, k, op, "%s: Memory scope %%%u is not a 32-bit OpConstant", name[w], mem);
      else if (!m->shader && m->value[mem] > 4)
        issue(is, i, k, op, "%s: Memory scope is %s (%u); expected one valid for OpControlBarrier: "
                            "CrossDevice (0), Device (1), Workgroup (2), Subgroup (3) or "
                            "Invocation (4)", name[w], scope_name(m->value[mem]), m->value[mem]);
      else if (m->shader && (m->value[mem] < 1 || m->value[mem] > 5))
        issue(is, i, k, op, "%s: Memory scope is %s (%u); expected one Vulkan allows: Device (1), "
                            "Workgroup (2), Subgroup (3), Invocation (4) or QueueFamily (5)",
              name[w], scope_name(m->value[mem]), m->value[mem]);
      if (!m->is_const[sem]) {
        issue(is, i, k, op, "%s: Memory Semantics %%%u is not a 32-bit OpConstant", name[w], sem);
      } else {
        uint32_t v = m->value[sem], want = w ? SEM_ACQUIRE : SEM_RELEASE;
        if ((v & SEM_ORDER) != want)
          issue(is, i, k, op, "%s: Memory Semantics 0x%x has order %s; expected %s (0x%x) plus "
                              "storage-class bits", name[w], v, order_name(v), w ? "Acquire" : "Release", want);
        if (v & ~(SEM_ORDER | SEM_STORAGE | extra))
          issue(is, i, k, op, "%s: Memory Semantics 0x%x has bits 0x%x that are neither a memory "
                              "order nor a storage class%s", name[w], v, v & ~(SEM_ORDER | SEM_STORAGE | extra),
                m->shader ? " nor MakeAvailable/MakeVisible/OutputMemory" : "");
        if (!m->shader && (v & SEM_IMAGE) && m->is_const[mem] && m->value[mem] != SCOPE_WORKGROUP)
          issue(is, i, k, op, "%s: ImageMemory semantics with Memory scope %s; image memory "
                              "requires Workgroup scope (cl_intel_split_work_group_barrier)", name[w], scope_name(m->value[mem]));
      }
      if (w && state == 1)
        issue(is, i, k, op, "%s before any arrive in this function (undefined behaviour)", name[w]);
      else if (w && state == 3)
        issue(is, i, k, op, "%s twice without an arrive between (undefined behaviour)", name[w]);
      else if (!w && state == 2)
        issue(is, i, k, op, "%s twice without a wait between (undefined behaviour)", name[w]);
      state = w ? 3 : 2;
    }
    i += wc;
  }
}

int wgs_spirv_validate(const uint32_t *words, size_t n_words, wgs_spirv_issue *issues, size_t cap,
                       size_t *count)
{
  WGS__REQUIRE(count);
  if (cap)
    WGS__REQUIRE(issues);
  *count = 0;
  module m;
  int rc = module_read(words, n_words, &m);
  if (rc != WGS_OK)
    return rc;
  issue_list is = {issues, cap, 0};
  check(&m, &is);
  *count = is.count;
  module_free(&m);
  return WGS_OK;
}

int wgs_spirv_uses_split_barrier(const uint32_t *words, size_t n_words, int *uses)
{
  WGS__REQUIRE(uses);
  module m;
  int rc = module_read(words, n_words, &m);
  if (rc != WGS_OK)
    return rc;
  *uses = m.uses || m.has_cap || m.has_ext;
  module_free(&m);
  return WGS_OK;
}

void wgs_spirv_free(uint32_t *words) { free(words); }

/* The structure a driver takes for granted (the SPIR-V specification's "Logical Layout of a
 * Module" and the validation rules spirv-val applies to entry points): one OpMemoryModel;
 * functions neither nested nor redefined; every OpEntryPoint naming a function the module
 * defines, by a NUL-terminated name unique for its execution model, with interface ids in the
 * bound; every OpExecutionMode naming an entry point. A driver that meets a module breaking
 * these may crash rather than refuse it (lavapipe dereferences the missing function), so they
 * are checked before any driver sees a module. SPIRV-Tools' validator checks all of the rules,
 * but Debian ships it only as a static C++ library: libwgsync would take libstdc++ and 2 MB
 * into every static consumer and into the OpenCL layer, for a check whose crashing cases are
 * these. */
int wgs__spirv_check_structure(const uint32_t *words, size_t n_words)
{
  module m;
  int rc = module_read(words, n_words, &m);
  if (rc != WGS_OK)
    return rc;
  uint8_t *fn = calloc(m.bound, 1); /* 1: defined by an OpFunction; 2: also an entry point */
  if (!fn) {
    module_free(&m);
    return wgs__fail(WGS_ENOMEM, "SPIR-V module: out of memory");
  }
  unsigned models = 0;
  size_t in_fn = 0;
  for (size_t i = 5; i < m.n && rc == WGS_OK;) { /* functions first: entry points come before */
    uint32_t wc = m.w[i] >> 16, op = m.w[i] & 0xffffu;
    if (op == 14u) /* OpMemoryModel */
      models++;
    if (op == OP_FUNCTION) {
      if (wc < 5 || m.w[i + 2] >= m.bound || m.w[i + 2] == 0)
        rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: the OpFunction at word offset %zu is malformed",
                       i);
      else if (in_fn)
        rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: the OpFunction at word offset %zu starts inside "
                                   "the function at word offset %zu (no OpFunctionEnd)", i, in_fn);
      else if (fn[m.w[i + 2]])
        rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: function %%%u is defined twice (again at word "
                                   "offset %zu)", m.w[i + 2], i);
      else
        fn[m.w[i + 2]] = 1;
      in_fn = i;
    } else if (op == OP_FUNCTION_END) {
      in_fn = 0;
    }
    i += wc;
  }
  if (rc == WGS_OK && models != 1)
    rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: %u OpMemoryModel instructions (exactly one is "
                               "required)", models);
  for (size_t i = 5; i < m.n && rc == WGS_OK;) {
    uint32_t wc = m.w[i] >> 16, op = m.w[i] & 0xffffu;
    const uint32_t *ins = m.w + i;
    if (op == 15u) { /* OpEntryPoint: model, function, name, interface ids */
      const char *name = wc >= 4 ? (const char *)(ins + 3) : NULL;
      size_t room = wc >= 4 ? (size_t)(wc - 3) * 4 : 0;
      size_t len = name ? strnlen(name, room) : room;
      if (!name || len == room) {
        rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: the OpEntryPoint at word offset %zu has no "
                                   "NUL-terminated name", i);
      } else if (ins[2] >= m.bound || !fn[ins[2]]) {
        rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: entry point '%s' (OpEntryPoint at word offset "
                                   "%zu) names function %%%u, which the module does not define",
                       name, i, ins[2]);
      } else {
        fn[ins[2]] = 2;
        for (size_t w = 3 + (len + 4) / 4; w < wc && rc == WGS_OK; w++)
          if (ins[w] == 0 || ins[w] >= m.bound)
            rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: entry point '%s' lists interface id %%%u, "
                                       "outside the id bound %u", name, ins[w], m.bound);
        for (size_t j = 5; j < i && rc == WGS_OK;) { /* a name once per execution model */
          uint32_t wj = m.w[j] >> 16;
          if ((m.w[j] & 0xffffu) == 15u && wj >= 4 && m.w[j + 1] == ins[1] &&
              strncmp((const char *)(m.w + j + 3), name, room) == 0)
            rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: entry point '%s' is declared twice for "
                                       "execution model %u", name, ins[1]);
          j += wj;
        }
      }
    } else if ((op == 16u || op == 331u) && (wc < 3 || ins[1] >= m.bound || fn[ins[1]] != 2)) {
      /* OpExecutionMode, OpExecutionModeId (entry points come before them in a module) */
      rc = wgs__fail(WGS_ESPIRV, "SPIR-V module: the execution mode at word offset %zu names "
                                 "%%%u, which is no entry point", i, wc >= 2 ? ins[1] : 0u);
    }
    i += wc;
  }
  free(fn);
  module_free(&m);
  return rc;
}

/* Output buffer. */
typedef struct {
  uint32_t *w;
  size_t n, cap;
} wbuf;

static int put(wbuf *b, const uint32_t *src, size_t n)
{
  if (b->n + n > b->cap) {
    size_t cap = (b->cap + n) * 2;
    uint32_t *w = realloc(b->w, cap * sizeof *w);
    if (!w)
      return -1;
    b->w = w;
    b->cap = cap;
  }
  memcpy(b->w + b->n, src, n * sizeof *src);
  b->n += n;
  return 0;
}

int wgs_spirv_lower(const uint32_t *words, size_t n_words, uint32_t **out, size_t *out_words)
{
  WGS__REQUIRE(out);
  WGS__REQUIRE(out_words);
  *out = NULL;
  *out_words = 0;
  module m;
  int rc = module_read(words, n_words, &m);
  if (rc != WGS_OK)
    return rc;
  wgs_spirv_issue first;
  issue_list is = {&first, 1, 0};
  check(&m, &is);
  if (is.count) {
    module_free(&m);
    return wgs__fail(WGS_EVALIDATION, "cannot lower a module that breaks the rules (%zu issue%s); "
                                      "first, instruction %zu at word offset %zu: %s",
                     is.count, is.count == 1 ? "" : "s", first.index, first.offset, first.message);
  }
  /* Per function: the storage classes of its arrives, so each wait covers them. The new
   * semantics constants are created once per value and put before the first function. */
  uint32_t fn_storage = 0, bound = m.bound;
  /* what the wait keeps of its own and its arrives' semantics: the storage classes, and in a
   * Shader module under the Vulkan memory model MakeAvailable (the arrive's) and MakeVisible
   * (the wait's), which an AcquireRelease barrier may carry together */
  uint32_t keep = SEM_STORAGE | (m.shader ? SEM_VULKAN : 0u);
  uint32_t new_vals[64], new_ids[64], found_vals[64], found_ids[64];
  size_t n_new = 0, n_found = 0, first_fn = 0;
  uint32_t *wait_sem = calloc(m.n, sizeof *wait_sem); /* by word offset: the wait's new id */
  if (!wait_sem) {
    module_free(&m);
    return wgs__fail(WGS_ENOMEM, "out of memory");
  }
  for (size_t i = 5; i < m.n; i += m.w[i] >> 16) { /* pass 1: arrive storage per function */
    uint32_t op = m.w[i] & 0xffffu;
    if (op == OP_FUNCTION) {
      if (!first_fn)
        first_fn = i;
      fn_storage = 0;
      for (size_t j = i; j < m.n && (m.w[j] & 0xffffu) != OP_FUNCTION_END; j += m.w[j] >> 16)
        if ((m.w[j] & 0xffffu) == OP_ARRIVE)
          fn_storage |= m.value[m.w[j + 3]] & keep;
    } else if (op == OP_WAIT) {
      uint32_t want = SEM_ACQ_REL | ((m.value[m.w[i + 3]] | fn_storage) & keep), id = 0;
      /* Each distinct semantics is resolved once (found_*), so that lowering is linear in the
       * module, not waits x id bound. */
      size_t t = 0;
      while (t < n_found && found_vals[t] != want)
        t++;
      if (t < n_found) {
        id = found_ids[t];
      } else {
        for (uint32_t c = 1; c < m.bound && !id; c++)
          if (m.is_const[c] && m.value[c] == want)
            id = c;
        if (!id) {
          if (n_new == 64 || !m.uint_type || bound >= MAX_BOUND) {
            free(wait_sem);
            module_free(&m);
            return wgs__fail(WGS_EVALIDATION, "cannot lower: %s",
                             !m.uint_type ? "no OpTypeInt 32 0 to type a new constant"
                             : n_new == 64 ? "too many distinct semantics"
                                           : "the id bound is at its limit, no room for a new constant");
          }
          new_vals[n_new] = want;
          id = new_ids[n_new++] = bound++;
        }
        if (n_found < 64) {
          found_vals[n_found] = want;
          found_ids[n_found++] = id;
        }
      }
      wait_sem[i] = id;
    }
  }
  wbuf b = {NULL, 0, 0};
  int oom = put(&b, m.w, 5);
  b.w[3] = bound;
  for (size_t i = 5; i < m.n && !oom; i += m.w[i] >> 16) {
    uint32_t wc = m.w[i] >> 16, op = m.w[i] & 0xffffu;
    const uint32_t *ins = m.w + i;
    if (i == first_fn)
      for (size_t t = 0; t < n_new && !oom; t++) {
        uint32_t c[4] = {(4u << 16) | OP_CONSTANT, m.uint_type, new_ids[t], new_vals[t]};
        oom = put(&b, c, 4);
      }
    if (op == OP_CAPABILITY && ins[1] == CAP_SPLIT_BARRIER)
      continue;
    if (op == OP_EXTENSION && (!strcmp(ext_name(ins, wc), "SPV_INTEL_split_barrier") ||
                               !strcmp(ext_name(ins, wc), "SPV_EXT_split_barrier")))
      continue;
    if (op == OP_ARRIVE) {
      if (m.value[ins[3]] == 0)
        continue; /* Semantics None: no memory barrier to keep */
      uint32_t mb[3] = {(3u << 16) | OP_MEMORY_BARRIER, ins[2], ins[3]};
      oom = put(&b, mb, 3);
    } else if (op == OP_WAIT) {
      uint32_t cb[4] = {(4u << 16) | OP_CONTROL_BARRIER, ins[1], ins[2], wait_sem[i]};
      oom = put(&b, cb, 4);
    } else {
      oom = put(&b, ins, wc);
    }
  }
  free(wait_sem);
  module_free(&m);
  if (oom) {
    free(b.w);
    return wgs__fail(WGS_ENOMEM, "out of memory");
  }
  *out = b.w;
  *out_words = b.n;
  return WGS_OK;
}
