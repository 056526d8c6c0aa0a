/*
 * What a Vulkan compute entry point takes as arguments, read from its SPIR-V: the storage
 * buffers of descriptor set 0 (wgsync binds a buffer argument at binding = its index), the
 * push-constant block's members (the value arguments, in index order: each member's Offset and
 * scalar size), and whether specialisation constant 1 sizes shared memory (the one __local
 * argument). The Vulkan backend checks every argument against it (src/vulkan/vk_program.c).
 *
 * Written by hand rather than with SPIRV-Reflect: these are five instructions of a module whose
 * structure is already checked (wgs__spirv_check_structure), SPIRV-Reflect is in no Debian
 * package, and a vendored copy would be 6,000 lines in every static consumer for them.
 *
 * The instructions read (the SPIR-V specification, 3.42 "Instructions"): OpEntryPoint (15),
 * OpDecorate (71: DescriptorSet 34, Binding 33, SpecId 1, Block 2, BufferBlock 3),
 * OpMemberDecorate (72: Offset 35), OpTypeInt (21), OpTypeFloat (22), OpTypeVector (23),
 * OpTypeStruct (30), OpTypePointer (32), OpVariable (59; storage classes StorageBuffer 12,
 * Uniform 2, PushConstant 9).
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

enum { OP_ENTRY = 15, OP_INT = 21, OP_FLOAT = 22, OP_VECTOR = 23, OP_STRUCT = 30, OP_POINTER = 32,
       OP_VARIABLE = 59, OP_DECORATE = 71, OP_MEMBER_DECORATE = 72 };
enum { DEC_SPEC_ID = 1, DEC_BLOCK = 2, DEC_BUFFER_BLOCK = 3, DEC_BINDING = 33, DEC_SET = 34,
       DEC_OFFSET = 35 };
enum { SC_UNIFORM = 2, SC_PUSH = 9, SC_STORAGE = 12 };

typedef struct {
  uint32_t binding, set, type; /* binding/set + 1 when decorated; a pointer's pointee */
  uint8_t kind;                /* 1 int/float, 2 struct, 3 pointer, 4 variable */
  uint8_t bytes;               /* a scalar's or a vector's size */
  uint8_t block;               /* a struct decorated Block (1) or BufferBlock (2) */
  uint32_t sc;                 /* a pointer's or variable's storage class */
  uint32_t members, first;     /* a struct's member count, and its first member type's word */
} entity;

