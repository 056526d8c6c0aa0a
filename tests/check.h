/* Test assertions that are never compiled out and print both values, file and line. */
#ifndef WGS_CHECK_H
#define WGS_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define WGS_SKIP 77 /* ctest SKIP_RETURN_CODE */

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* A condition with a printf-style explanation of what went wrong. */
#define CHECK_MSG(cond, ...)                                                                 \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
      fprintf(stderr, __VA_ARGS__);                                                          \
      fputc('\n', stderr);                                                                   \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define CHECK_EQ(a, b)                                                                       \
  do {                                                                                       \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                    \
    if (va_ != vb_) {                                                                        \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", __FILE__,         \
              __LINE__, #a, #b, va_, vb_);                                                   \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* A library call that must succeed: on failure print its status and detail. */
#define CHECK_OK(call)                                                                       \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != WGS_OK) {                                                                     \
      fprintf(stderr, "%s:%d: %s returned %s\n%s\n", __FILE__, __LINE__, #call,              \
              wgs_status_name(rc_), wgs_last_error());                                       \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* A library call that must fail with a given status. */
#define CHECK_STATUS(call, want)                                                             \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != (want)) {                                                                     \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s\n%s\n", __FILE__, __LINE__, #call, \
              wgs_status_name(rc_), wgs_status_name(want), wgs_last_error());                \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* A kernel source from the tests' kernel folder (WGS_TEST_KERNEL_DIR), or the test fails. */
#ifdef WGS_TEST_KERNEL_DIR
static inline char *read_text(const char *name)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", WGS_TEST_KERNEL_DIR, name);
  FILE *f = fopen(path, "rb");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  CHECK(s && fread(s, 1, (size_t)n, f) == (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}
#endif
#endif
