/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics, strict option parsing, the per-machine baseline file and the
 * A/B/A report shared by af_unix_send_perf, perf_report and
 * perf_stats_test.  Nothing in here touches sockets, so all of it can be
 * unit tested with known answers.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_STATS_H
#define _SELFTESTS_APPARMOR_PERF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAX_ROUNDS		1000
#define PERF_MAX_ENTRIES	64
#define PERF_NAME_MAX		32
#define PERF_ID_MAX		128
#define PERF_ERR_MAX		256
#define PERF_BASELINE_VERSION	1

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

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

enum perf_verdict {
	PERF_PASS,
	PERF_FAIL,
	PERF_NOISY,	/* CI too wide, or excess within noise: undecided */
};

struct perf_aba {
	double a1, b, a2;
	double mid;		/* midpoint of the two A runs */
	double slowdown_pct;	/* (b / mid - 1) * 100 */
	double drift_pct;	/* (a2 / a1 - 1) * 100 */
};

/* What must match between a baseline and the run that checks it. */
struct perf_identity {
	char machine_id[PERF_ID_MAX];
	char cpu_model[PERF_ID_MAX];
};

struct perf_settings {
	unsigned int batch;
	unsigned int msgs_per_round;
	unsigned int rounds;
	unsigned int warmup;
	bool icount;
};

struct perf_entry {
	char workload[PERF_NAME_MAX];
	unsigned int msg_size;
	double ratio;
	double dgram_ns;
	double seqpacket_ns;
};

struct perf_baseline {
	int version;
	struct perf_identity id;
	struct perf_settings set;
	char kernel[PERF_ID_MAX];	/* informational only */
	size_t nr_entries;
	struct perf_entry entries[PERF_MAX_ENTRIES];
};

/* One series read back from a JSON result file. */
struct perf_series {
	char variant[PERF_NAME_MAX];
	char workload[PERF_NAME_MAX];
	char sock[PERF_NAME_MAX];
	unsigned int msg_size;
	size_t n;
	double ns[PERF_MAX_ROUNDS];
	double cv;
	unsigned long long validated;
	unsigned long long failures;
};

int perf_summarize(const double *v, size_t n, struct perf_summary *s);
double perf_t975(size_t df);
int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci);
int perf_ratios(const double *num, const double *den, size_t n, double *out);
enum perf_verdict perf_judge(double base_ratio, double tol,
			     const struct perf_ci *ci, double *limit);
const char *perf_verdict_name(enum perf_verdict v);
int perf_aba(double a1, double b, double a2, struct perf_aba *r);

int perf_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
int perf_parse_double(const char *s, double min, double max, double *out);
int perf_parse_uint_list(const char *s, unsigned long long min,
			 unsigned long long max, unsigned int *out,
			 size_t max_n, size_t *n);

int perf_baseline_load(const char *path, struct perf_baseline *b,
		       char *err, size_t errlen);
int perf_baseline_parse(const char *text, struct perf_baseline *b,
			char *err, size_t errlen);
int perf_baseline_format(const struct perf_baseline *b, char *buf,
			 size_t len);
int perf_baseline_store(const char *path, const struct perf_baseline *b,
			char *err, size_t errlen);
int perf_baseline_match(const struct perf_baseline *b,
			const struct perf_identity *id,
			const struct perf_settings *set,
			char *err, size_t errlen);
const struct perf_entry *perf_baseline_find(const struct perf_baseline *b,
					    const char *workload,
					    unsigned int msg_size);
int perf_baseline_put(struct perf_baseline *b, const struct perf_entry *e);

int perf_json_find(const char *text, const char *variant,
		   const char *workload, const char *sock,
		   unsigned int msg_size, struct perf_series *s);
char *perf_read_file(const char *path, size_t max, char *err, size_t errlen);

#endif /* _SELFTESTS_APPARMOR_PERF_STATS_H */
