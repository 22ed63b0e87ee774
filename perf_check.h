/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check of one af_unix_send_perf series against its baseline entry,
 * decided whole, reason text included, before anything is printed: the
 * KTAP line and the JSON verdict are then both written from the one
 * struct perf_check, so they cannot tell different stories.  Pure (no
 * I/O, no globals), so that each way a check can end, in the words CI
 * greps for, has a known-answer test in perf_verdict_test.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_CHECK_H
#define _SELFTESTS_APPARMOR_PERF_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_baseline.h"
#include "perf_verdict.h"

#define PERF_REASON_MAX		1024

/* Where loading the baseline file left the run. */
enum perf_base_state {
	PERF_BASE_OK,		/* of this machine, system and settings */
	PERF_BASE_MISSING,	/* none for this machine: SKIP */
	PERF_BASE_ELSEWHERE,	/* of another machine or system: SKIP */
	PERF_BASE_BAD,		/* unusable, or other settings: FAIL */
	PERF_BASE_RECORD,	/* --record, --add-run: series go into it */
};

/* The baseline a series is checked against. */
struct perf_check_base {
	enum perf_base_state state;
	/* the entry of the series' workload and size; NULL: none */
	const struct perf_entry *entry;
	const char *path;	/* the file */
	const char *msg;	/* why it is missing, elsewhere or bad */
};

struct perf_check_settings {
	double tolerance;	/* --tolerance, a fraction; NAN: the entry's */
	unsigned int max_rounds;	/* the budget of an undecided check */
	double budget_s;
};

/* What the series measured. */
struct perf_check_series {
	bool usable;		/* measured, every message arrived whole */
	bool confined;		/* under a profile: not what a baseline holds */
	const char *label;	/* the task's, named when confined */
	const double *ratios;	/* dgram/seqpacket, one per paired round */
	size_t n;
	double extra_s;		/* spent measuring past the first rounds */
};

enum perf_check_verdict {
	PERF_CHECK_PASS,
	PERF_CHECK_FAIL,
	PERF_CHECK_UNDECIDED,	/* a SKIP that says which way it leans */
	PERF_CHECK_SKIP,
	PERF_CHECK_RECORD,	/* no check: the series goes into the baseline */
};

/* Each has a reason text of its own. */
enum perf_check_why {
	PERF_WHY_UNMEASURED,	/* SKIP */
	PERF_WHY_CONFINED,	/* SKIP */
	PERF_WHY_RECORDING,	/* RECORD */
	PERF_WHY_NO_BASELINE,	/* SKIP */
	PERF_WHY_ELSEWHERE,	/* SKIP */
	PERF_WHY_BAD_BASELINE,	/* FAIL */
	PERF_WHY_NO_ENTRY,	/* SKIP */
	PERF_WHY_FEW_RUNS,	/* FAIL: too few for a tolerance */
	PERF_WHY_NOISY,		/* SKIP: the tolerance would be over the cap */
	PERF_WHY_BAD_RATIOS,	/* FAIL */
	PERF_WHY_JUDGED,	/* PASS, FAIL or UNDECIDED, as d says */
};

struct perf_check {
	enum perf_check_verdict verdict;
	enum perf_check_why why;
	const struct perf_entry *entry;	/* judged against; NULL: none */
	double tolerance;	/* --tolerance or the entry's; NAN: neither */
	double noisy_tol;	/* PERF_WHY_NOISY: what the spread would need */
	double limit;		/* NAN unless judged */
	double catches;		/* perf_mde(); NAN unless judged, or unknown */
	struct perf_decision d;	/* PERF_WHY_JUDGED: interval, limit, lean */
	char reason[PERF_REASON_MAX];	/* the result line's and the JSON's */
};

/*
 * The tolerance a check against @e uses: @given (--tolerance) unless NAN,
 * else what the spread of its runs gives, as perf_tolerance() returns it.
 */
int perf_check_tolerance(const struct perf_entry *e, double given,
			 double *tol);
struct perf_check perf_check(const struct perf_check_base *base,
			     const struct perf_check_settings *set,
			     const struct perf_check_series *s);
/* "pass", "fail", "undecided", "skip" or "record". */
const char *perf_check_name(enum perf_check_verdict v);
/* What a verdict line says it catches, from perf_mde(); @buf, returned. */
const char *perf_catches_text(double mde, char *buf, size_t len);

#endif /* _SELFTESTS_APPARMOR_PERF_CHECK_H */
