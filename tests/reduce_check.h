#ifndef WGS_REDUCE_CHECK_H
#define WGS_REDUCE_CHECK_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The float-sum check of the grid reductions' tests (test_opencl.c and cuda/test_cuda.cu): every group's bits for
 * round r equal, and near the exact sum of 1/(gid + r + 1). Returns the number of bad rounds. */
static unsigned check_reduce_sums(const uint32_t *sums, unsigned rounds, unsigned n, unsigned gsize)
{
  unsigned badr = 0;
  for (unsigned r = 0; r < rounds; r++) {
    double want = 0;
    for (unsigned g = 0; g < gsize; g++)
      want += 1.0 / (double)(g + r + 1);
    float got;
    memcpy(&got, &sums[(size_t)r * n], sizeof got);
    int same = 1;
    for (unsigned g = 1; g < n; g++)
      same &= sums[(size_t)r * n + g] == sums[(size_t)r * n];
    if (!same || fabs(got - want) > 1e-5 * want) {
      if (!badr)
        printf("round %u: float sum %.9g (exact %.9g), %s\n", r, got, want,
               same ? "every group alike" : "groups differ");
      badr++;
    }
  }
  return badr;
}

/* One launch of the reduction kernel, reported and judged: its line ("grid reductions, LABEL: n
 * groups x local, ..."), the first wrong answer if any (bad[1..3]), and, on the second launch
 * (again) with as many participants as the first (*before), whether the rounding sums have the
 * same bits (first keeps the first launch's). Returns the number of failed checks. */
static int reduce_launch_report(const char *label, unsigned n, unsigned local, unsigned rounds,
                                const uint32_t bad[4], const uint32_t *sums, uint32_t *first,
                                unsigned *before, int again)
{
  unsigned badr = check_reduce_sums(sums, rounds, n, n * local);
  int fails = (bad[0] != 0) + (badr != 0);
  printf("grid reductions, %s: %u groups x %u, %u rounds, %u wrong answers, %u bad float sums",
         label, n, local, rounds, bad[0], badr);
  if (bad[0])
    printf(" (first: position %u of round %u answered 0x%x to work-item %u)", bad[1] % 16u,
           bad[1] / 16u, bad[2], bad[3]);
  if (!again) {
    memcpy(first, sums, (size_t)rounds * n * 4);
    *before = n;
  } else if (*before == n) {
    int same = !memcmp(first, sums, (size_t)rounds * n * 4);
    printf(", %s bits as the launch before", same ? "the same" : "OTHER");
    fails += !same;
  }
  printf("\n");
  return fails;
}

#endif
