// SPDX-License-Identifier: GPL-2.0
/*
 * af_unix_send_perf and its baseline file: loading it, measuring the
 * unconfined series as it wants (--record's runs each in a process of its
 * own, a check until it decides), recording series into it, reporting the
 * check that perf_check() decides, and storing it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest.h"
#include "perf_baseline.h"
#include "perf_check.h"
#include "perf_verdict.h"
#include "send_perf.h"

static struct {
	struct perf_baseline b;
	enum perf_base_state state;
	char msg[4096 + PERF_ERR_MAX + 8];
	bool record_failed;
	/* --record: the runs of the series being recorded */
	size_t nr_runs;
	struct perf_run_result runs[PERF_MAX_RUNS];
} base;

static struct perf_settings cur_settings(void)
{
	struct perf_settings s = {
		.batch = opts.run.batch, .msgs_per_round = opts.run.msgs,
		.warmup = opts.run.warmup, .icount = env.icount,
	};
	return s;
}

/*
 * A baseline to add a run to must be of this machine, kernel and
 * settings; where there is none, the run starts one.
 */
static void add_to(const struct perf_settings *set)
{
	char err[PERF_ERR_MAX];

	if (base.state == PERF_BASE_OK &&
	    perf_baseline_match(&base.b, &env.id, &env.sys, set, err,
				sizeof(err)) != PERF_MATCH)
		snprintf(base.msg, sizeof(base.msg), "%s: %s", opts.baseline, err);
	else if (base.state == PERF_BASE_OK &&
		 strcmp(base.b.sys.kernel, env.uts.release))
		snprintf(base.msg, sizeof(base.msg),
			 "%s: recorded on kernel %s, this is %s: add runs on the kernel it was started on",
			 opts.baseline, base.b.sys.kernel, env.uts.release);
	else if (base.state == PERF_BASE_OK || base.state == PERF_BASE_MISSING)
		base.state = PERF_BASE_RECORD;
	if (base.state != PERF_BASE_RECORD)
		base.state = PERF_BASE_BAD;
}

void load_baseline(void)
{
	struct perf_settings set = cur_settings();
	char err[PERF_ERR_MAX], line[512];
	int ret;

	if (!opts.baseline[0])
		snprintf(opts.baseline, sizeof(opts.baseline),
			 BASELINE_DIR "/af_unix_send_perf.%s.baseline",
			 env.id.machine_id);
	ksft_print_msg("baseline: %s\n", opts.baseline);
	if (opts.record) {
		snprintf(line, sizeof(line),
			 "recording on kernel %s: a baseline recorded on a regressed kernel accepts that regression, so record on one known to be good",
			 env.uts.release);
		ksft_print_msg("%s\n", line);
	}
	ret = opts.record == REC_NEW ? -ENOENT :
		perf_baseline_load(opts.baseline, &base.b, base.msg,
				   sizeof(base.msg));
	base.state = ret == -ENOENT ? PERF_BASE_MISSING : ret ? PERF_BASE_BAD : PERF_BASE_OK;
	if (!ret)
		ksft_print_msg("baseline recorded on kernel %s\n",
			       base.b.sys.kernel);
	if (opts.record)
		add_to(&set);
	if (base.state == PERF_BASE_RECORD && ret) {
		memset(&base.b, 0, sizeof(base.b));
		base.b.id = env.id;
		base.b.sys = env.sys;
		base.b.set = set;
	}
	if (opts.record)
		return;
	if (ret)
		return;
	switch (perf_baseline_match(&base.b, &env.id, &env.sys, &set, err,
				    sizeof(err))) {
	case PERF_MATCH:
		return;
	case PERF_OTHER_SETTINGS:
		base.state = PERF_BASE_BAD;
		break;
	default:
		base.state = PERF_BASE_ELSEWHERE;
		break;
	}
	snprintf(base.msg, sizeof(base.msg), "%s: %s", opts.baseline, err);
}

/* The entry a check of @wl and @size is judged against; NULL: none. */
static const struct perf_entry *entry_of(int wl, unsigned int size)
{
	if (base.state != PERF_BASE_OK)
		return NULL;
	return perf_baseline_find(&base.b, wl_names[wl], size);
}

/* What the unconfined series of @wl and @size must measure until. */
static struct goal series_goal(int wl, unsigned int size)
{
	const struct perf_entry *e = entry_of(wl, size);
	struct goal g = { GOAL_NONE, 0, 0 };

	if (e && !perf_check_tolerance(e, opts.run.tolerance, &g.tol)) {
		g.kind = GOAL_DECIDE;
		g.base = e->ratio;
	}
	return g;
}

