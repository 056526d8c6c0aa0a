/*
 * 1-D Jacobi relaxation, every iteration in one persistent OpenCL kernel: the work-groups that
 * discovery finds running at once sweep the array in a grid-stride loop and meet at a grid
 * barrier between iterations. Checked against the same iterations on the CPU.
 *   jacobi [N] [ITERS]      (defaults 65536, 200; WGSYNC_DEVICE picks the device)
 */
#include <stdio.h>
#include <stdlib.h>

#include <wgsync.h>

static const char *kernel_source =
    "__kernel void jacobi(__global uint *wgs, __global float *a, __global float *b,\n"
    "                     uint n, uint iters)\n"
    "{\n"
    "  wgs_env env;\n"
    "  if (wgs_discover(wgs, &env)) {\n"
    "    for (uint it = 0; it < iters; ++it) {\n"
    "      __global const float *src = (it & 1) ? b : a;\n"
    "      __global float *dst = (it & 1) ? a : b;\n"
    "      for (size_t i = wgs_get_global_id(&env); i < n; i += wgs_get_global_size(&env))\n"
    "        dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1]);\n"
    "      wgs_grid_barrier(&env); /* this iteration's writes are visible to the next */\n"
    "    }\n"
    "  }\n"
    "}\n";

#define TRY(call)                                                                            \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != WGS_OK) {                                                                     \
      fprintf(stderr, "%s failed: %s: %s\n", #call, wgs_strerror(rc_), wgs_last_error());    \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 65536, iters = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
  if (n < 3) {
    fprintf(stderr, "N must be at least 3\n");
    return 2;
  }
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *got = malloc(n * sizeof *got);
  if (!x || !y || !got)
    return 1;
  for (unsigned i = 0; i < n; i++)
    x[i] = y[i] = (float)(i % 17) * 0.25f;

  wgs_device_t *dev;
  wgs_device_info info;
  TRY(wgs_device_open(NULL, &dev));
  TRY(wgs_device_get_info(dev, &info));
  wgs_program_t *prog;
  wgs_kernel_t *k;
  TRY(wgs_program_build(dev, kernel_source, NULL, WGS_BUILD_CHECKED, &prog));
  TRY(wgs_kernel_create(prog, "jacobi", &k));
  wgs_buffer_t *a, *b;
  TRY(wgs_buffer_create(dev, n * sizeof(float), &a));
  TRY(wgs_buffer_create(dev, n * sizeof(float), &b));
  TRY(wgs_buffer_write(a, 0, n * sizeof(float), x));
  TRY(wgs_buffer_write(b, 0, n * sizeof(float), x));
  TRY(wgs_kernel_set_arg_buffer(k, 1, a));
  TRY(wgs_kernel_set_arg_buffer(k, 2, b));
  TRY(wgs_kernel_set_arg(k, 3, sizeof n, &n));
  TRY(wgs_kernel_set_arg(k, 4, sizeof iters, &iters));

  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  wgs_state_t *st;
  TRY(wgs_state_create(dev, wgs_default_groups(dev, cfg.local_size), &st));
  wgs_launch_result res;
  TRY(wgs_launch(st, k, &cfg, &res)); /* argument 0 is the state */
  TRY(wgs_buffer_read(iters & 1 ? b : a, 0, n * sizeof(float), got));

  for (unsigned it = 0; it < iters; it++) { /* the CPU reference */
    float *src = it & 1 ? y : x, *dst = it & 1 ? x : y;
    for (unsigned i = 0; i < n; i++)
      dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1]);
  }
  const float *want = iters & 1 ? y : x;
  double worst = 0;
  for (unsigned i = 0; i < n; i++) {
    double d = (double)got[i] - want[i];
    d = d < 0 ? -d : d;
    worst = d > worst ? d : worst;
  }
  printf("%s: %u iterations over %u points in one launch: %u work-groups took part; "
         "max difference from the CPU %.3g: %s\n",
         info.name, iters, n, res.participants, worst, worst <= 1e-5 ? "PASS" : "FAIL");

  wgs_state_release(st);
  wgs_buffer_release(a);
  wgs_buffer_release(b);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  wgs_device_close(dev);
  free(x);
  free(y);
  free(got);
  return worst <= 1e-5 ? 0 : 1;
}
