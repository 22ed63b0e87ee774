/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON result of af_unix_send_perf --json (format af_unix_send_perf/2):
 * the run's context and settings, every measured series with its rounds,
 * the series that did not run and why, and each verdict with what it was
 * decided on.  Read it back with a JSON parser (jq, Python's json).
 */
#ifndef _SELFTESTS_APPARMOR_PERF_JSON_H
#define _SELFTESTS_APPARMOR_PERF_JSON_H

#include <stddef.h>

#include "perf_env.h"
#include "perf_stats.h"
#include "send_workload.h"

#define PERF_JSON_FORMAT	"af_unix_send_perf/2"

/* What the run was asked to do. */
struct perf_run {
	int cpu;
	unsigned int batch;
	unsigned int msgs;
	unsigned int rounds;
	unsigned int max_rounds;
	unsigned int warmup;
	double budget_s;
	double tolerance;	/* NAN: from the baseline */
};

/* One socket type of a measured series. */
struct perf_json_series {
	const char *variant;
	const char *workload;
	const char *sock;
	unsigned int size;
	const double *ns;
	const struct perf_summary *sum;
	double mean_drop_first;
	const struct perf_ci *ratio;
	const struct wl_count *cnt;
};

struct perf_json_verdict {
	const char *workload;
	unsigned int size;
	const char *verdict;	/* pass, fail, skip, recorded, not recorded */
	const char *reason;
	double tolerance;
	double baseline_ratio;	/* NAN when there is none */
	double limit;
	double catches;		/* the smallest regression FAILed with 95% power */
	size_t baseline_runs;
	double baseline_spread;
	const struct perf_ci *ratio;	/* NULL when nothing was measured */
	double extra_s;		/* time spent measuring to decide */
};

/* Nothing is written unless opened; errors end the program (KSFT_FAIL). */
void perf_json_open(const char *path, const struct perf_env *env,
		    const struct perf_run *run);
void perf_json_series(const struct perf_json_series *s);
void perf_json_not_run(const char *variant, const char *workload,
		       unsigned int size, const char *status,
		       const char *reason);
void perf_json_verdict(const struct perf_json_verdict *v);
void perf_json_close(void);

#endif /* _SELFTESTS_APPARMOR_PERF_JSON_H */
