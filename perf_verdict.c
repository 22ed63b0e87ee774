// SPDX-License-Identifier: GPL-2.0
/* The statistics and the verdict of af_unix_send_perf.  See perf_verdict.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_verdict.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int perf_summarize(const double *v, size_t n, struct perf_summary *s)
{
	double sorted[PERF_MAX_ROUNDS], sum = 0, ss = 0;
	size_t i;

	if (!n || n > PERF_MAX_ROUNDS)
		return -EINVAL;
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->n = n;
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	s->cv = s->mean != 0 ? s->stdev / s->mean : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] :
		(sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	return 0;
}

/*
 * A quantile of Student's t from @tab, its values for 1 to T_TAB degrees
 * of freedom, then the Cornish-Fisher expansion around the normal
 * quantile @z, within 1e-3 of the exact value there and better beyond.
 */
#define T_TAB	30

static double t_quantile(const double tab[T_TAB], double z, size_t df)
{
	double d = df;

	if (!df)
		return NAN;
	if (df <= T_TAB)
		return tab[df - 1];
	return z + (z * z * z + z) / (4 * d) +
		(5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

double perf_t975(size_t df)
{
	static const double tab[T_TAB] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	return t_quantile(tab, 1.959964, df);
}

double perf_t99(size_t df)
{
	static const double tab[T_TAB] = {
		31.821, 6.965, 4.541, 3.747, 3.365, 3.143, 2.998, 2.896,
		2.821, 2.764, 2.718, 2.681, 2.650, 2.624, 2.602, 2.583,
		2.567, 2.552, 2.539, 2.528, 2.518, 2.508, 2.500, 2.492,
		2.485, 2.479, 2.473, 2.467, 2.462, 2.457,
	};

	return t_quantile(tab, 2.326348, df);
}

int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci)
{
	struct perf_summary s;

	if (n < 2 || perf_summarize(v, n, &s))
		return -EINVAL;
	ci->n = n;
	ci->mean = s.mean;
	ci->half = perf_t975(n - 1) * s.stdev / sqrt(n);
	ci->lo = ci->mean - ci->half;
	ci->hi = ci->mean + ci->half;
	return 0;
}

int perf_ratios(const double *num, const double *den, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(den[i] > 0))
			return -EINVAL;
		out[i] = num[i] / den[i];
	}
	return 0;
}

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

int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol)
{
	if (!isnan(given)) {
		*tol = given;
		return 0;
	}
	return perf_tolerance(e->nr_runs, e->spread, tol);
}

/* The verdict of each reason, by enum perf_check_why, but the last. */
static const enum perf_check_verdict verdict_of[] = {
	PERF_CHECK_SKIP, PERF_CHECK_SKIP, PERF_CHECK_RECORD, PERF_CHECK_SKIP,
	PERF_CHECK_SKIP, PERF_CHECK_FAIL, PERF_CHECK_SKIP, PERF_CHECK_FAIL,
	PERF_CHECK_SKIP, PERF_CHECK_FAIL,
};

static enum perf_check_why decide(const struct perf_check_base *base,
				  const struct perf_check_settings *set,
				  const struct perf_check_series *s,
				  struct perf_check *c)
{
	const struct perf_entry *e = base->entry;
	double tol;
	int ret;

	/* In this order: what each reason says presumes the ones before. */
	if (!s->usable)
		return PERF_WHY_UNMEASURED;
	if (s->confined)
		return PERF_WHY_CONFINED;
	switch (base->state) {
	case PERF_BASE_RECORD:
		return PERF_WHY_RECORDING;
	case PERF_BASE_MISSING:
		return PERF_WHY_NO_BASELINE;
	case PERF_BASE_ELSEWHERE:
		return PERF_WHY_ELSEWHERE;
	case PERF_BASE_BAD:
		return PERF_WHY_BAD_BASELINE;
	case PERF_BASE_OK:
		break;
	}
	if (!e)
		return PERF_WHY_NO_ENTRY;
	c->entry = e;
	ret = perf_check_tolerance(e, set->tolerance, &tol);
	/* too few runs is the recorder's mistake, too wide a spread is not */
	if (ret == -EINVAL)
		return PERF_WHY_FEW_RUNS;
	if (ret) {
		c->noisy_tol = tol;
		return PERF_WHY_NOISY;
	}
	c->tolerance = tol;
	if (perf_decide(s->ratios, s->n, e->ratio, tol, &c->d))
		return PERF_WHY_BAD_RATIOS;
	c->limit = c->d.limit;
	c->catches = perf_mde(tol, e->nr_runs, e->spread,
			      c->d.ci.half / e->ratio);
	return PERF_WHY_JUDGED;
}

