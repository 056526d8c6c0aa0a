/*
 * libFuzzer target: the wgsync command's option parsing (cli/options.c), device untouched. The
 * input is the argument list, NUL-separated: the first is the command. Parsing must end in
 * "go on", "help" or "error" for any input, with no crash and no sanitizer report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int quiet;
  if (!quiet) { /* every refused input prints why: keep the fuzzer's own output readable */
    quiet = 1;
    if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
      abort();
  }
  char *buf = malloc(size + 1);
  if (!buf)
    return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *argv[34] = {"wgsync"};
  int argc = 1;
  for (char *p = buf; p <= buf + size && argc < 33; p += strlen(p) + 1)
    argv[argc++] = p;
  argv[argc] = NULL;
  cli_opts o;
  int rc = argc >= 2 ? cli_parse(argc, argv, &o) : 2;
  if (rc != -1 && rc != 0 && rc != 2)
    abort();
  free(buf);
  return 0;
}
