/* SPDX-License-Identifier: MIT */
/* CUDA error mapping shared by gpu/ (internal). */
#ifndef LP_GPU_CUDAUTIL_H
#define LP_GPU_CUDAUTIL_H

#include <cuda_runtime_api.h>

/* Negative errno for a CUDA error: no device/driver -ENODEV, out of memory -ENOMEM, bad value -EINVAL, else -EIO. */
int lp_cuda_errno(cudaError_t e);

struct lp_fail; /* common/fail.h */

/*
 * 0 when e == cudaSuccess; otherwise record "<call> on GPU <dev>: <CUDA
 * error>" in f (dev < 0: no device named; the first cause wins) and return
 * lp_cuda_errno(e). A result cell's reason is its record's message.
 */
int lp_cuda_check(cudaError_t e, const char *call, int dev, struct lp_fail *f);

#endif
