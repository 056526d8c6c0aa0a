/*
 * A counter-barrier shape for the benchmarks that compare them (bench_shards.cu, bench_skew.cu),
 * set through the library's private tuning hook (src/tuning.h): "default" (the library's choice
 * for the group count), "pR" (published on R replicas at every count), or the tuning's shards
 * "S,R[,MIN]" ("0": one count), optionally followed by "/aN", its atom_min=N ("0/a0": one
 * count after release adds at every count, "0/a1" after acq_rel adds), none of them published;
 * or tuning text ("shards=16,32 atom_min=100": names and values of src/tuning.h), over the defaults.
 * Returns WGS_OK once set; wgs__tuning_set(NULL) restores the defaults.
 */
#ifndef WGS_BENCH_SHAPE_H
#define WGS_BENCH_SHAPE_H

#include <string>

#include "tuning.h"
#include "wgsync.h"

static inline int bench_set_shape(const std::string &shape)
{
  size_t slash = shape.find('/');
  std::string shards = shape.substr(0, slash), spec;
  if (shape.find('=') != std::string::npos)
    spec = shape, slash = std::string::npos;
  else if (shape.compare(0, 1, "p") == 0)
    spec = "publish=" + shape.substr(1) + ",1";
  else if (shards != "default")
    spec = "publish=0 shards=" + shards;
  if (slash != std::string::npos && shape.compare(slash + 1, 1, "a") == 0)
    spec += " atom_min=" + shape.substr(slash + 2);
  wgs__tuning t;
  wgs__tuning_defaults(&t);
  int rc = wgs__tuning_parse(&t, spec.c_str());
  return rc != WGS_OK ? rc : wgs__tuning_set(&t);
}

#endif
