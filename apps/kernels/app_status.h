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
#define APP_LB_CHUNK 32u     /* fewest slots (node headers, edges) per work item, app_steps.h */
#endif
#endif
