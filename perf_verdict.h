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
 *
 * The tolerance comes from the baseline unless given: a baseline holds
 * several runs (separate processes or boots), and a run's ratio differs
 * from the next by more than one run's interval says (where the buffers
 * land, what the boot did).  The tolerance is the one-sided 99%
 * prediction bound of one more run over the mean of n recorded runs,
 * t99(n - 1) * sqrt(1 + 1/n) * spread, so an unchanged kernel FAILs at
 * most about 1% of checks whatever the spread; never below a floor the
 * measurement cannot honestly go under, and a baseline that would need
 * more than the cap is too noisy to judge with.  The rule's error rates
 * under noise are simulated by perf_verdict_test and tabled in the README.
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
#define PERF_TOL_FLOOR		0.005
#define PERF_TOL_CAP		0.05
/*
 * Runs "run_perf.sh record" takes: with 20, a +3% regression FAILs in at
 * least 95% of checks where runs spread 0.5%, and +5% where they spread
 * 1% (the simulation); with 3, the spread of three numbers is too rough
 * an estimate for that, and the tolerance it gives is wider.  A baseline
 * of fewer than PERF_MIN_RUNS has no spread to speak of: --tolerance.
 */
#define PERF_DEFAULT_RUNS	20
#define PERF_MIN_RUNS		3

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
 * The default tolerance of a baseline of @runs runs whose ratios spread
 * @spread (sample standard deviation over their mean): -EINVAL below
 * PERF_MIN_RUNS, -ERANGE above PERF_TOL_CAP (*tol says how far).
 */
int perf_tolerance(size_t runs, double spread, double *tol);
/*
 * The smallest growth of the ratio, a fraction of the baseline, that a
 * check FAILs with 95% power: the tolerance, plus the 95th percentile of
 * a run's distance to a mean of @runs runs of spread @spread, plus the
 * check's own interval half width @half (a fraction of the baseline).
 * With fewer than 2 runs the spread is unknown: NAN.
 */
double perf_mde(double tol, size_t runs, double spread, double half);
/* Whether to measure another round when @done is false and n rounds ran. */
bool perf_more(bool done, size_t n, double elapsed_s,
	       const struct perf_budget *b);

#endif /* _SELFTESTS_APPARMOR_PERF_VERDICT_H */