int wgs__spirv_reflect(const uint32_t *w, size_t n, const char *entry, wgs__spirv_args *out)
{
  memset(out, 0, sizeof *out);
  if (n < 5 || w[0] != 0x07230203u)
    return WGS_OK; /* (a module the structure check refused never gets here) */
  uint32_t bound = w[3], version = w[1], entries = 0;
  entity *e = calloc(bound ? bound : 1, sizeof *e);
  uint8_t *used = calloc(bound ? bound : 1, 1);
  if (!e || !used) {
    free(e);
    free(used);
    return wgs__fail(WGS_ENOMEM, "SPIR-V reflection: out of memory");
  }
  const uint32_t *iface = NULL;
  size_t n_iface = 0;
  for (size_t i = 5; i < n;) {
    uint32_t wc = w[i] >> 16, op = w[i] & 0xffffu;
    if (wc == 0 || i + wc > n)
      break;
    const uint32_t *in = w + i;
    if (op == OP_ENTRY && wc >= 4) {
      entries++;
      size_t room = (size_t)(wc - 3) * 4, len = strnlen((const char *)(in + 3), room);
      if (len < room && strcmp((const char *)(in + 3), entry) == 0) {
        iface = in + 3 + (len + 4) / 4;
        n_iface = wc - (size_t)(iface - in);
      }
    } else if (op == OP_DECORATE && wc >= 3 && in[1] < bound) {
      if (in[2] == DEC_BLOCK || in[2] == DEC_BUFFER_BLOCK)
        e[in[1]].block = in[2] == DEC_BLOCK ? 1 : 2;
      else if (wc >= 4 && in[2] == DEC_BINDING)
        e[in[1]].binding = in[3] + 1;
      else if (wc >= 4 && in[2] == DEC_SET)
        e[in[1]].set = in[3] + 1;
      else if (wc >= 4 && in[2] == DEC_SPEC_ID && in[3] == 1)
        out->shared_arg = 1;
    } else if ((op == OP_INT || op == OP_FLOAT) && wc >= 3 && in[1] < bound) {
      e[in[1]].kind = 1;
      e[in[1]].bytes = (uint8_t)(in[2] / 8);
    } else if (op == OP_VECTOR && wc >= 4 && in[1] < bound && in[2] < bound && e[in[2]].kind == 1) {
      e[in[1]].kind = 1; /* a value too (vec2 of 32-bit components: 8 bytes) */
      e[in[1]].bytes = (uint8_t)(e[in[2]].bytes * in[3] <= 255 ? e[in[2]].bytes * in[3] : 0);
    } else if (op == OP_STRUCT && wc >= 2 && in[1] < bound) {
      e[in[1]].kind = 2;
      e[in[1]].members = wc - 2;
      e[in[1]].first = (uint32_t)(i + 2);
    } else if (op == OP_POINTER && wc >= 4 && in[1] < bound) {
      e[in[1]].kind = 3;
      e[in[1]].sc = in[2];
      e[in[1]].type = in[3];
    } else if (op == OP_VARIABLE && wc >= 4 && in[2] < bound) {
      e[in[2]].kind = 4;
      e[in[2]].sc = in[3];
      e[in[2]].type = in[1];
    }
    i += wc;
  }
  /* Which variables the entry point uses: from SPIR-V 1.4 its interface lists every global it
   * uses; before, only its inputs and outputs, so with one entry point every variable is its,
   * and with several nothing is known (no checks: out->known stays 0). */
  int known = version >= 0x00010400u ? iface != NULL : entries == 1;
  if (known) {
    if (version >= 0x00010400u) {
      for (size_t j = 0; j < n_iface; j++)
        if (iface[j] < bound)
          used[iface[j]] = 1;
    } else {
      memset(used, 1, bound);
    }
  }
  int rc = WGS_OK;
  for (uint32_t id = 1; known && id < bound && rc == WGS_OK; id++) {
    if (!used[id] || e[id].kind != 4)
      continue;
    if (e[id].binding && e[id].set == 1) { /* a resource of descriptor set 0 */
      uint32_t b = e[id].binding - 1, ptr = e[id].type;
      uint32_t st = ptr < bound && e[ptr].kind == 3 && e[ptr].type < bound ? e[ptr].type : 0;
      /* a storage buffer: StorageBuffer, or Uniform with BufferBlock (SPIR-V before 1.3) */
      int storage = e[id].sc == SC_STORAGE || (e[id].sc == SC_UNIFORM && e[st].block == 2);
      if (b >= 32) {
        rc = wgs__fail(WGS_ELIMIT, "entry point '%s': a resource at binding %u (wgsync binds buffer "
                                   "arguments at bindings 0 to 31)", entry, b);
      } else if (storage) {
        out->bindings |= 1u << b;
      } else {
        out->others |= 1u << b; /* wgsync binds storage buffers only */
        out->other_kind[b] = e[id].sc == SC_UNIFORM ? 1 : 2;
      }
    } else if (e[id].sc == SC_PUSH) {
      uint32_t ptr = e[id].type, st = ptr < bound && e[ptr].kind == 3 ? e[ptr].type : 0;
      if (st >= bound || e[st].kind != 2)
        continue;
      if (e[st].members > WGS_SPIRV_PUSH_MAX) {
        rc = wgs__fail(WGS_ELIMIT, "entry point '%s': %u push-constant members (wgsync passes at most "
                                   "%u values)", entry, e[st].members, WGS_SPIRV_PUSH_MAX);
        break;
      }
      out->n_push = e[st].members;
      for (uint32_t m = 0; m < e[st].members; m++) {
        uint32_t t = w[e[st].first + m];
        out->push[m].bytes = t < bound && e[t].kind == 1 ? e[t].bytes : 0;
        out->push[m].offset = UINT32_MAX;
      }
      for (size_t i = 5; i < n;) { /* the members' offsets */
        uint32_t wc = w[i] >> 16;
        if (wc == 0 || i + wc > n)
          break;
        if ((w[i] & 0xffffu) == OP_MEMBER_DECORATE && wc >= 5 && w[i + 1] == st &&
            w[i + 3] == DEC_OFFSET && w[i + 2] < out->n_push)
          out->push[w[i + 2]].offset = w[i + 4];
        i += wc;
      }
    }
  }
  out->known = known && rc == WGS_OK;
  free(e);
  free(used);
  return rc;
}
