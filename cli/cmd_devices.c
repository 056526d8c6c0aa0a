/* wgsync devices: every device of every backend and the capabilities wgsync depends on. */
#include "cli.h"

#define MAX_LIST 64

int cmd_devices(const cli_opts *o)
{
  wgs_device_info infos[MAX_LIST];
  size_t n = 0;
  int rc = wgs_device_list(infos, MAX_LIST, &n);
  if (rc != WGS_OK)
    return cli_fail("devices", rc);
  const char *none = wgs_last_error(); /* the backends without devices here, and why */
  if (o->json) {
    json_w j;
    cli_json_open(&j, "devices");
    json_arr(&j, "devices");
    for (size_t i = 0; i < n; i++)
      cli_device_json(&j, NULL, &infos[i]);
    json_end_arr(&j);
    if (*none)
      json_str(&j, "no_devices_from", none);
    json_end_obj(&j);
    json_finish(&j);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const wgs_device_info *in = &infos[i];
    char id[32] = "?";
    wgs_device_id(in, id, sizeof id); /* the name that opens it */
    printf("%s  %s  [%s]\n", id, in->name,
           in->backend == WGS_BACKEND_OPENCL ? in->platform_name : wgs_backend_name(in->backend));
    printf("      type %-5s  compute units %u  max work-group %zu  local memory %llu B\n",
           in->is_gpu ? "gpu" : in->is_cpu ? "cpu" : "other", in->compute_units,
           in->max_work_group_size, (unsigned long long)in->local_mem_bytes);
    printf("      %s; driver %s; %s\n", in->device_version, in->driver_version, in->c_version);
    printf("      atomics %s; acq_rel %s, scope_device %s; split barrier extension %s\n",
           cli_atomics_name(in->atomics), in->has_acq_rel ? "yes" : "no",
           in->has_scope_device ? "yes" : "no", in->has_split_barrier ? "yes" : "no (polyfill)");
  }
  if (*none)
    printf("no devices here from: %s\n", none);
  return 0;
}
