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

bool perf_precise(const struct perf_ci *ci, double tol)
{
	return ci->half <= ci->mean * tol / 4;
}

bool perf_more(bool done, size_t n, double elapsed_s,
	       const struct perf_budget *b)
{
	return !done && n < b->max_rounds && n < PERF_MAX_ROUNDS &&
		elapsed_s < b->seconds;
}

const char *perf_verdict_name(enum perf_verdict v)
{
	switch (v) {
	case PERF_PASS:
		return "pass";
	case PERF_FAIL:
		return "fail";
	default:
		return "undecided";
	}
}
