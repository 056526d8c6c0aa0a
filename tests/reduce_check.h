#ifndef WGS_REDUCE_CHECK_H
#define WGS_REDUCE_CHECK_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The float-sum check of the grid reductions' tests (test_wgsync.c and cuda/test_cuda.cu): every group's bits for
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

#endif
