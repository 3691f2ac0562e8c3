#include "family.h"

template __global__ void dup_kernel<int>(int*, int);