/* Each verdict line says what it was decided on and what it would catch. */
static void judged(const struct perf_check_settings *set,
		   const struct perf_check_series *s, struct perf_check *c)
{
	const struct perf_decision *d = &c->d;
	double base = c->entry->ratio, tol = c->tolerance * 100;
	bool above = d->lean_pct > 0;
	char buf[64];

	perf_catches_text(c->catches, buf, sizeof(buf));
	if (c->verdict == PERF_CHECK_PASS)
		snprintf(c->reason, sizeof(c->reason),
			 "ratio %.4f within %.2f%% of %.4f (95%% CI high %.4f <= limit %.4f); %s",
			 d->ci.mean, tol, base, d->ci.hi, c->limit, buf);
	else if (c->verdict == PERF_CHECK_FAIL)
		snprintf(c->reason, sizeof(c->reason),
			 "ratio %.4f (95%% CI low %.4f) exceeds baseline %.4f by more than %.2f%% (limit %.4f); %s",
			 d->ci.mean, d->ci.lo, base, tol, c->limit, buf);
	else
		snprintf(c->reason, sizeof(c->reason),
			 "undecided after %zu rounds and %.1f s (budget %u rounds, %g s): leans to %s, ratio %.4f is %.2f%% %s the limit %.4f, 95%% CI [%.4f, %.4f]; %s",
			 s->n, s->extra_s, set->max_rounds, set->budget_s,
			 above ? "FAIL" : "PASS", d->ci.mean,
			 fabs(d->lean_pct), above ? "above" : "below",
			 c->limit, d->ci.lo, d->ci.hi, buf);
}

static void reason(const struct perf_check_base *base,
		   const struct perf_check_settings *set,
		   const struct perf_check_series *s, struct perf_check *c)
{
	const struct perf_entry *e = c->entry;
	const size_t len = sizeof(c->reason);

	switch (c->why) {
	case PERF_WHY_UNMEASURED:
		snprintf(c->reason, len, "no valid measurement");
		break;
	case PERF_WHY_CONFINED:
		snprintf(c->reason, len,
			 "task is confined ('%s'), run it unconfined", s->label);
		break;
	case PERF_WHY_RECORDING:
		snprintf(c->reason, len, "to be recorded into %s", base->path);
		break;
	case PERF_WHY_NO_BASELINE:
		snprintf(c->reason, len,
			 "no baseline for this machine (%s); record one with ./run_perf.sh record",
			 base->msg);
		break;
	case PERF_WHY_ELSEWHERE:
		snprintf(c->reason, len, "cannot be judged here: %s", base->msg);
		break;
	case PERF_WHY_BAD_BASELINE:
		snprintf(c->reason, len, "bad baseline: %s", base->msg);
		break;
	case PERF_WHY_NO_ENTRY:
		snprintf(c->reason, len,
			 "%s has no entry for it; record one with ./run_perf.sh record",
			 base->path);
		break;
	case PERF_WHY_FEW_RUNS:
		snprintf(c->reason, len,
			 "bad baseline: %s has %zu runs of it, a tolerance needs %d (run_perf.sh record takes %d), or give --tolerance",
			 base->path, e->nr_runs, PERF_MIN_RUNS,
			 PERF_DEFAULT_RUNS);
		break;
	case PERF_WHY_NOISY:
		snprintf(c->reason, len,
			 "baseline too noisy to judge with: its %zu runs spread %.2f%%, a tolerance of %.2f%% over the %g%% cap; record on a quiet machine, or give --tolerance",
			 e->nr_runs, e->spread * 100, c->noisy_tol * 100,
			 PERF_TOL_CAP * 100);
		break;
	case PERF_WHY_BAD_RATIOS:
		snprintf(c->reason, len, "ratios cannot be judged");
		break;
	case PERF_WHY_JUDGED:
		judged(set, s, c);
		break;
	}
}

struct perf_check perf_check(const struct perf_check_base *base,
			     const struct perf_check_settings *set,
			     const struct perf_check_series *s)
{
	struct perf_check c = {
		.tolerance = set->tolerance, .noisy_tol = NAN,
		.limit = NAN, .catches = NAN,
	};

	c.why = decide(base, set, s, &c);
	/* PERF_PASS, _FAIL and _UNDECIDED are PERF_CHECK_'s in that order */
	c.verdict = c.why == PERF_WHY_JUDGED ?
		(enum perf_check_verdict)c.d.verdict : verdict_of[c.why];
	reason(base, set, s, &c);
	return c;
}

const char *perf_check_name(enum perf_check_verdict v)
{
	static const char * const names[] = {
		"pass", "fail", "undecided", "skip", "record",
	};

	return names[v];
}

const char *perf_catches_text(double mde, char *buf, size_t len)
{
	if (isnan(mde))
		snprintf(buf, len, "catches: unknown, the baseline has one run");
	else
		snprintf(buf, len, "catches >= +%.2f%% (95%% power)", mde * 100);
	return buf;
}
