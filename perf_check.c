// SPDX-License-Identifier: GPL-2.0
/* The check of a series against its baseline entry.  See perf_check.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "perf_check.h"

int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol)
{
	if (!isnan(given)) {
		*tol = given;
		return 0;
	}
	return perf_tolerance(e->nr_runs, e->spread, tol);
}

/* What each reason is, but for PERF_WHY_JUDGED: perf_decide() says. */
static const enum perf_check_verdict verdict_of[] = {
	[PERF_WHY_UNMEASURED] = PERF_CHECK_SKIP,
	[PERF_WHY_CONFINED] = PERF_CHECK_SKIP,
	[PERF_WHY_RECORDING] = PERF_CHECK_RECORD,
	[PERF_WHY_NO_BASELINE] = PERF_CHECK_SKIP,
	[PERF_WHY_ELSEWHERE] = PERF_CHECK_SKIP,
	[PERF_WHY_BAD_BASELINE] = PERF_CHECK_FAIL,
	[PERF_WHY_NO_ENTRY] = PERF_CHECK_SKIP,
	[PERF_WHY_FEW_RUNS] = PERF_CHECK_FAIL,
	[PERF_WHY_NOISY] = PERF_CHECK_SKIP,
	[PERF_WHY_BAD_RATIOS] = PERF_CHECK_FAIL,
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
	if (c.why != PERF_WHY_JUDGED)
		c.verdict = verdict_of[c.why];
	else if (c.d.verdict == PERF_PASS)
		c.verdict = PERF_CHECK_PASS;
	else if (c.d.verdict == PERF_FAIL)
		c.verdict = PERF_CHECK_FAIL;
	else
		c.verdict = PERF_CHECK_UNDECIDED;
	reason(base, set, s, &c);
	return c;
}

const char *perf_check_name(enum perf_check_verdict v)
{
	switch (v) {
	case PERF_CHECK_PASS:
		return "pass";
	case PERF_CHECK_FAIL:
		return "fail";
	case PERF_CHECK_UNDECIDED:
		return "undecided";
	case PERF_CHECK_RECORD:
		return "record";
	default:
		return "skip";
	}
}

const char *perf_catches_text(double mde, char *buf, size_t len)
{
	if (isnan(mde))
		snprintf(buf, len, "catches: unknown, the baseline has one run");
	else
		snprintf(buf, len, "catches >= +%.2f%% (95%% power)", mde * 100);
	return buf;
}
