/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary statistics and Student t confidence intervals for
 * af_unix_send_perf.  Pure functions with known answers, tested by
 * perf_stats_test.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_STATS_H
#define _SELFTESTS_APPARMOR_PERF_STATS_H

#include <stddef.h>

#define PERF_MAX_ROUNDS		1000

struct perf_summary {
	size_t n;
	double mean;
	double median;
	double min;
	double max;
	double stdev;	/* sample standard deviation (n - 1) */
	double cv;	/* stdev / mean */
};

/* Two-sided 95% Student t confidence interval of a mean. */
struct perf_ci {
	size_t n;
	double mean;
	double half;	/* half width */
	double lo;
	double hi;
};

/* 1 to PERF_MAX_ROUNDS values; -EINVAL otherwise. */
int perf_summarize(const double *v, size_t n, struct perf_summary *s);
/* 0.975 quantile of Student's t with @df degrees of freedom; NAN for 0. */
double perf_t975(size_t df);
/* 0.99 quantile of Student's t, the one-sided 99% bound; NAN for 0. */
double perf_t99(size_t df);
/* 2 to PERF_MAX_ROUNDS values; -EINVAL otherwise. */
int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci);
/* out[i] = num[i] / den[i]; -EINVAL unless every den[i] > 0. */
int perf_ratios(const double *num, const double *den, size_t n, double *out);

#endif /* _SELFTESTS_APPARMOR_PERF_STATS_H */
