/* The node priority of mis and color: a 32-bit integer hash of the node id (the murmur3
 * finaliser), identical in C, OpenCL C and CUDA. Ties are broken by the id. */
#ifndef APP_PRIORITY_H
#define APP_PRIORITY_H
#define APP_PRIO_MIX(h, s, k) (((h) ^ ((h) >> (s))) * (k))
#define APP_PRIORITY(v)                                                                   \
  ((unsigned)(APP_PRIO_MIX(APP_PRIO_MIX((unsigned)(v) * 0x9e3779b1u, 16, 0x85ebca6bu), 13, \
                           0xc2b2ae35u) ^                                                 \
              (APP_PRIO_MIX(APP_PRIO_MIX((unsigned)(v) * 0x9e3779b1u, 16, 0x85ebca6bu), 13, \
                            0xc2b2ae35u) >> 16)))
#endif
