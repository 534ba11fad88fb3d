// SPDX-License-Identifier: MIT
/* Student's t, the normal and the binomial tail for the diagnosis (dist.h). */
#include "sweep/dist.h"

#include <float.h>
#include <math.h>

#define CF_ITERS 400
#define CF_EPS	 1e-15
#define TINY	 1e-300

/* The continued fraction of I_x(a, b) (modified Lentz), good for x < (a + 1) / (a + b + 2). */
static double ibeta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < TINY ? TINY : d);
	h = d;
	for (int m = 1; m <= CF_ITERS; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num =
				odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
				    : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));

			d = 1 + num * d;
			c = 1 + num / c;
			d = 1 / (fabs(d) < TINY ? TINY : d);
			c = fabs(c) < TINY ? TINY : c;
			h *= d * c;
			if (odd && fabs(d * c - 1) < CF_EPS)
				return h;
		}
	}
	return h;
}

/* I_x(a, b) with y = 1 - x given exactly (t tails need both ends without cancellation). */
static double ibeta_xy(double a, double b, double x, double y)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(y >= 0))
		return NAN;
	if (x == 0)
		return 0;
	if (y == 0)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * ibeta_cf(a, b, x) / a;
	return 1 - exp(lbt) * ibeta_cf(b, a, y) / b;
}

double lp_dist_ibeta(double a, double b, double x)
{
	return x < 0 || x > 1 ? NAN : ibeta_xy(a, b, x, 1 - x);
}

double lp_dist_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

double lp_dist_t_sf(double t, double df)
{
	double t2, q;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(df))
		return lp_dist_norm_sf(t);
	if (isinf(t))
		return t > 0 ? 0 : 1;
	t2 = t * t;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	q = 0.5 * ibeta_xy(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
	return t >= 0 ? q : 1 - q;
}

double lp_dist_t_isf(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (isinf(df))
		return lp_dist_norm_isf(p);
	if (p > 0.5)
		return -lp_dist_t_isf(1 - p, df);
	if (p == 0.5)
		return 0;
	while (lp_dist_t_sf(hi, df) > p) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	/* bisection, geometric once the bracket spans a factor of two: relative precision */
	for (int it = 0; it < 300 && hi - lo > 1e-13 * hi; it++) {
		double mid = lo > 0 && hi / lo > 2 ? sqrt(lo * hi) : 0.5 * (lo + hi);

		if (lp_dist_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Wichura's AS 241 (PPND16): the lower-tail normal quantile, ~1e-16 relative. */
static double ppnd16(double p)
{
	double q = p - 0.5, r, x;

	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q *
		       (((((((2509.0809287301226727 * r + 33430.575583588128105) * r +
			     67265.770927008700853) *
				    r +
			    45921.953931549871457) *
				   r +
			   13731.693765509461125) *
				  r +
			  1971.5909503065514427) *
				 r +
			 133.14166789178437745) *
				r +
			3.387132872796366608) /
		       (((((((5226.495278852545925 * r + 28729.085735721942674) * r +
			     39307.89580009271061) *
				    r +
			    21213.794301586595867) *
				   r +
			   5394.1960214247511077) *
				  r +
			  687.1870074920579083) *
				 r +
			 42.313330701600911252) *
				r +
			1);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5) {
		r -= 1.6;
		x = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r +
			  0.24178072517745061177) *
				 r +
			 1.27045825245236838258) *
				r +
			3.64784832476320460504) *
			       r +
		       5.7694972214606914055) *
			      r +
		      4.6303378461565452959) *
			     r +
		     1.42343711074968357734) /
		    (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r +
			  0.0151986665636164571966) *
				 r +
			 0.14810397642748007459) *
				r +
			0.68976733498510000455) *
			       r +
		       1.6763848301838038494) *
			      r +
		      2.05319162663775882187) *
			     r +
		     1);
	} else {
		r -= 5;
		x = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r +
			  0.0012426609473880784386) *
				 r +
			 0.026532189526576123093) *
				r +
			0.29656057182850489123) *
			       r +
		       1.7848265399172913358) *
			      r +
		      5.4637849111641143699) *
			     r +
		     6.6579046435011037772) /
		    (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r +
			  1.8463183175100546818e-5) *
				 r +
			 7.868691311456132591e-4) *
				r +
			0.0148753612908506148525) *
			       r +
		       0.13692988092273580531) *
			      r +
		      0.59983220655588793769) *
			     r +
		     1);
	}
	return q < 0 ? -x : x;
}

double lp_dist_norm_isf(double p)
{
	if (!(p > 0) || !(p < 1))
		return NAN;
	return -ppnd16(p); /* the upper p quantile is minus the lower one: precise for tiny p */
}

double lp_dist_binom_sf(long k, long n, double p)
{
	if (n < 0 || !(p >= 0) || !(p <= 1))
		return NAN;
	if (k <= 0)
		return 1;
	if (k > n)
		return 0;
	return ibeta_xy((double)k, (double)(n - k + 1), p, 1 - p);
}

double lp_dist_sidak(double alpha, double m)
{
	if (!(alpha > 0) || !(alpha < 1) || !(m >= 1))
		return NAN;
	return -expm1(log1p(-alpha) / m);
}

/* log C(n, k) */
static double lchoose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double lp_dist_hypergeom_sf(long k, long total, long marked, long n)
{
	long lo = n - (total - marked) > 0 ? n - (total - marked) : 0, hi = n < marked ? n : marked;
	double lden, sum = 0;

	if (total < 0 || marked < 0 || n < 0 || marked > total || n > total)
		return NAN;
	if (k <= lo)
		return 1;
	if (k > hi)
		return 0;
	lden = lchoose((double)total, (double)n);
	for (long i = k; i <= hi; i++) {
		double term = exp(lchoose((double)marked, (double)i) +
				  lchoose((double)(total - marked), (double)(n - i)) - lden);

		sum += term;
		if (term < sum * 1e-17)
			break; /* past the mode the terms only fall: the rest is below rounding */
	}
	return sum < 1 ? sum : 1;
}

double lp_dist_sigma_upper(double df, double p)
{
	double c = 2 / (9 * df), q;

	if (!(df > 0) || !(p > 0) || !(p < 1))
		return NAN;
	q = 1 - c - lp_dist_norm_isf(p) * sqrt(c); /* the lower p quantile's cube root, over df */
	return q > 0 ? sqrt(1 / (q * q * q)) : INFINITY;
}
