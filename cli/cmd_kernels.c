/* wgsync kernels: what the wgsync tools kernels cost on this device (work-group limit, local and
 * private memory, registers where the driver says) and how they were built, for the checked and
 * unchecked builds, on any backend (wgs_tools_program, wgs_kernel_get_resources). */
#include "cli.h"
#include "wgsync_opencl.h"

int cmd_kernels(const cli_opts *o, cli_target *t)
{
  wgs_device_t *dev = t->dev;
  wgs_device_info in;
  wgs_device_get_info(dev, &in);
  /* wgs_calibrate (the spin clock) exists where spins are timed by calibration: OpenCL */
  static const char *names[] = {"wgs_micro", "wgs_mp", "wgs_latency", "wgs_calibrate"};
  unsigned n_names = in.backend == WGS_BACKEND_OPENCL ? 4 : 3;
  /* Everything asked of the device first, so that a failure is reported (a JSON object under
   * --json) before any output; then printed. */
  wgs_kernel_resources res[2][4];
  const char *logs[2];
  for (int checked = 0; checked < 2; checked++) {
    wgs_program_t *prog;
    int rc = wgs_tools_program(dev, checked, &prog);
    for (unsigned i = 0; i < n_names && rc == WGS_OK; i++) {
      wgs_kernel_t *k;
      if ((rc = wgs_kernel_create(prog, names[i], &k)) == WGS_OK) {
        rc = wgs_kernel_get_resources(k, &res[checked][i]);
        wgs_kernel_release(k);
      }
    }
    if (rc != WGS_OK)
      return cli_fail("kernels", rc);
    logs[checked] = wgs_program_build_log(prog); /* (the device owns the tools' programs) */
  }
  json_w j;
  if (o->json) {
    cli_json_open(&j, "kernels");
    cli_device_json(&j, "device", &in);
    json_arr(&j, "builds");
  } else {
    cli_print_header(&in);
  }
  for (int checked = 0; checked < 2; checked++) {
    /* OpenCL: the options wgsync builds with; elsewhere the build log says how they were made */
    const char *opts = in.backend == WGS_BACKEND_OPENCL
                           ? wgs_device_opencl_build_options(dev, checked ? WGS_BUILD_CHECKED : 0)
                           : NULL;
    const char *log = logs[checked];
    if (o->json) {
      json_obj(&j, NULL);
      json_bool(&j, "checked", checked);
      if (opts)
        json_str(&j, "options", opts);
      json_arr(&j, "kernels");
    } else if (opts) {
      printf("%s build, options: %s\n", checked ? "checked" : "unchecked", opts);
    } else {
      printf("%s build: %s\n", checked ? "checked" : "unchecked", log);
    }
    for (unsigned i = 0; i < n_names; i++) {
      const wgs_kernel_resources *r = &res[checked][i];
      if (o->json) {
        json_obj(&j, NULL);
        json_str(&j, "name", names[i]);
        json_int(&j, "max_work_group_size", (long long)r->max_local_size);
        json_int(&j, "local_mem_bytes", (long long)r->local_mem_bytes);
        json_int(&j, "private_mem_bytes", (long long)r->private_mem_bytes);
        if (r->registers >= 0)
          json_int(&j, "registers", r->registers);
        json_end_obj(&j);
      } else {
        printf("  %-14s max work-group %5zu   local %6llu B   private %6llu B/work-item", names[i],
               r->max_local_size, (unsigned long long)r->local_mem_bytes,
               (unsigned long long)r->private_mem_bytes);
        if (r->registers >= 0)
          printf("   %3d registers", r->registers);
        printf("\n");
      }
    }
    if (o->json) {
      json_end_arr(&j);
      json_str(&j, "build_log", log);
      json_end_obj(&j);
    } else if (opts && log && *log && !o->quiet) {
      printf("  build log:\n%s\n", log);
    }
  }
  if (o->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  return 0;
}
