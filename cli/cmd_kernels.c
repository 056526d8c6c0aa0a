/* wgsync kernels: what the wgsync tools kernels cost on this device (work-group limit, local and
 * private memory per work-item) and the build log, for the checked and unchecked builds. */
#include "cli.h"
#include "wgsync_opencl.h"

int cmd_kernels(const cli_opts *o, cli_target *t)
{
  if (t->cuda) {
    fprintf(stderr, "wgsync kernels: OpenCL devices only (for CUDA, build with -Xptxas -v)\n");
    return 2;
  }
  wgs_device_t *dev = t->dev;
  static const char *names[] = {"wgs_micro", "wgs_mp", "wgs_calibrate"};
  wgs_device_info in;
  wgs_device_get_info(dev, &in);
  json_w j;
  if (o->json) {
    cli_json_open(&j, "kernels");
    cli_device_json(&j, "device", &in);
    json_arr(&j, "builds");
  } else {
    cli_print_header(&in);
  }
  for (int checked = 0; checked < 2; checked++) {
    wgs_program_t *prog;
    int rc = wgs_tools_program(dev, checked, &prog);
    if (rc != WGS_OK)
      return cli_fail("kernels", rc);
    const char *opts = wgs_device_opencl_build_options(dev, checked ? WGS_BUILD_CHECKED : 0);
    if (o->json) {
      json_obj(&j, NULL);
      json_bool(&j, "checked", checked);
      json_str(&j, "options", opts);
      json_arr(&j, "kernels");
    } else {
      printf("%s build, options: %s\n", checked ? "checked" : "unchecked", opts);
    }
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
      wgs_kernel_t *k;
      if ((rc = wgs_kernel_create(prog, names[i], &k)) != WGS_OK)
        return cli_fail("kernels", rc);
      size_t wg = 0;
      cl_ulong lmem = 0, pmem = 0;
      cl_device_id d = wgs_device_opencl_id(dev);
      clGetKernelWorkGroupInfo(wgs_kernel_opencl(k), d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
      clGetKernelWorkGroupInfo(wgs_kernel_opencl(k), d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
      clGetKernelWorkGroupInfo(wgs_kernel_opencl(k), d, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL);
      if (o->json) {
        json_obj(&j, NULL);
        json_str(&j, "name", names[i]);
        json_int(&j, "max_work_group_size", (long long)wg);
        json_int(&j, "local_mem_bytes", (long long)lmem);
        json_int(&j, "private_mem_bytes", (long long)pmem);
        json_end_obj(&j);
      } else {
        printf("  %-14s max work-group %5zu   local %6llu B   private %6llu B/work-item\n",
               names[i], wg, (unsigned long long)lmem, (unsigned long long)pmem);
      }
      wgs_kernel_release(k);
    }
    const char *log = wgs_program_build_log(prog);
    if (o->json) {
      json_end_arr(&j);
      json_str(&j, "build_log", log);
      json_end_obj(&j);
    } else if (log && *log && !o->quiet) {
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
