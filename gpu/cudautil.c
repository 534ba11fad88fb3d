// SPDX-License-Identifier: MIT
#include "gpu/cudautil.h"

#include <errno.h>
#include <stdio.h>

#include "common/fail.h"

int lp_cuda_errno(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return 0;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInitializationError:
	case cudaErrorDevicesUnavailable:
	case cudaErrorInvalidDevice:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorCompatNotSupportedOnDevice:
		return -ENODEV;
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorInvalidValue:
		return -EINVAL;
	case cudaErrorNotSupported:
	case cudaErrorPeerAccessUnsupported:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

int lp_cuda_check(cudaError_t e, const char *call, int dev, struct lp_fail *f)
{
	if (e == cudaSuccess)
		return 0;
	if (dev >= 0)
		return lp_fail_set(f, lp_cuda_errno(e), "%s on GPU %d: %s (%s)", call, dev,
				   cudaGetErrorString(e), cudaGetErrorName(e));
	return lp_fail_set(f, lp_cuda_errno(e), "%s: %s (%s)", call, cudaGetErrorString(e),
			   cudaGetErrorName(e));
}
