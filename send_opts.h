/* SPDX-License-Identifier: GPL-2.0 */
/* af_unix_send_perf's options, as send_opts.c parses them. */
#ifndef _SELFTESTS_APPARMOR_SEND_OPTS_H
#define _SELFTESTS_APPARMOR_SEND_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_json.h"

#define BASELINE_DIR	"/var/lib/apparmor-selftests"
#define MAX_SIZES	16
/* What KSFT_MACHINE_SLOW=yes multiplies the time budget by. */
#define SLOW_BUDGET	10

enum { V_UNCONFINED, V_OLD, V_NEW, NR_V };
extern const char * const v_names[NR_V];

struct send_opts {
	struct perf_run run;
	unsigned int sizes[MAX_SIZES];
	size_t nr_sizes;
	unsigned int wl_mask;
	unsigned int v_mask;
	const char *json;
	char baseline[4096];
	bool budget_set;
	bool tol_set;
	enum { REC_NONE, REC_NEW, REC_ADD } record;
	unsigned int runs;	/* --record measures them; --add-run completes at them */
};

extern struct send_opts opts;

void parse_opts(int argc, char **argv);

#endif /* _SELFTESTS_APPARMOR_SEND_OPTS_H */
