// SPDX-License-Identifier: MIT
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double lp_gbytes_per_s(double bytes, double ns)
{
	return ns > 0 ? bytes / ns : NAN;
}

double lp_gbits_per_s(double bytes, double ns)
{
	return ns > 0 ? 8.0 * bytes / ns : NAN;
}

double lp_mrate(double count, double ns)
{
	return ns > 0 ? count * 1e3 / ns : NAN;
}

double lp_percent_of(double value, double ceiling)
{
	return ceiling > 0 && isfinite(value) ? 100.0 * value / ceiling : NAN;
}

void lp_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

void lp_fmt_sig(char *buf, size_t len, double v, int sig)
{
	int e, dec;

	if (!isfinite(v)) {
		snprintf(buf, len, "%s", LP_NA);
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	e = (int)floor(log10(fabs(v)));
	/* Rounding can carry into the next decade (9.99996 -> 10.00): one digit fewer then. */
	if (fabs(v) >= pow(10, e + 1) - 0.5 * pow(10, e + 1 - sig))
		e++;
	dec = sig - 1 - e;
	snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec > 30 ? 30 : dec, v);
}

void lp_fmt_fixed(char *buf, size_t len, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", decimals, v);
	else
		snprintf(buf, len, "%s", LP_NA);
}

int lp_fmt_cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80; /* every byte but a continuation */
	return n;
}

const char *lp_fmt_rjust(char *buf, size_t len, const char *s, int width)
{
	snprintf(buf, len, "%*s", width + (int)strlen(s) - lp_fmt_cols(s), s);
	return buf;
}

double lp_pcie_lane_gbits(double gt)
{
	if (gt <= 0)
		return 0;
	if (gt < 8)
		return gt * 8.0 / 10.0;
	if (gt < 64)
		return gt * 128.0 / 130.0;
	return gt * 242.0 / 256.0;
}

double lp_pcie_gbytes(double gt, unsigned width)
{
	return lp_pcie_lane_gbits(gt) * width / 8.0;
}

unsigned lp_pcie_gen(double gt)
{
	static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };

	for (unsigned i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (fabs(gt - speeds[i]) < 0.01)
			return i + 1;
	return 0;
}