/*
 * --record: --runs runs of the series, each a process of its own, into
 * base.runs; @shared is left holding the last, with the messages of all
 * counted, or the first that failed.
 */
static void record_runs(int wl, unsigned int size, struct series *shared)
{
	struct wl_count total[NR_S] = { { 0 } };
	struct perf_summary d, q;
	struct perf_ci ci;
	char line[512];
	unsigned int i;
	int s;

	for (base.nr_runs = 0, i = 0; i < opts.runs; i++) {
		run_in_child(wl, size, NULL, shared);
		for (s = 0; s < NR_S; s++) {
			total[s].validated += shared->cnt[s].validated;
			total[s].failures += shared->cnt[s].failures;
		}
		if (shared->status != KSFT_PASS || shared->cnt[0].failures ||
		    shared->cnt[1].failures ||
		    perf_mean_ci(shared->ratios, shared->n, &ci))
			return;
		perf_summarize(shared->ns[S_DGRAM], shared->n, &d);
		perf_summarize(shared->ns[S_SEQPACKET], shared->n, &q);
		base.runs[base.nr_runs++] = (struct perf_run_result) {
			ci.mean, d.mean, q.mean,
		};
		snprintf(line, sizeof(line),
			 "%s %uB run %u of %u: ratio %.4f [%.4f, %.4f], dgram %.1f seqpacket %.1f ns/msg",
			 wl_names[wl], size, i + 1, opts.runs, ci.mean, ci.lo,
			 ci.hi, d.mean, q.mean);
		ksft_print_msg("%s\n", line);
	}
	memcpy(shared->cnt, total, sizeof(total));
}

void measure_unconfined(int wl, unsigned int size, struct series *shared)
{
	struct goal g;

	if (opts.record == REC_NEW && env.sys.apparmor &&
	    base.state == PERF_BASE_RECORD) {
		record_runs(wl, size, shared);
		return;
	}
	g = series_goal(wl, size);
	run_series(wl, size, &g, shared);
}

/* A verdict's result line, and its record in the JSON. */
static void __printf(4, 5) verdict(struct perf_json_verdict *jv, int code,
				   const char *tag, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jv->reason = msg;
	perf_json_verdict(jv);
	send_result(code, tag, msg);
}

/* The runs of this series, as --record or --add-run measured them. */
static size_t series_runs(const struct stats *st, struct perf_run_result *runs)
{
	if (opts.record == REC_NEW) {
		memcpy(runs, base.runs, base.nr_runs * sizeof(*runs));
		return base.nr_runs;
	}
	runs[0] = (struct perf_run_result) {
		st->ratio.mean, st->sum[S_DGRAM].mean,
		st->sum[S_SEQPACKET].mean,
	};
	return 1;
}

static void record_entry(const char *tag, int wl, unsigned int size,
			 const struct series *r, const struct stats *st,
			 struct perf_json_verdict *jv)
{
	struct perf_run_result runs[PERF_MAX_RUNS];
	const struct perf_entry *e;
	char what[384], buf[64];
	size_t i, n;
	double tol;
	int ret;

	jv->verdict = "not recorded";
	if (!env.sys.apparmor) {
		base.record_failed = true;
		verdict(jv, KSFT_SKIP, tag,
			"AppArmor is not enabled: there is no hook to record");
		return;
	}
	n = series_runs(st, runs);
	for (i = 0; i < n; i++) {
		if (perf_baseline_add_run(&base.b, wl_names[wl], size,
					  &runs[i])) {
			base.record_failed = true;
			verdict(jv, KSFT_FAIL, tag,
				"baseline full: %d runs of an entry, %d entries at most",
				PERF_MAX_RUNS, PERF_MAX_ENTRIES);
			return;
		}
	}
	e = perf_baseline_find(&base.b, wl_names[wl], size);
	jv->verdict = "recorded";
	jv->baseline_ratio = e->ratio;
	jv->baseline_runs = e->nr_runs;
	jv->baseline_spread = e->spread;
	if (opts.record == REC_NEW)
		snprintf(what, sizeof(what),
			 "%zu runs recorded, each a process of its own: ratio %.4f, spread %.3f%%",
			 e->nr_runs, e->ratio, e->spread * 100);
	else
		snprintf(what, sizeof(what),
			 "run %zu recorded, ratio %.4f [%.4f, %.4f] after %zu rounds; baseline %.4f over %zu runs, spread %.3f%%",
			 e->nr_runs, st->ratio.mean, st->ratio.lo, st->ratio.hi,
			 r->n, e->ratio, e->nr_runs, e->spread * 100);
	if (e->nr_runs < opts.runs) {
		verdict(jv, KSFT_PASS, tag, "%s; complete at %u runs", what,
			opts.runs);
		return;
	}
	ret = perf_tolerance(e->nr_runs, e->spread, &tol);
	if (ret) {
		verdict(jv, KSFT_FAIL, tag,
			"%s: too noisy to judge with, the tolerance would be %.2f%%, over the %g%% cap: record on a quiet machine, pinned (see the README)",
			what, tol * 100, PERF_TOL_CAP * 100);
		return;
	}
	jv->tolerance = tol;
	jv->catches = perf_mde(tol, e->nr_runs, e->spread,
			       st->ratio.half / e->ratio);
	verdict(jv, KSFT_PASS, tag, "%s; tolerance %.2f%%, %s", what,
		tol * 100, perf_catches_text(jv->catches, buf, sizeof(buf)));
}

