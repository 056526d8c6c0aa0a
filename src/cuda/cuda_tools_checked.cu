#define WGS_CHECKED 1
#define WGS_SUFFIX _checked
#include "cuda_tools_impl.cuh"
