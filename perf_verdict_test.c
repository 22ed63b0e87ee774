// SPDX-License-Identifier: GPL-2.0
/*
 * Known-answer tests for perf_stats.c and perf_verdict.c, and a seeded
 * simulation of af_unix_send_perf's verdict under noise: how often it
 * FAILs, PASSes or cannot decide when nothing changed and when the ratio
 * grew by 5, 8 or 15%.  No sockets, no AppArmor, no timing: these must
 * pass everywhere, and give the same figures everywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "perf_stats.h"
#include "perf_verdict.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

TEST(summary_known_vector)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct perf_summary s;

	ASSERT_EQ(0, perf_summarize(v, 8, &s));
	EXPECT_TRUE(NEAR(5.0, s.mean, 1e-12));
	EXPECT_TRUE(NEAR(4.5, s.median, 1e-12));
	EXPECT_TRUE(NEAR(2.0, s.min, 1e-12));
	EXPECT_TRUE(NEAR(9.0, s.max, 1e-12));
	EXPECT_TRUE(NEAR(sqrt(32.0 / 7), s.stdev, 1e-12));
	EXPECT_TRUE(NEAR(sqrt(32.0 / 7) / 5, s.cv, 1e-12));
}

TEST(summary_odd_and_single)
{
	const double v[] = { 3, 1, 2 };
	struct perf_summary s;

	ASSERT_EQ(0, perf_summarize(v, 3, &s));
	EXPECT_TRUE(NEAR(2.0, s.median, 1e-12));
	EXPECT_TRUE(NEAR(1.0, s.stdev, 1e-12));
	EXPECT_TRUE(NEAR(0.5, s.cv, 1e-12));
	ASSERT_EQ(0, perf_summarize(v, 1, &s));
	EXPECT_TRUE(NEAR(3.0, s.mean, 1e-12));
	EXPECT_TRUE(NEAR(0.0, s.stdev, 1e-12));
	EXPECT_EQ(-EINVAL, perf_summarize(v, 0, &s));
}

TEST(t_quantiles)
{
	EXPECT_TRUE(NEAR(12.706, perf_t975(1), 1e-9));
	EXPECT_TRUE(NEAR(2.145, perf_t975(14), 1e-9));
	EXPECT_TRUE(NEAR(2.042, perf_t975(30), 1e-9));
	/* exact values: 2.0395 (31), 2.0096 (50), 1.9623 (1000) */
	EXPECT_TRUE(NEAR(2.0395, perf_t975(31), 1e-3));
	EXPECT_TRUE(NEAR(2.0086, perf_t975(50), 1e-3));
	EXPECT_TRUE(NEAR(1.9623, perf_t975(1000), 1e-3));
	EXPECT_TRUE(isnan(perf_t975(0)));
}

TEST(mean_ci_and_ratios)
{
	const double num[] = { 2, 4, 6 }, den[] = { 2, 2, 2 }, zero[] = { 1, 0 };
	double r[3];
	struct perf_ci ci;

	ASSERT_EQ(0, perf_ratios(num, den, 3, r));
	EXPECT_TRUE(NEAR(2.0, r[1], 1e-12));
	ASSERT_EQ(0, perf_mean_ci(r, 3, &ci));
	EXPECT_TRUE(NEAR(2.0, ci.mean, 1e-12));
	EXPECT_TRUE(NEAR(4.303 / sqrt(3), ci.half, 1e-9));
	EXPECT_TRUE(NEAR(2.0 - 4.303 / sqrt(3), ci.lo, 1e-9));
	EXPECT_EQ(-EINVAL, perf_mean_ci(r, 1, &ci));
	EXPECT_EQ(-EINVAL, perf_ratios(num, zero, 2, r));
	const double neg[] = { 1, -2 }, nan_d[] = { 1, NAN };

	EXPECT_EQ(-EINVAL, perf_ratios(num, neg, 2, r));
	EXPECT_EQ(-EINVAL, perf_ratios(num, nan_d, 2, r));
}


TEST(summary_bounds)
{
	static double v[PERF_MAX_ROUNDS + 1];
	struct perf_summary s;
	struct perf_ci ci;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = 1 + i % 3;
	EXPECT_EQ(0, perf_summarize(v, PERF_MAX_ROUNDS, &s));
	EXPECT_EQ(-EINVAL, perf_summarize(v, PERF_MAX_ROUNDS + 1, &s));
	EXPECT_EQ(0, perf_mean_ci(v, PERF_MAX_ROUNDS, &ci));
	EXPECT_EQ(-EINVAL, perf_mean_ci(v, PERF_MAX_ROUNDS + 1, &ci));
	EXPECT_EQ(0, perf_mean_ci(v, 2, &ci));
}

