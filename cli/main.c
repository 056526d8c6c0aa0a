/*
 * wgsync command-line tool: devices, discover, bound, barrier, kernels, latency, app, spirv, and
 * demo (the default: devices, discover with the bound, barrier, then an app both ways).
 * Device choice: -p/-d indices, --device NAME (substring), or WGSYNC_DEVICE.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Output that could not be written is a failure, whatever the command (`-o /dev/full`,
 * `--json > /dev/full`): stdout is closed at exit and an error changes the exit status. */
static void close_stdout(void)
{
  int failed = ferror(stdout); /* an earlier flush failed: the error flag stays set */
  if (fclose(stdout) != 0 || failed) {
    fprintf(stderr, "wgsync: cannot write the output: %s\n", strerror(errno));
    _exit(2);
  }
}

int main(int argc, char **argv)
{
  atexit(close_stdout);
  /* Progress and errors go to stderr: with stdout piped, full buffering printed a section's
   * result after the next section's progress (demo); whole lines keep the order. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    cli_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("wgsync %s\n", WGS_VERSION_STRING);
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "spirv"))
    return cmd_spirv(argc, argv);
  cli_opts o;
  int parsed = cli_parse(argc, argv, &o);
  if (parsed >= 0)
    return parsed;
  cli_json_errors = o.json;
  if (!strcmp(cmd, "devices"))
    return cmd_devices(&o);
  cli_target tgt;
  int rc = cli_target_open(&o.sel, &tgt);
  if (rc != WGS_OK)
    return cli_fail(cmd, rc);
  cli_target *dev = &tgt;
  int status;
  if (!strcmp(cmd, "discover"))
    status = cmd_discover(&o, dev);
  else if (!strcmp(cmd, "bound"))
    status = cmd_bound(&o, dev);
  else if (!strcmp(cmd, "barrier"))
    status = cmd_barrier(&o, dev);
  else if (!strcmp(cmd, "kernels"))
    status = cmd_kernels(&o, dev);
  else if (!strcmp(cmd, "latency"))
    status = cmd_latency(&o, dev);
  else if (!strcmp(cmd, "app"))
    status = cmd_app(&o, dev);
  else { /* demo */
    cli_opts d = o;
    d.json = 0;
    status = cmd_devices(&d);
    if (!status) {
      d.with_bound = 1;
      printf("\n");
      status = cmd_discover(&d, dev);
    }
    if (!status) {
      printf("\n");
      /* lavapipe ends a shader invocation's loops after 65,535 iterations, waits included: with
       * more workers than free cores a waiting group spends them fast enough that 1000 barriers
       * may not fit; 200 do (--rounds asks for more) */
      if (tgt.info.backend == WGS_BACKEND_VULKAN && tgt.info.is_cpu && !o.rounds_set)
        d.rounds = 200;
      status = cmd_barrier(&d, dev);
    }
    if (!status && cli_apps_missing(&tgt)) {
      printf("\napp      skipped: %s (wgsync app runs them on an OpenCL or CUDA device)\n",
             cli_apps_missing(&tgt));
    } else if (!status) { /* the point of it all: one application as a host loop and as one kernel */
      printf("\n");
      d.app_name = "bfs";
      /* lavapipe's loop budget (above) holds every level of a 64 x 64 grid in one launch */
      d.graph = tgt.info.backend == WGS_BACKEND_VULKAN && tgt.info.is_cpu ? "grid:64" : "grid:128";
      d.forms = "multi,persistent";
      d.runs = 3;
      d.runs_set = 1;
      status = cmd_app(&d, dev);
    }
  }
  cli_target_close(&tgt);
  return status;
}
