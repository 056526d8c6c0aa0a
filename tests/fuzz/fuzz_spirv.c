/*
 * libFuzzer target: the SPIR-V split-barrier validator and lowerer (src/spirv/spirv.c), and the
 * structure check and argument reflection the Vulkan backend runs on every module
 * (src/spirv/reflect.c). The input is a module's words. Validation must read or refuse any
 * input; a module it accepts with no issues must lower, and the lowered module must validate
 * cleanly and use no split barrier; a module of sound structure must reflect within bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* wgs__spirv_check_structure, wgs__spirv_reflect */
#include "wgsync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t n = size / 4;
  uint32_t *words = malloc(n ? n * 4 : 4);
  if (!words)
    return 0;
  memcpy(words, data, n * 4);
  wgs_spirv_issue issues[8];
  size_t count = 0;
  int uses = 0;
  int rc = wgs_spirv_validate(words, n, issues, 8, &count);
  (void)wgs_spirv_uses_split_barrier(words, n, &uses);
  if (rc == WGS_OK && count == 0) {
    uint32_t *out = NULL;
    size_t out_n = 0;
    if (wgs_spirv_lower(words, n, &out, &out_n) == WGS_OK) {
      size_t count2 = 0;
      if (wgs_spirv_validate(out, out_n, issues, 8, &count2) != WGS_OK || count2 != 0)
        abort(); /* the lowered module is not clean */
      if (wgs_spirv_uses_split_barrier(out, out_n, &uses) != WGS_OK || uses)
        abort(); /* a split barrier survived the lowering */
      wgs_spirv_free(out);
    }
  }
  if (wgs__spirv_check_structure(words, n) == WGS_OK) {
    wgs__spirv_args a;
    if (wgs__spirv_reflect(words, n, "main", &a) == WGS_OK && a.n_push > WGS_SPIRV_PUSH_MAX)
      abort(); /* more push-constant members than it holds */
  }
  free(words);
  return 0;
}