/*
 * Each comparison of the rule at its boundary.  With a tolerance of 100%
 * the limit is base * 2, exact in binary, so a base of bound / 2 puts the
 * limit exactly on an interval bound, and nextafter() just beside it.
 */
TEST(verdict_boundaries)
{
	const double r[] = { 1.10, 1.20, 1.15, 1.25 };
	struct perf_decision d;
	struct perf_ci ci;

	ASSERT_EQ(0, perf_mean_ci(r, 4, &ci));
	/* high == limit: PASS; limit a hair lower: undecided */
	ASSERT_EQ(0, perf_decide(r, 4, ci.hi / 2, 1, &d));
	EXPECT_EQ(d.limit, ci.hi);
	EXPECT_EQ(PERF_PASS, (int)d.verdict);
	ASSERT_EQ(0, perf_decide(r, 4, nextafter(ci.hi, 0) / 2, 1, &d));
	EXPECT_EQ(PERF_UNDECIDED, (int)d.verdict);
	/* low == limit: undecided; limit a hair lower: FAIL */
	ASSERT_EQ(0, perf_decide(r, 4, ci.lo / 2, 1, &d));
	EXPECT_EQ(d.limit, ci.lo);
	EXPECT_EQ(PERF_UNDECIDED, (int)d.verdict);
	ASSERT_EQ(0, perf_decide(r, 4, nextafter(ci.lo, 0) / 2, 1, &d));
	EXPECT_EQ(PERF_FAIL, (int)d.verdict);
	EXPECT_GT(d.lean_pct, 0);
	/* centred on the limit: no lean; the lean is relative to the limit */
	ASSERT_EQ(0, perf_decide(r, 4, ci.mean / 2, 1, &d));
	EXPECT_EQ(PERF_UNDECIDED, (int)d.verdict);
	EXPECT_TRUE(NEAR(0, d.lean_pct, 1e-9));
	ASSERT_EQ(0, perf_decide(r, 4, 1.2 / 2, 1, &d));
	EXPECT_TRUE(NEAR((1.175 / 1.2 - 1) * 100, d.lean_pct, 1e-9));
	EXPECT_TRUE(NEAR(1.2, d.limit, 1e-12));
	/* the limit is base * (1 + tolerance) */
	ASSERT_EQ(0, perf_decide(r, 4, 1.0, 0.05, &d));
	EXPECT_TRUE(NEAR(1.05, d.limit, 1e-12));
	EXPECT_TRUE(NEAR(0.05, d.tol, 0));
	EXPECT_TRUE(NEAR(1.0, d.base, 0));
}

TEST(verdict_known_answers)
{
	/* the report's ratio against the fixed kernel's: a regression */
	const double stock[] = { 1.1874, 1.1879, 1.1877, 1.1878 };
	const double nan_r[] = { 1.0, NAN, 1.0 };
	const double inf_r[] = { 1.0, INFINITY };
	struct perf_decision d;

	ASSERT_EQ(0, perf_decide(stock, 4, 1.0651, 0.05, &d));
	EXPECT_EQ(PERF_FAIL, (int)d.verdict);
	ASSERT_EQ(0, perf_decide(stock, 4, 1.1877, 0.05, &d));
	EXPECT_EQ(PERF_PASS, (int)d.verdict);
	EXPECT_EQ(-EINVAL, perf_decide(stock, 1, 1.0, 0.05, &d));
	EXPECT_EQ(-EINVAL, perf_decide(stock, 4, 0, 0.05, &d));
	EXPECT_EQ(-EINVAL, perf_decide(stock, 4, -1, 0.05, &d));
	EXPECT_EQ(-EINVAL, perf_decide(stock, 4, NAN, 0.05, &d));
	EXPECT_EQ(-EINVAL, perf_decide(stock, 4, 1.0, 0, &d));
	EXPECT_EQ(-EINVAL, perf_decide(nan_r, 3, 1.0, 0.05, &d));
	EXPECT_EQ(-EINVAL, perf_decide(inf_r, 2, 1.0, 0.05, &d));
	EXPECT_STREQ("pass", perf_verdict_name(PERF_PASS));
	EXPECT_STREQ("fail", perf_verdict_name(PERF_FAIL));
	EXPECT_STREQ("undecided", perf_verdict_name(PERF_UNDECIDED));
}

