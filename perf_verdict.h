/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How af_unix_send_perf judges a run against its baseline.
 *
 * Each paired round gives one dgram/seqpacket ratio; the verdict is on the
 * 95% t-interval of their mean against limit = baseline * (1 + tolerance):
 * PASS when the whole interval is at or below the limit, FAIL when all of
 * it is above, undecided when it straddles the limit.  An undecided run
 * measures more paired rounds until it decides or its budget (rounds and
 * seconds) runs out; only then is it a SKIP, which says which way it leans.
 * The rule's error rates under noise are simulated by perf_stats_test and
 * tabled in the README.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_VERDICT_H
#define _SELFTESTS_APPARMOR_PERF_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_stats.h"

/*
 * Defaults of the benchmark, which the simulation uses too.  Recording a
 * baseline may take longer: it happens once, and its precision bounds
 * every later verdict.
 */
#define PERF_DEFAULT_ROUNDS	10
#define PERF_DEFAULT_MAX_ROUNDS	60
#define PERF_DEFAULT_BUDGET_S	2.0
#define PERF_RECORD_MAX_ROUNDS	500
#define PERF_RECORD_BUDGET_S	30.0
#define PERF_DEFAULT_TOLERANCE	0.05

enum perf_verdict {
	PERF_PASS,
	PERF_FAIL,
	PERF_UNDECIDED,
};

struct perf_decision {
	struct perf_ci ci;	/* of the per-round ratios */
	double base;		/* the baseline's ratio */
	double tol;		/* allowed excess, a fraction of base */
	double limit;		/* base * (1 + tol) */
	double lean_pct;	/* (mean / limit - 1) * 100; > 0 leans to FAIL */
	enum perf_verdict verdict;
};

struct perf_budget {
	size_t max_rounds;
	double seconds;
};

/*
 * -EINVAL for fewer than 2 ratios, one not finite, a base <= 0 or a
 * tolerance <= 0.
 */
int perf_decide(const double *ratios, size_t n, double base, double tol,
		struct perf_decision *d);
/*
 * Whether a ratio is known well enough to be a baseline: its 95% interval
 * half width within a quarter of the tolerance.
 */
bool perf_precise(const struct perf_ci *ci, double tol);
/* Whether to measure another round when @done is false and n rounds ran. */
bool perf_more(bool done, size_t n, double elapsed_s,
	       const struct perf_budget *b);
const char *perf_verdict_name(enum perf_verdict v);

#endif /* _SELFTESTS_APPARMOR_PERF_VERDICT_H */
