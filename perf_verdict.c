// SPDX-License-Identifier: GPL-2.0
/* The statistics and the verdict of af_unix_send_perf.  See perf_verdict.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "perf_verdict.h"

int perf_summarize(const double *v, size_t n, struct perf_summary *s)
{
	double sum = 0, ss = 0;
	size_t i;

	if (!n || n > PERF_MAX_ROUNDS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	s->cv = s->mean != 0 ? s->stdev / s->mean : 0;
	return 0;
}

/*
 * Student's t for 1 to 30 degrees of freedom, then the Cornish-Fisher
 * expansion around the normal quantile z: within 1e-3 of the exact value.
 */
double perf_t(int q, size_t df)
{
	static const double tab[2][30] = { {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	}, {
		31.821, 6.965, 4.541, 3.747, 3.365, 3.143, 2.998, 2.896,
		2.821, 2.764, 2.718, 2.681, 2.650, 2.624, 2.602, 2.583,
		2.567, 2.552, 2.539, 2.528, 2.518, 2.508, 2.500, 2.492,
		2.485, 2.479, 2.473, 2.467, 2.462, 2.457,
	} };
	double d = df, z = q ? 2.326348 : 1.959964;

	if (!df)
		return NAN;
	if (df <= 30)
		return tab[q][df - 1];
	return z + (z * z * z + z) / (4 * d) +
		(5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci)
{
	struct perf_summary s;

	if (n < 2 || perf_summarize(v, n, &s))
		return -EINVAL;
	ci->mean = s.mean;
	ci->half = perf_t975(n - 1) * s.stdev / sqrt(n);
	ci->lo = ci->mean - ci->half;
	ci->hi = ci->mean + ci->half;
	return 0;
}

int perf_decide(const double *ratios, size_t n, double base, double tol,
		struct perf_decision *d)
{
	if (!(base > 0) || !(tol > 0) || perf_mean_ci(ratios, n, &d->ci) ||
	    !isfinite(d->ci.lo) || !isfinite(d->ci.hi))
		return -EINVAL;
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

bool perf_more(bool done, size_t n, double elapsed_s, size_t max_rounds,
	       double max_s)
{
	return !done && n < max_rounds && n < PERF_MAX_ROUNDS &&
		elapsed_s < max_s;
}

int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol)
{
	if (!isnan(given)) {
		*tol = given;
		return 0;
	}
	return perf_tolerance(e->nr_runs, e->spread, tol);
}

static void ended(struct perf_check *c, enum perf_verdict v,
		  const char *fmt, ...)
{
	va_list ap;

	c->verdict = v;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void against_entry(const struct perf_check_in *in, struct perf_check *c)
{
	const struct perf_entry *e = in->entry;
	struct perf_decision dd, *d = &dd;
	double tol;
	char buf[64];
	int ret;

	c->entry = e;
	ret = perf_check_tolerance(e, in->tolerance, &tol);
	/* too few runs is the recorder's mistake, too wide a spread is not */
	if (ret == -EINVAL) {
		ended(c, PERF_FAIL,
		      "bad baseline: %s has %zu runs of it, a tolerance needs %d (run_perf.sh record takes %d), or give --tolerance",
		      in->path, e->nr_runs, PERF_MIN_RUNS, PERF_DEFAULT_RUNS);
		return;
	}
	if (ret) {
		ended(c, PERF_SKIP,
		      "baseline too noisy to judge with: its %zu runs spread %.2f%%, a tolerance of %.2f%% over the %g%% cap; record on a quiet machine, or give --tolerance",
		      e->nr_runs, e->spread * 100, tol * 100, PERF_TOL_CAP * 100);
		return;
	}
	c->tolerance = tol;
	if (perf_decide(in->ratios, in->n, e->ratio, tol, d)) {
		ended(c, PERF_FAIL, "ratios cannot be judged");
		return;
	}
	c->limit = d->limit;
	c->catches = perf_mde(tol, e->nr_runs, e->spread, d->ci.half / e->ratio);
	perf_catches_text(c->catches, buf, sizeof(buf));
	if (d->verdict == PERF_PASS)
		ended(c, PERF_PASS,
		      "ratio %.4f within %.2f%% of %.4f (95%% CI high %.4f <= limit %.4f); %s",
		      d->ci.mean, tol * 100, e->ratio, d->ci.hi, d->limit, buf);
	else if (d->verdict == PERF_FAIL)
		ended(c, PERF_FAIL,
		      "ratio %.4f (95%% CI low %.4f) exceeds baseline %.4f by more than %.2f%% (limit %.4f); %s",
		      d->ci.mean, d->ci.lo, e->ratio, tol * 100, d->limit, buf);
	else
		ended(c, PERF_UNDECIDED,
		      "undecided after %zu rounds and %.1f s (budget %u rounds, %g s): leans to %s, ratio %.4f is %.2f%% %s the limit %.4f, 95%% CI [%.4f, %.4f]; %s",
		      in->n, in->extra_s, in->max_rounds, in->budget_s,
		      d->lean_pct > 0 ? "FAIL" : "PASS", d->ci.mean,
		      fabs(d->lean_pct), d->lean_pct > 0 ? "above" : "below",
		      d->limit, d->ci.lo, d->ci.hi, buf);
}

struct perf_check perf_check(const struct perf_check_in *in)
{
	struct perf_check c = {
		.tolerance = in->tolerance, .limit = NAN, .catches = NAN,
	};
	const char *rec = "record one with ./run_perf.sh record";

	/* In this order: what each reason says presumes the ones before. */
	if (!in->usable)
		ended(&c, PERF_SKIP, "no valid measurement");
	else if (in->confined)
		ended(&c, PERF_SKIP,
		      "task is confined ('%s'), run it unconfined", in->label);
	else if (in->state == PERF_BASE_RECORD)
		ended(&c, PERF_RECORD, "to be recorded into %s", in->path);
	else if (in->state == PERF_BASE_MISSING)
		ended(&c, PERF_SKIP,
		      "no baseline for this machine (%s); %s", in->msg, rec);
	else if (in->state == PERF_BASE_ELSEWHERE)
		ended(&c, PERF_SKIP, "cannot be judged here: %s", in->msg);
	else if (in->state == PERF_BASE_BAD)
		ended(&c, PERF_FAIL, "bad baseline: %s", in->msg);
	else if (!in->entry)
		ended(&c, PERF_SKIP, "%s has no entry for it; %s", in->path, rec);
	else
		against_entry(in, &c);
	return c;
}

const char * const perf_verdict_names[] = {
	"pass", "fail", "undecided", "skip", "record",
};

const char *perf_catches_text(double mde, char *buf, size_t len)
{
	if (isnan(mde))
		snprintf(buf, len, "catches: unknown, the baseline has one run");
	else
		snprintf(buf, len, "catches >= +%.2f%% (95%% power)", mde * 100);
	return buf;
}