TEST(precise_and_budget)
{
	struct perf_ci ci = { .n = 10, .mean = 2.0, .half = 0.025 };
	const struct perf_budget b = { 20, 1.5 };

	/* a quarter of 5% of 2.0 is 0.025 */
	EXPECT_TRUE(perf_precise(&ci, 0.05));
	ci.half = 0.025 + 1e-9;
	EXPECT_FALSE(perf_precise(&ci, 0.05));

	EXPECT_TRUE(perf_more(false, 19, 1.4, &b));
	EXPECT_FALSE(perf_more(true, 10, 0, &b));
	EXPECT_FALSE(perf_more(false, 20, 0, &b));
	EXPECT_FALSE(perf_more(false, 10, 1.5, &b));
	const struct perf_budget big = { PERF_MAX_ROUNDS + 5, 1e9 };

	EXPECT_TRUE(perf_more(false, PERF_MAX_ROUNDS - 1, 0, &big));
	EXPECT_FALSE(perf_more(false, PERF_MAX_ROUNDS, 0, &big));
}

/*
 * The simulation: synthetic paired rounds, each socket type's ns/msg with
 * a per-round noise of CV cv, half of its variance shared by both types
 * within a round (what moves the machine moves both), the other half
 * their own.  Each run records a baseline the way --record does, then
 * checks a kernel whose ratio grew by @effect, the way a check does, with
 * the default rounds, tolerance and round budget (the time budget is left
 * out: on a host the rounds run out first).  xorshift64* from a fixed
 * seed, so the table is the same everywhere.
 */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

static double sim_round(double ratio, double cv)
{
	double s = cv / sqrt(2), shared = gauss() * s;

	return ratio * (1 + shared + gauss() * s) / (1 + shared + gauss() * s);
}

/* Rounds until decided (or precise, to record) or out of rounds. */
static size_t sim_series(double ratio, double cv, double base, bool record,
			 struct perf_decision *d)
{
	const struct perf_budget b = {
		record ? PERF_RECORD_MAX_ROUNDS : PERF_DEFAULT_MAX_ROUNDS,
		INFINITY,
	};
	static double r[PERF_MAX_ROUNDS];
	size_t n = 0;
	bool done;

	while (n < PERF_DEFAULT_ROUNDS)
		r[n++] = sim_round(ratio, cv);
	for (;;) {
		if (perf_decide(r, n, base, PERF_DEFAULT_TOLERANCE, d))
			return 0;
		done = record ? perf_precise(&d->ci, PERF_DEFAULT_TOLERANCE) :
			d->verdict != PERF_UNDECIDED;
		if (!perf_more(done, n, 0, &b))
			return n;
		r[n++] = sim_round(ratio, cv);
	}
}

#define SIM_RUNS	1000U
#define SIM_RATIO	1.19	/* about the stock kernel's, unconfined */

TEST(simulated_verdicts)
{
	static const double cvs[] = { 0.01, 0.03, 0.05 };
	static const double effects[] = { 0, 0.05, 0.08, 0.15 };
	unsigned int tally[3], unrecorded;
	unsigned long rounds;
	struct perf_decision d;
	size_t c, e, i;

	printf("# %d runs per row: record a baseline, then check a ratio grown by the effect\n",
	       SIM_RUNS);
	printf("# %5s %7s %7s %7s %7s %11s %11s\n", "CV", "effect", "FAIL",
	       "PASS", "SKIP", "mean rounds", "unrecorded");
	for (c = 0; c < ARRAY_SIZE(cvs); c++) {
		for (e = 0; e < ARRAY_SIZE(effects); e++) {
			memset(tally, 0, sizeof(tally));
			unrecorded = 0;
			rounds = 0;
			for (i = 0; i < SIM_RUNS; i++) {
				sim_series(SIM_RATIO, cvs[c], 1, true, &d);
				if (!perf_precise(&d.ci, PERF_DEFAULT_TOLERANCE)) {
					unrecorded++;
					continue;
				}
				rounds += sim_series(SIM_RATIO * (1 + effects[e]),
						     cvs[c], d.ci.mean, false, &d);
				tally[d.verdict]++;
			}
			printf("# %4.0f%% %+6.0f%% %6.1f%% %6.1f%% %6.1f%% %11.1f %11u\n",
			       cvs[c] * 100, effects[e] * 100,
			       tally[PERF_FAIL] * 100.0 / SIM_RUNS,
			       tally[PERF_PASS] * 100.0 / SIM_RUNS,
			       tally[PERF_UNDECIDED] * 100.0 / SIM_RUNS,
			       (double)rounds / (SIM_RUNS - unrecorded), unrecorded);
			EXPECT_EQ(0U, unrecorded);
			/* no change never FAILs more than 1 run in 200 */
			if (effects[e] == 0)
				EXPECT_LE(tally[PERF_FAIL], SIM_RUNS / 200);
			/* +15% FAILs in at least 99% of runs at CV <= 3% */
			if (effects[e] == 0.15 && cvs[c] <= 0.03)
				EXPECT_GE(tally[PERF_FAIL], SIM_RUNS * 99 / 100);
		}
	}
}

TEST_HARNESS_MAIN
