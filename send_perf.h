/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of af_unix_send_perf share; af_unix_send_perf.c says
 * which file does what.
 */
#ifndef _SELFTESTS_APPARMOR_SEND_PERF_H
#define _SELFTESTS_APPARMOR_SEND_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_env.h"
#include "perf_json.h"
#include "perf_stats.h"
#include "send_workload.h"

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
extern struct perf_env env;

/*
 * What a series measures until: --rounds, or a verdict.  A recorded run
 * measures --rounds, as a check does before it is decided: the spread of
 * the runs is that of a check's first look.
 */
struct goal {
	enum { GOAL_NONE, GOAL_DECIDE } kind;
	double base;
	double tol;
};

/* A series of paired rounds; shared with a child (MAP_SHARED). */
struct series {
	int status;		/* KSFT_PASS, KSFT_FAIL or KSFT_SKIP */
	char reason[256];
	size_t n;		/* measured paired rounds */
	double ns[NR_S][PERF_MAX_ROUNDS];
	double ratios[PERF_MAX_ROUNDS];
	struct wl_count cnt[NR_S];
	double extra_s;		/* spent measuring past --rounds */
};

struct stats {
	struct perf_summary sum[NR_S];
	double drop1[NR_S];		/* mean without the first round */
	struct perf_ci ratio;
};

/*
 * af_unix_send_perf.c: "ok N TAG: MSG", or "not ok" or "# SKIP".  Every
 * result goes through it: kselftest.h counts in static variables, one set
 * in each file, and main's set is the one that numbers and totals them.
 */
void send_result(int code, const char *tag, const char *msg);

/* send_opts.c */
void parse_opts(int argc, char **argv);

/* send_series.c */
void run_series(int wl, unsigned int size, const struct goal *g,
		struct series *r);
/* Under the profile @prof, or unconfined (NULL), in a child process. */
void run_in_child(int wl, unsigned int size, const char *prof,
		  struct series *shared);
/* Reports one measured series; returns true when it can be judged. */
bool report_series(int v, int wl, unsigned int size,
		   const struct series *r, struct stats *st);

/* send_baseline.c */
void load_baseline(void);
/* The unconfined series, as the baseline wants it measured. */
void measure_unconfined(int wl, unsigned int size, struct series *shared);
/* Its verdict against the baseline, or its record into it. */
void check_baseline(int wl, unsigned int size, bool usable,
		    const struct series *r, const struct stats *st);
/* -1 with the reason in @err when --record's baseline cannot be written. */
int store_baseline(char *err, size_t errlen);

/* send_confined.c: why variant @v cannot run, or NULL. */
const char *variant_setup(int v, char *reason, size_t rlen);
void measure_confined(int wl, unsigned int size, struct series *shared);
void variant_teardown(void);

#endif /* _SELFTESTS_APPARMOR_SEND_PERF_H */
