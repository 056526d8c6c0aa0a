/* The null backend's states, launches and result words (null_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "null_internal.h"

int wgs__null_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  size_t n = WGS_STATE_WORDS(max_groups);
  wgs__null_state *st = calloc(1, sizeof *st);
  uint32_t *w = calloc(n, sizeof *w);
  if (!st || !w) {
    free(st);
    free(w);
    return wgs__fail(WGS_ENOMEM, "wgs_state_create: out of memory (%zu bytes)", n * sizeof *w);
  }
  wgs__state_head_init((wgs__state_head *)st, &wgs__null_ops, dev, max_groups);
  wgs__null_dev_retain(dev);
  /* all zero (epoch 0, both halves clear), then each half's way back to the base, as a device
   * state starts (device/common/wgs_layout.h) */
  for (uint32_t h = 0; h < 2; h++)
    w[WGS_HALF(max_groups, h)] = WGS_HALF(max_groups, h);
  st->words = w;
  *out = (wgs_state_t *)(void *)st;
  return WGS_OK;
}

void wgs__null_state_release(wgs_state_t *pst)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  free(st->words);
  wgs__state_head_fini((wgs__state_head *)st);
  wgs__null_dev_release(st->dev);
  free(st);
}

static int to_ns(void *ctx, double us, uint64_t *out)
{
  (void)ctx;
  *out = wgs__saturate_u64(us * 1e3);
  return WGS_OK;
}

/* What the core plans from (src/launch.h). */
static int null_describe(wgs_state_t *pst, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  wgs__null_kernel *k = what;
  const wgs_device_info *in = &wgs__head(st->dev)->info;
  int checked = (k->prog->flags & WGS_BUILD_CHECKED) != 0;
  (void)cfg;
  *c = (wgs__launch_ctx){"wgs_launch", k->name, 0, "wgs_state_create", in,
                         wgs__default_local(in->max_work_group_size), st->max_groups, 1, checked,
                         !checked, checked, to_ns, NULL, NULL};
  return WGS_OK;
}

/* What the device side of a kernel that only calls wgs_discover leaves: the config words, the
 * epoch moved on, the participants (with discovery, the first compute-units groups poll in
 * time, as on a CPU device). */
static int null_enqueue(wgs_state_t *pst, void *what, const wgs_launch_config *cfg,
                        const wgs__launch_ctx *c, const wgs__launch_plan *plan, int *captured)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  (void)what, (void)captured;
  uint32_t *w = st->words, *ctrl = w + WGS_G_CTRL;
  memcpy(w + WGS_G_CONFIG, plan->w, sizeof plan->w);
  uint32_t enough = cfg->close_at ? cfg->close_at : c->info->compute_units;
  uint32_t part = plan->mode == WGS_MODE_DISCOVER && enough < plan->groups ? enough : plan->groups;
  if (plan->w[WGS_CFG_EPOCHS]) {
    ctrl[WGS_CTRL_RESULT_EPOCH] = ctrl[WGS_CTRL_EPOCH];
    ctrl[WGS_CTRL_EPOCH]++;
  } else {
    ctrl[WGS_CTRL_EPOCH] = ctrl[WGS_CTRL_RESULT_EPOCH] = 0;
  }
  ctrl[WGS_CTRL_PARTICIPANTS] = part;
  return WGS_OK;
}

const wgs__launch_via wgs__null_launch = {null_describe, null_enqueue};

int wgs__null_result_words(wgs_state_t *pst, uint32_t *glob, double *kernel_us)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  memcpy(glob, st->words, WGS_G_LINES * WGS_LINE_WORDS * sizeof *glob);
  *kernel_us = -1; /* no kernel ran: the core times a synchronous launch by the wall clock */
  return WGS_OK;
}

int wgs__null_clear_error(wgs_state_t *pst)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  memset(st->words + WGS_G_ERROR, 0, WGS_LINE_WORDS * sizeof(uint32_t));
  return WGS_OK;
}

int wgs__null_read_words(wgs_state_t *pst, size_t offset, size_t n, uint32_t *out)
{
  wgs__null_state *st = (wgs__null_state *)(void *)pst;
  memcpy(out, st->words + offset, n * sizeof *out);
  return WGS_OK;
}
