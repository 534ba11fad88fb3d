// SPDX-License-Identifier: MIT
#include "gpu/cudautil.h"

#include <errno.h>
#include <stdio.h>

#include "common/lp.h"

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

int lp_cuda_check(cudaError_t e, const char *call, int dev, char *msg, size_t msglen)
{
	char buf[256];

	if (e == cudaSuccess)
		return 0;
	if (dev >= 0)
		snprintf(buf, sizeof(buf), "%s on GPU %d: %s (%s)", call, dev,
			 cudaGetErrorString(e), cudaGetErrorName(e));
	else
		snprintf(buf, sizeof(buf), "%s: %s (%s)", call, cudaGetErrorString(e),
			 cudaGetErrorName(e));
	lp_err("%s", buf);
	if (msg && msglen)
		snprintf(msg, msglen, "%s", buf);
	return lp_cuda_errno(e);
}
