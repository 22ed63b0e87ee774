// SPDX-License-Identifier: GPL-2.0
/* The verdict of af_unix_send_perf against a baseline.  See perf_verdict.h. */
#include <errno.h>
#include <math.h>

#include "perf_verdict.h"

int perf_decide(const double *ratios, size_t n, double base, double tol,
		struct perf_decision *d)
{
	if (!(base > 0) || !(tol > 0) || perf_mean_ci(ratios, n, &d->ci) ||
	    !isfinite(d->ci.lo) || !isfinite(d->ci.hi))
		return -EINVAL;
	d->base = base;
	d->tol = tol;
	d->limit = base * (1 + tol);
	d->lean_pct = (d->ci.mean / d->limit - 1) * 100;
	if (d->ci.hi <= d->limit)
		d->verdict = PERF_PASS;
	else if (d->ci.lo > d->limit)
		d->verdict = PERF_FAIL;
	else
		d->verdict = PERF_UNDECIDED;
	return 0;
}

int perf_tolerance(size_t runs, double spread, double *tol)
{
	if (runs < PERF_MIN_RUNS || !(spread >= 0))
		return -EINVAL;
	*tol = perf_t99(runs - 1) * sqrt(1 + 1.0 / runs) * spread;
	if (*tol > PERF_TOL_CAP)
		return -ERANGE;
	*tol = fmax(*tol, PERF_TOL_FLOOR);
	return 0;
}

/* 95th percentile of the standard normal: one-sided power 95% */
#define Z95	1.644854

double perf_mde(double tol, size_t runs, double spread, double half)
{
	if (runs < 2 || !(spread >= 0))
		return NAN;
	return tol + Z95 * sqrt(1 + 1.0 / runs) * spread + half;
}

bool perf_more(bool done, size_t n, double elapsed_s,
	       const struct perf_budget *b)
{
	return !done && n < b->max_rounds && n < PERF_MAX_ROUNDS &&
		elapsed_s < b->seconds;
}
