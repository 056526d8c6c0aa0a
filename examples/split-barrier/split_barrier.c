/*
 * A kernel written against cl_intel_split_work_group_barrier (cl_intel_split_work_group_barrier), unchanged: each
 * work-item publishes a value in local memory, arrives, does work that needs no one else's
 * value, waits, then reads its neighbour's value. wgsync supplies the built-ins where the device
 * lacks the extension (and a real split on NVIDIA with the WGS_WG_SPLIT_STORAGE line). An
 * ordinary launch (wgs_kernel_run): no discovery, no grid barrier. Checked on the host.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <wgsync.h>

#define LOCAL 64
#define GROUPS 32

static const char *kernel_source =
    "__kernel void neighbour_sum(__global const uint *in, __global uint *out)\n"
    "{\n"
    "  __local uint slot[64];\n"
    "  WGS_WG_SPLIT_STORAGE; /* optional: a real split where the device has one */\n"
    "  uint lid = get_local_id(0), gid = get_global_id(0);\n"
    "  slot[lid] = in[gid];\n"
    "  intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);\n"
    "  uint own = 0; /* work that needs no other work-item's value */\n"
    "  for (uint i = 0; i < 64u + lid; ++i)\n"
    "    own = own * 1664525u + 1013904223u + in[gid];\n"
    "  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);\n"
    "  out[gid] = slot[(lid + 1u) % 64u] + (own & 1u);\n"
    "}\n";

#define TRY(call)                                                                            \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != WGS_OK) {                                                                     \
      fprintf(stderr, "%s failed: %s: %s\n", #call, wgs_strerror(rc_), wgs_last_error());    \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(void)
{
  enum { N = LOCAL * GROUPS };
  static uint32_t in[N], out[N];
  for (unsigned i = 0; i < N; i++)
    in[i] = i * 7u + 3u;
  wgs_device_t *dev;
  wgs_device_info info;
  TRY(wgs_device_open(NULL, &dev));
  TRY(wgs_device_get_info(dev, &info));
  wgs_program_t *prog;
  wgs_kernel_t *k;
  TRY(wgs_program_build(dev, kernel_source, NULL, WGS_BUILD_CHECKED, &prog));
  TRY(wgs_kernel_create(prog, "neighbour_sum", &k));
  wgs_buffer_t *bin, *bout;
  TRY(wgs_buffer_create(dev, sizeof in, &bin));
  TRY(wgs_buffer_create(dev, sizeof out, &bout));
  TRY(wgs_buffer_write(bin, 0, sizeof in, in));
  TRY(wgs_kernel_set_arg_buffer(k, 0, bin));
  TRY(wgs_kernel_set_arg_buffer(k, 1, bout));
  size_t global = N, local = LOCAL;
  TRY(wgs_kernel_run(k, 1, &global, &local));
  TRY(wgs_buffer_read(bout, 0, sizeof out, out));
  unsigned wrong = 0;
  for (unsigned i = 0; i < N; i++) {
    unsigned lid = i % LOCAL, nb = i - lid + (lid + 1) % LOCAL;
    uint32_t own = 0;
    for (unsigned j = 0; j < 64u + lid; ++j)
      own = own * 1664525u + 1013904223u + in[i];
    wrong += out[i] != in[nb] + (own & 1u);
  }
  printf("%s: split work-group barrier (%s), %u work-items: %u wrong: %s\n", info.name,
         info.has_split_barrier ? "native" : "wgsync", N, wrong, wrong ? "FAIL" : "PASS");
  wgs_buffer_release(bin);
  wgs_buffer_release(bout);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  wgs_device_close(dev);
  return wrong ? 1 : 0;
}
