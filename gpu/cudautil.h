/* SPDX-License-Identifier: MIT */
/* CUDA error mapping shared by gpu/ (internal). */
#ifndef LP_GPU_CUDAUTIL_H
#define LP_GPU_CUDAUTIL_H

#include <cuda_runtime_api.h>

/* Negative errno for a CUDA error: no device/driver -ENODEV, out of memory -ENOMEM, bad value -EINVAL, else -EIO. */
int lp_cuda_errno(cudaError_t e);

/*
 * 0 when e == cudaSuccess; otherwise log "<call> on GPU <dev>: <CUDA error>"
 * once (dev < 0: no device named) and return lp_cuda_errno(e). When msg is
 * non-NULL the same text goes there too (for result cells).
 */
int lp_cuda_check(cudaError_t e, const char *call, int dev, char *msg, size_t msglen);

#endif
