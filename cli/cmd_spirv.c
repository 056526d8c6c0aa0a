/*
 * wgsync spirv validate FILE [--json]      check split-barrier instructions (cl_intel_split_work_group_barrier/002 rules)
 * wgsync spirv lower FILE -o OUT           rewrite for consumers without the extension
 * Exit status: 0 valid / lowered, 1 rule violations, 2 unreadable or malformed input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"

static uint32_t *read_words(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f || fstat(fileno(f), &sb) != 0) {
    fprintf(stderr, "wgsync spirv: cannot open '%s': %s\n", path, strerror(errno));
    if (f)
      fclose(f);
    return NULL;
  }
  if (!S_ISREG(sb.st_mode)) { /* a directory opens, and ftell on it says LONG_MAX */
    fprintf(stderr, "wgsync spirv: '%s' is %s, not a SPIR-V file\n", path,
            S_ISDIR(sb.st_mode) ? "a directory" : "not a regular file");
    fclose(f);
    return NULL;
  }
  long long bytes = (long long)sb.st_size;
  if (bytes % 4) {
    fprintf(stderr, "wgsync spirv: '%s' is %lld bytes, not a whole number of 32-bit words\n",
            path, bytes);
    fclose(f);
    return NULL;
  }
  uint32_t *w = malloc((size_t)bytes + 4);
  if (w && fread(w, 1, (size_t)bytes, f) != (size_t)bytes) {
    fprintf(stderr, "wgsync spirv: cannot read '%s'\n", path);
    free(w);
    w = NULL;
  }
  fclose(f);
  *n = (size_t)bytes / 4;
  return w;
}

static void spirv_usage(FILE *f)
{
  fputs("usage: wgsync spirv validate FILE [--json]\n"
        "       wgsync spirv lower FILE -o OUT\n\n"
        "SPIR-V split barriers (SPV_INTEL_split_barrier): validate checks a module's OpControlBarrierArriveINTEL /\n"
        "OpControlBarrierWaitINTEL uses (pairing, semantics, scopes) and names each issue; lower\n"
        "rewrites them for devices without the extension (arrive: a release fence; wait: a full\n"
        "control barrier) into OUT.\n",
        f);
}

int cmd_spirv(int argc, char **argv)
{
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      spirv_usage(stdout);
      return 0;
    }
  if (argc < 4 || (strcmp(argv[2], "validate") && strcmp(argv[2], "lower"))) {
    spirv_usage(stderr);
    return 2;
  }
  int lower = !strcmp(argv[2], "lower"), json = 0;
  const char *in = argv[3], *outp = NULL;
  for (int i = 4; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      outp = argv[++i];
    else {
      fprintf(stderr, "wgsync spirv: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (lower && !outp) {
    fprintf(stderr, "wgsync spirv lower: give the output file with -o OUT\n");
    return 2;
  }
  size_t n = 0;
  uint32_t *w = read_words(in, &n);
  if (!w)
    return 2;
  int status = 0;
  if (lower) {
    uint32_t *out = NULL;
    size_t on = 0;
    int rc = wgs_spirv_lower(w, n, &out, &on);
    if (rc != WGS_OK) {
      fprintf(stderr, "wgsync spirv lower: %s (%s)\n%s\n", wgs_strerror(rc), wgs_status_name(rc), wgs_last_error());
      status = rc == WGS_EVALIDATION ? 1 : 2;
    } else {
      /* fclose is where a full disk shows (buffered writes): its result counts too */
      FILE *f = fopen(outp, "wb");
      int ok = f && fwrite(out, sizeof *out, on, f) == on;
      if (f && fclose(f) != 0)
        ok = 0;
      if (!ok) {
        fprintf(stderr, "wgsync spirv lower: cannot write '%s': %s\n", outp, strerror(errno));
        status = 2;
      } else {
        printf("lowered %s (%zu words) to %s (%zu words)\n", in, n, outp, on);
      }
      wgs_spirv_free(out);
    }
  } else {
    wgs_spirv_issue iss[64];
    size_t count = 0;
    int rc = wgs_spirv_validate(w, n, iss, 64, &count);
    if (rc != WGS_OK) {
      fprintf(stderr, "wgsync spirv validate: %s (%s)\n%s\n", wgs_strerror(rc), wgs_status_name(rc), wgs_last_error());
      status = 2;
    } else if (json) {
      json_w j;
      cli_json_open(&j, "spirv validate");
      json_str(&j, "file", in);
      json_int(&j, "words", (long long)n);
      json_int(&j, "issues_total", (long long)count);
      json_arr(&j, "issues");
      for (size_t i = 0; i < count && i < 64; i++) {
        json_obj(&j, NULL);
        json_int(&j, "instruction", (long long)iss[i].index);
        json_int(&j, "word_offset", (long long)iss[i].offset);
        json_int(&j, "opcode", iss[i].opcode);
        json_str(&j, "message", iss[i].message);
        json_end_obj(&j);
      }
      json_end_arr(&j);
      json_end_obj(&j);
      json_finish(&j);
      status = count ? 1 : 0;
    } else {
      for (size_t i = 0; i < count && i < 64; i++)
        printf("%s: instruction %zu (word offset %zu): %s\n", in, iss[i].index, iss[i].offset, iss[i].message);
      if (count > 64)
        printf("%s: ... %zu more\n", in, count - 64);
      printf("%s: %s (%zu issue%s)\n", in, count ? "INVALID" : "valid", count, count == 1 ? "" : "s");
      status = count ? 1 : 0;
    }
  }
  free(w);
  return status;
}
