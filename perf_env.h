/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What af_unix_send_perf ran on: printed at the start, written to the
 * JSON result and compared with the baseline.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_ENV_H
#define _SELFTESTS_APPARMOR_PERF_ENV_H

#include <stdbool.h>
#include <sys/utsname.h>
#include <time.h>

#include "common.h"
#include "perf_baseline.h"

/* The kernel command line word vmtest.sh --icount adds. */
#define PERF_ICOUNT_WORD	"vmtest.icount=1"

struct perf_env {
	struct utsname uts;
	char label[256];
	struct aa_env aa;
	bool unconfined;
	bool icount;
	bool machine_slow;		/* KSFT_MACHINE_SLOW=yes */
	struct perf_identity id;
	struct perf_system sys;
	char cmdline[4096];
	char clocksource[64];
	char preempt[128];
	char time[32];			/* UTC, ISO 8601 */
	/* The debug checks the kernel runs ("lockdep, kmemleak"), or "". */
	char debug[64];
	double clock_ns;		/* cost of one clock_gettime() */
	unsigned int nr_cpus;		/* CPUs this task may run on */
};

/*
 * CLOCK_MONOTONIC, in ns: every time af_unix_send_perf keeps.  Inline:
 * it brackets the timed sends.
 */
static inline double perf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void perf_env_probe(struct perf_env *env);
void perf_env_print(const struct perf_env *env);

#endif /* _SELFTESTS_APPARMOR_PERF_ENV_H */
