/*
 * For measurement and tests only: links into a program (never into the library or the installed
 * CLI) and, before main, applies WGSYNC_TUNING="name=value ..." to the library's tuning values
 * through its private hook (src/tuning.h lists the names), e.g.
 *   WGSYNC_TUNING="shards=0 atom_min=1"   one arrival count, acq_rel arrivals from 1 group
 *   WGSYNC_TUNING="atomics=fence"         the fence layer on a device that has C11 atomics
 * A value the library cannot use ends the program with the library's message (exit 2), so that
 * a measurement never runs with a setting other than the one it names.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tuning.h"
#include "wgsync.h"

__attribute__((constructor)) static void wgs_bench_tuning_from_env(void)
{
  const char *spec = getenv("WGSYNC_TUNING");
  if (!spec || !*spec)
    return;
  wgs__tuning t = *wgs__tuning_get();
  if (wgs__tuning_parse(&t, spec) != WGS_OK || wgs__tuning_set(&t) != WGS_OK) {
    fprintf(stderr, "WGSYNC_TUNING: %s\n", wgs_last_error());
    exit(2);
  }
}
