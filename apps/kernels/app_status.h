/* Node states of mis and the balanced steps' chunk, shared by C, OpenCL C and CUDA. */
#ifndef APP_STATUS_H
#define APP_STATUS_H
#define APP_MIS_UNDECIDED 0u
#define APP_MIS_IN 1u
#define APP_MIS_OUT 2u
#define APP_MIS_LOSE 3u /* balanced select: undecided, lost this round (app_steps.h) */
#define APP_NONE 0xffffffffu /* unreached level / distance, no colour yet */
#define APP_LOSE 0xfffffffeu /* balanced colour step: no colour yet, lost this step (app_steps.h) */
#ifndef APP_LB_CHUNK
/* Fewest slots (node headers, edges) per work item, app_steps.h; it also sizes the persistent
 * launch (app_groups). 8, not 32 (H200): four times
 * the work items on a skewed graph that fills no more than a fraction of the GPU, every form
 * faster (bfs on rmat:16 0.21 -> 0.12 ms, sssp 0.72 -> 0.36, colour 2.5 -> 1.2, mis 0.26 -> 0.20). */
#define APP_LB_CHUNK 8u
#endif
#endif