/* What a judged check was decided on, before its result line. */
static void print_judged(const char *tag, const struct perf_check *c,
			 const struct series *r, const struct stats *st)
{
	const struct perf_entry *e = c->entry;
	const struct perf_ci *ci = &c->d.ci;
	char line[1024];

	snprintf(line, sizeof(line),
		 "%s: ratio %.4f [%.4f, %.4f] over %zu rounds (%.1f s past the first %u), baseline %.4f over %zu runs spreading %.3f%%, tolerance %.2f%%%s, limit %.4f; dgram %.1f ns/msg (baseline %.1f)",
		 tag, ci->mean, ci->lo, ci->hi, r->n, r->extra_s,
		 opts.run.rounds, e->ratio, e->nr_runs, e->spread * 100,
		 c->tolerance * 100, opts.tol_set ? " (--tolerance)" : "",
		 c->limit, st->sum[S_DGRAM].mean, e->dgram_ns);
	ksft_print_msg("%s\n", line);
}

static int check_code(enum perf_check_verdict v)
{
	switch (v) {
	case PERF_CHECK_PASS:
		return KSFT_PASS;
	case PERF_CHECK_FAIL:
		return KSFT_FAIL;
	default:
		return KSFT_SKIP;
	}
}

void check_baseline(int wl, unsigned int size, bool usable,
		    const struct series *r, const struct stats *st)
{
	const struct perf_check_base b = {
		base.state, entry_of(wl, size), opts.baseline, base.msg,
	};
	const struct perf_check_settings set = {
		opts.run.tolerance, opts.run.max_rounds, opts.run.budget_s,
	};
	const struct perf_check_series s = {
		usable, env.aa.enabled && !env.unconfined, env.label,
		r->ratios, r->n, r->extra_s,
	};
	const struct perf_check c = perf_check(&b, &set, &s);
	const struct perf_entry *e = c.entry;
	struct perf_json_verdict jv = {
		wl_names[wl], size, perf_check_name(c.verdict), c.reason,
		c.tolerance, e ? e->ratio : NAN, c.limit, c.catches,
		e ? e->nr_runs : 0, e ? e->spread : NAN,
		usable ? &st->ratio : NULL, usable ? r->extra_s : 0,
	};
	char tag[96];

	snprintf(tag, sizeof(tag), "unconfined %s %uB vs baseline", wl_names[wl],
		 size);
	/* a baseline missing a series it was asked to hold is not written */
	if (c.why == PERF_WHY_UNMEASURED)
		base.record_failed = true;
	if (c.verdict == PERF_CHECK_RECORD) {
		record_entry(tag, wl, size, r, st, &jv);
		return;
	}
	if (c.why == PERF_WHY_JUDGED)
		print_judged(tag, &c, r, st);
	perf_json_verdict(&jv);
	send_result(check_code(c.verdict), tag, c.reason);
}

int store_baseline(char *err, size_t errlen)
{
	if (!opts.record || base.state != PERF_BASE_RECORD)
		return 0;
	if (base.record_failed || !base.b.nr_entries) {
		ksft_print_msg("baseline NOT written: some entries could not be recorded\n");
		return 0;
	}
	mkdir(BASELINE_DIR, 0755);
	if (perf_baseline_store(opts.baseline, &base.b, err, errlen))
		return -1;
	ksft_print_msg("baseline with %zu entries, recorded on kernel %s, written to %s\n",
		       base.b.nr_entries, base.b.sys.kernel, opts.baseline);
	return 0;
}
