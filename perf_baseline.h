/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-machine baseline of af_unix_send_perf: the dgram/seqpacket ratio
 * of each workload and size in several runs on a kernel known to be good.
 * Another machine, CPU, LSM list or AppArmor state cannot be judged
 * against: SKIP.  Other settings are the checker's mistake: FAIL, so it
 * gets fixed rather than skipped for ever.  The kernel is never compared:
 * comparing kernels is the point.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_BASELINE_H
#define _SELFTESTS_APPARMOR_PERF_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PERF_BASELINE_VERSION	3
#define PERF_MAX_ENTRIES	64	/* a bit each in an unsigned long long */
#define PERF_MAX_RUNS		32
#define PERF_NAME_MAX		32
#define PERF_ID_MAX		128
#define PERF_LSM_MAX		256
#define PERF_ERR_MAX		512

struct perf_identity {
	char machine_id[PERF_ID_MAX], cpu_model[PERF_ID_MAX];
};

struct perf_system {
	char kernel[PERF_ID_MAX];	/* uname -r, printed only */
	char lsm[PERF_LSM_MAX];		/* /sys/kernel/security/lsm */
	bool apparmor;			/* AppArmor enabled */
};

struct perf_settings {
	unsigned int batch, msgs_per_round, warmup;
	bool icount;
};

struct perf_run_result {
	double ratio, dgram_ns, seqpacket_ns;
};

struct perf_entry {
	char workload[PERF_NAME_MAX];
	unsigned int msg_size;
	size_t nr_runs;
	struct perf_run_result runs[PERF_MAX_RUNS];
	double ratio, spread;	/* the runs' mean, sample stdev / mean */
};

struct perf_baseline {
	struct perf_identity id;
	struct perf_system sys;
	struct perf_settings set;
	size_t nr_entries;
	struct perf_entry entries[PERF_MAX_ENTRIES];
};

enum perf_match {
	PERF_MATCH,
	PERF_OTHER_MACHINE,	/* SKIP */
	PERF_OTHER_SYSTEM,	/* LSM list or AppArmor state: SKIP */
	PERF_OTHER_SETTINGS,	/* FAIL */
};

/*
 * Strict numbers for the options and the file: strtoull() and strtod()
 * alone take "-1", " 1", "nan" and trailing junk.  0, -EINVAL for
 * malformed text or -ERANGE outside [min, max]; doubles finite only.
 */
int perf_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
int perf_parse_double(const char *s, double min, double max, double *out);
int perf_parse_uint_list(const char *s, unsigned long long min,
			 unsigned long long max, unsigned int *out,
			 size_t max_n, size_t *n);
char *perf_read_file(const char *path, size_t max, char *err, size_t errlen);
/* 0, -ENOENT when the file does not exist, another -errno otherwise. */
int perf_baseline_load(const char *path, struct perf_baseline *b,
		       char *err, size_t errlen);
int perf_baseline_parse(const char *text, struct perf_baseline *b,
			char *err, size_t errlen);
int perf_baseline_write(FILE *f, const struct perf_baseline *b);
int perf_baseline_store(const char *path, const struct perf_baseline *b,
			char *err, size_t errlen);
enum perf_match perf_baseline_match(const struct perf_baseline *b,
				    const struct perf_identity *id,
				    const struct perf_system *sys,
				    const struct perf_settings *set,
				    char *err, size_t errlen);
const struct perf_entry *perf_baseline_find(const struct perf_baseline *b,
					    const char *workload,
					    unsigned int msg_size);
/* -E2BIG: the baseline or the entry is full. */
int perf_baseline_add_run(struct perf_baseline *b, const char *workload,
			  unsigned int msg_size,
			  const struct perf_run_result *r);

#endif /* _SELFTESTS_APPARMOR_PERF_BASELINE_H */
