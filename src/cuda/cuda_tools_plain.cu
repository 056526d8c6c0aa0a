#define WGS_CHECKED 0
#define WGS_SUFFIX _plain
#include "cuda_tools_impl.cuh"
