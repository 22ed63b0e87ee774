/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How af_unix_send_perf judges a run against its baseline: statistics,
 * the rule and the tolerance, and the check of one series decided whole.
 * Pure (no I/O, no globals), so perf_verdict_test has known answers.
 *
 * Each paired round gives one dgram/seqpacket ratio; the verdict is on the
 * 95% t-interval of their mean against limit = baseline * (1 + tolerance):
 * PASS when the whole interval is at or below the limit, FAIL when all of
 * it is above, undecided when it straddles the limit.  An undecided run
 * measures more paired rounds until it decides or its budget (rounds and
 * seconds) runs out; only then is it a SKIP, which says which way it leans.
 *
 * A baseline holds several runs (separate processes or boots), since a
 * run's ratio differs from the next by more than one run's interval says.
 * The tolerance is the one-sided 99% prediction bound of one more run
 * over the mean of n recorded runs, t99(n - 1) * sqrt(1 + 1/n) * spread,
 * so an unchanged kernel FAILs at most about 1% of checks whatever the
 * spread; never below a floor the measurement cannot honestly go under,
 * and a baseline that would need more than the cap is too noisy.  The
 * rule's error rates are simulated by perf_verdict_test (README).
 */
#ifndef _SELFTESTS_APPARMOR_PERF_VERDICT_H
#define _SELFTESTS_APPARMOR_PERF_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_baseline.h"

#define PERF_MAX_ROUNDS		1000
/* Defaults of the benchmark, which the simulation uses too. */
#define PERF_DEFAULT_ROUNDS	10
#define PERF_DEFAULT_MAX_ROUNDS	60
#define PERF_DEFAULT_BUDGET_S	2.0
#define PERF_TOL_FLOOR		0.005
#define PERF_TOL_CAP		0.05
/*
 * Runs "run_perf.sh record" takes: with 20, a +3% regression FAILs in at
 * least 95% of checks where runs spread 0.5%, +5% where they spread 1%;
 * the spread of three is too rough for that.  Below PERF_MIN_RUNS there is
 * no spread to speak of: --tolerance.
 */
#define PERF_DEFAULT_RUNS	20
#define PERF_MIN_RUNS		3
#define PERF_REASON_MAX		1024

struct perf_summary {
	size_t n;
	double mean, median, min, max;
	double stdev;	/* sample standard deviation (n - 1) */
	double cv;	/* stdev / mean */
};

/* Two-sided 95% Student t confidence interval of a mean. */
struct perf_ci {
	size_t n;
	double mean, half, lo, hi;
};

/* 1 (perf_mean_ci(): 2) to PERF_MAX_ROUNDS values; -EINVAL otherwise. */
int perf_summarize(const double *v, size_t n, struct perf_summary *s);
int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci);
/* 0.975 and 0.99 quantiles of Student's t; NAN for 0 df. */
double perf_t975(size_t df);
double perf_t99(size_t df);

/* perf_decide() gives the first three; UNDECIDED is a SKIP that leans. */
enum perf_verdict {
	PERF_PASS, PERF_FAIL, PERF_UNDECIDED, PERF_SKIP,
	PERF_RECORD,	/* the series goes into the baseline */
};

struct perf_decision {
	struct perf_ci ci;	/* of the per-round ratios */
	double base;		/* the baseline's ratio */
	double tol;		/* allowed excess, a fraction of base */
	double limit;		/* base * (1 + tol) */
	double lean_pct;	/* (mean / limit - 1) * 100; > 0 leans to FAIL */
	enum perf_verdict verdict;
};

/* -EINVAL for fewer than 2 ratios, one not finite, base or tol <= 0. */
int perf_decide(const double *ratios, size_t n, double base, double tol,
		struct perf_decision *d);
/*
 * The default tolerance of @runs runs spreading @spread (stdev / mean):
 * -EINVAL below PERF_MIN_RUNS, -ERANGE above PERF_TOL_CAP (*tol says how far).
 */
int perf_tolerance(size_t runs, double spread, double *tol);
/*
 * The smallest growth of the ratio (a fraction) a check FAILs with 95%
 * power: the tolerance, the 95th percentile of a run's distance to the
 * mean of @runs runs, and the check's own half width @half; NAN under 2.
 */
double perf_mde(double tol, size_t runs, double spread, double half);
/* Whether to measure another round when @done is false and n rounds ran. */
bool perf_more(bool done, size_t n, double elapsed_s, size_t max_rounds,
	       double max_s);

/*
 * The check of a series against its baseline entry, reason text included,
 * decided before anything is printed: the KTAP line and the JSON verdict
 * are both written from it, so they cannot tell different stories.
 */
enum perf_base_state {
	PERF_BASE_OK,		/* of this machine, system and settings */
	PERF_BASE_MISSING,	/* none for this machine: SKIP */
	PERF_BASE_ELSEWHERE,	/* of another machine or system: SKIP */
	PERF_BASE_BAD,		/* unusable, or other settings: FAIL */
	PERF_BASE_RECORD,	/* --record, --add-run: series go into it */
};

struct perf_check_base {
	enum perf_base_state state;
	const struct perf_entry *entry;	/* of the series; NULL: none */
	const char *path;
	const char *msg;	/* why it is missing, elsewhere or bad */
};

struct perf_check_settings {
	double tolerance;	/* --tolerance, a fraction; NAN: the entry's */
	unsigned int max_rounds;
	double budget_s;
};

struct perf_check_series {
	bool usable;		/* measured, every message arrived whole */
	bool confined;		/* under a profile: not what a baseline holds */
	const char *label;
	const double *ratios;
	size_t n;
	double extra_s;		/* spent measuring past the first rounds */
};

/* Each has a reason text of its own; the verdict in perf_verdict.c. */
enum perf_check_why {
	PERF_WHY_UNMEASURED, PERF_WHY_CONFINED, PERF_WHY_RECORDING,
	PERF_WHY_NO_BASELINE, PERF_WHY_ELSEWHERE, PERF_WHY_BAD_BASELINE,
	PERF_WHY_NO_ENTRY, PERF_WHY_FEW_RUNS, PERF_WHY_NOISY,
	PERF_WHY_BAD_RATIOS, PERF_WHY_JUDGED,
};

struct perf_check {
	enum perf_verdict verdict;
	enum perf_check_why why;
	const struct perf_entry *entry;	/* judged against; NULL: none */
	double tolerance;	/* --tolerance or the entry's; NAN: neither */
	double noisy_tol;	/* PERF_WHY_NOISY: what the spread would need */
	double limit;		/* NAN unless judged */
	double catches;		/* perf_mde(); NAN unless judged, or unknown */
	struct perf_decision d;	/* PERF_WHY_JUDGED */
	char reason[PERF_REASON_MAX];
};

/* @given (--tolerance) unless NAN, else perf_tolerance() of @e. */
int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol);
struct perf_check perf_check(const struct perf_check_base *base,
			     const struct perf_check_settings *set,
			     const struct perf_check_series *s);
/* "pass", "fail", "undecided", "skip" or "record". */
const char *perf_check_name(enum perf_verdict v);
/* What a verdict line says it catches, from perf_mde(); @buf, returned. */
const char *perf_catches_text(double mde, char *buf, size_t len);

#endif /* _SELFTESTS_APPARMOR_PERF_VERDICT_H */
