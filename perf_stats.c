// SPDX-License-Identifier: GPL-2.0
/*
 * Summary statistics and confidence intervals for af_unix_send_perf.
 * See perf_stats.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf_stats.h"

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
