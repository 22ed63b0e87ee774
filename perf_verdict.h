/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How af_unix_send_perf judges a run against its baseline; pure, so that
 * perf_verdict_test has known answers.
 *
 * Each paired round gives one dgram/seqpacket ratio; the 95% t-interval of
 * their mean is held to limit = baseline * (1 + tolerance): PASS when all
 * of it is at or below, FAIL when all above, else more rounds until it
 * decides or the budget runs out: a SKIP that says which way it leans.
 *
 * Runs differ from each other by more than one run's interval says, so a
 * baseline holds several, and the tolerance is the one-sided 99%
 * prediction bound of one more run, t99(n - 1) * sqrt(1 + 1/n) * spread:
 * an unchanged kernel FAILs about 1% of checks whatever the spread.  It
 * has a floor the measurement cannot honestly go under, and a cap above
 * which the baseline is too noisy.  Error rates: perf_verdict_test.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_VERDICT_H
#define _SELFTESTS_APPARMOR_PERF_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_baseline.h"

#define PERF_MAX_ROUNDS		1000
#define PERF_DEFAULT_ROUNDS	10
#define PERF_DEFAULT_MAX_ROUNDS	60
#define PERF_DEFAULT_BUDGET_S	2.0
#define PERF_TOL_FLOOR		0.005
#define PERF_TOL_CAP		0.05
/* With 20 runs, +3% FAILs 95% of checks at a spread of 0.5%, +5% at 1% */
#define PERF_DEFAULT_RUNS	20
#define PERF_MIN_RUNS		3
#define PERF_REASON_MAX		1024

struct perf_summary {
	double mean, stdev, cv;	/* sample stdev (n - 1), stdev / mean */
};

/* Two-sided 95% Student t confidence interval of a mean. */
struct perf_ci {
	double mean, half, lo, hi;
};

/* 1 (perf_mean_ci(): 2) to PERF_MAX_ROUNDS values, else -EINVAL. */
int perf_summarize(const double *v, size_t n, struct perf_summary *s);
int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci);
/* The @q (0: 0.975, 1: 0.99) quantile of Student's t; NAN for 0 df. */
double perf_t(int q, size_t df);
#define perf_t975(df)	perf_t(0, df)
#define perf_t99(df)	perf_t(1, df)

enum perf_verdict {
	PERF_PASS, PERF_FAIL, PERF_UNDECIDED, PERF_SKIP,
	PERF_RECORD,	/* the series goes into the baseline */
};

struct perf_decision {
	struct perf_ci ci;	/* of the per-round ratios */
	double limit;		/* baseline * (1 + tolerance) */
	double lean_pct;	/* (mean / limit - 1) * 100; > 0 leans to FAIL */
	enum perf_verdict verdict;	/* PASS, FAIL or UNDECIDED */
};

/* -EINVAL for fewer than 2 ratios, one not finite, base or tol <= 0. */
int perf_decide(const double *ratios, size_t n, double base, double tol,
		struct perf_decision *d);
/* Of @runs runs spreading @spread: -EINVAL below 3, -ERANGE over the cap. */
int perf_tolerance(size_t runs, double spread, double *tol);
/*
 * The smallest growth of the ratio a check FAILs with 95% power: @tol, a
 * run's 95th percentile distance to the mean of @runs, and the check's own
 * half width @half; NAN under 2 runs.
 */
double perf_mde(double tol, size_t runs, double spread, double half);
bool perf_more(bool done, size_t n, double elapsed_s, size_t max_rounds,
	       double max_s);

/*
 * The check of a series, reason text included, decided before anything is
 * printed: the KTAP line and the JSON verdict cannot tell different stories.
 */
enum perf_base_state {
	PERF_BASE_OK,		/* of this machine, system and settings */
	PERF_BASE_MISSING,	/* none for this machine: SKIP */
	PERF_BASE_ELSEWHERE,	/* of another machine or system: SKIP */
	PERF_BASE_BAD,		/* unusable, or other settings: FAIL */
	PERF_BASE_RECORD,	/* --record, --add-run: series go into it */
};

struct perf_check_in {
	enum perf_base_state state;
	const struct perf_entry *entry;	/* of the series; NULL: none */
	const char *path;
	const char *msg;	/* why it is missing, elsewhere or bad */
	double tolerance;	/* --tolerance, a fraction; NAN: the entry's */
	unsigned int max_rounds;
	double budget_s;
	bool usable;		/* measured, every message arrived whole */
	bool confined;		/* under a profile: not what a baseline holds */
	const char *label;
	const double *ratios;
	size_t n;
	double extra_s;		/* spent measuring past the first rounds */
};

struct perf_check {
	enum perf_verdict verdict;
	const struct perf_entry *entry;	/* judged against; NULL: none */
	double tolerance;	/* --tolerance or the entry's; NAN: neither */
	double limit;		/* NAN unless judged */
	double catches;		/* perf_mde(); NAN unless judged, or unknown */
	char reason[PERF_REASON_MAX];
};

/* @given (--tolerance) unless NAN, else perf_tolerance() of @e. */
int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol);
struct perf_check perf_check(const struct perf_check_in *in);
extern const char * const perf_verdict_names[];
const char *perf_catches_text(double mde, char *buf, size_t len);

#endif /* _SELFTESTS_APPARMOR_PERF_VERDICT_H */
