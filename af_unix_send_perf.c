// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX datagram send cost under AppArmor: a benchmark that also judges.
 *
 * Kernel commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix
 * sockets when using old abi") dropped the early return for unconfined
 * labels in aa_unix_peer_perm(), so every unconfined SOCK_DGRAM send runs
 * unix_peer_perm() twice.  SOCK_SEQPACKET sends go through the same
 * unix_dgram_sendmsg() but skip security_unix_may_send(), so the
 * dgram/seqpacket ratio of paired rounds (one of each, order swapped every
 * round) is the cost of the hook with the rest of the path as its own
 * control.  What is timed is in send_workload.c: the send calls only.
 *
 * Every series is checked: each message must arrive whole and in order.
 * The unconfined series is also judged against a baseline recorded on this
 * machine by "run_perf.sh record" (perf_baseline.h), several runs in
 * separate processes or boots: PASS when the 95% interval of the ratio is
 * within the tolerance over the baseline, FAIL when it is all above, and
 * otherwise more paired rounds until it decides or the budget is spent,
 * then SKIP saying which way it leans.  The tolerance follows from how far
 * the baseline's runs spread, and each verdict says the smallest
 * regression it would catch (perf_verdict.h).  Without a baseline the
 * verdict is a SKIP.  This is not a throughput benchmark: absolute ns/msg
 * are printed, never judged.
 *
 * Exit status follows kselftest; bad options exit KSFT_FAIL (1).
 *
 * Where things are: here, main() (the plan, each variant in turn), the
 * measuring of a series, here or in a child under a profile, the
 * baseline of this run (loading it, --record and --add-run, the check's
 * result line, storing it) and every result line; below it,
 *   send_opts.c      the options and their defaults
 *   send_workload.c  the timed sends and the checking of each message
 *   perf_check.c     the check against a baseline entry, decided whole
 *                    before anything is printed
 *   perf_verdict.c   the rule and the tolerance; perf_stats.c the means
 *                    and intervals
 *   perf_baseline.c  the baseline file; perf_parse.c strict numbers
 *   perf_env.c       what the run is on; perf_json.c --json
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "common.h"
#include "policy.h"
#include "perf_baseline.h"
#include "perf_check.h"
#include "perf_env.h"
#include "perf_json.h"
#include "perf_stats.h"
#include "perf_verdict.h"
#include "send_opts.h"
#include "send_workload.h"

#define PROFILE_PREFIX "af_unix_send_perf"

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

static struct perf_env env;

/*
 * Every result goes through here: kselftest.h counts in static variables,
 * one set in each file, and this file's set numbers and totals them.
 */
static void result(int code, const char *tag, const char *msg)
{
	if (code == KSFT_PASS)
		ksft_test_result_pass("%s: %s\n", tag, msg);
	else if (code == KSFT_SKIP)
		ksft_test_result_skip("%s: %s\n", tag, msg);
	else
		ksft_test_result_fail("%s: %s\n", tag, msg);
}

static bool goal_met(const struct goal *g, const struct series *r)
{
	struct perf_decision d;

	if (r->n < opts.run.rounds)
		return false;
	switch (g->kind) {
	case GOAL_DECIDE:
		return !perf_decide(r->ratios, r->n, g->base, g->tol, &d) &&
			d.verdict != PERF_UNDECIDED;
	default:
		return true;
	}
}

/*
 * Warm-up rounds, then paired rounds, dgram and seqpacket with the order
 * swapped every round so slow drift lands on both, until @g is met or the
 * budget is spent.
 */
static void run_series(int wl, unsigned int size, const struct goal *g,
		       struct series *r)
{
	const struct perf_budget budget = {
		opts.run.max_rounds, opts.run.budget_s,
	};
	struct sock_ctx c[NR_S] = { { .sv = { -1, -1 } }, { .sv = { -1, -1 } } };
	unsigned int round, k;
	struct wl_count scratch;
	double ns[NR_S], t_extra = 0;
	bool skip = false;
	int st;

	memset(r, 0, sizeof(*r));
	r->status = KSFT_FAIL;
	for (st = 0; st < NR_S; st++)
		if (wl_init(&c[st], s_types[st], wl, size, opts.run.batch,
			    r->reason, sizeof(r->reason), &skip))
			goto out;
	for (round = 0;; round++) {
		bool warm = round < opts.run.warmup;

		if (!warm && r->n == opts.run.rounds)
			t_extra = perf_now_ns();
		if (!warm && r->n >= opts.run.rounds &&
		    !perf_more(goal_met(g, r), r->n,
			       (perf_now_ns() - t_extra) / 1e9, &budget))
			break;
		for (k = 0; k < NR_S; k++) {
			st = (round + k) % NR_S;
			memset(&scratch, 0, sizeof(scratch));
			if (wl_round(&c[st], opts.run.msgs, warm ? &scratch : &r->cnt[st],
				     &ns[st], r->reason, sizeof(r->reason)))
				goto out;
			r->cnt[st].failures += warm ? scratch.failures : 0;
		}
		fprintf(stderr, "# %s %uB %s %u: dgram %.1f seqpacket %.1f ns/msg\n",
			wl_names[wl], size, warm ? "warm-up" : "round",
			warm ? round + 1 : (unsigned int)r->n + 1,
			ns[S_DGRAM], ns[S_SEQPACKET]);
		if (warm)
			continue;
		r->ns[S_DGRAM][r->n] = ns[S_DGRAM];
		r->ns[S_SEQPACKET][r->n] = ns[S_SEQPACKET];
		if (perf_ratios(&ns[S_DGRAM], &ns[S_SEQPACKET], 1,
				&r->ratios[r->n])) {
			snprintf(r->reason, sizeof(r->reason),
				 "seqpacket round took no time");
			goto out;
		}
		r->n++;
	}
	r->extra_s = (perf_now_ns() - t_extra) / 1e9;
	r->status = KSFT_PASS;
out:
	if (skip)
		r->status = KSFT_SKIP;
	for (st = 0; st < NR_S; st++)
		wl_free(&c[st]);
}

/*
 * Confined to @prof in a child, whose label the sockets must be created
 * under to carry it; unconfined (NULL) for a recorded run of its own.
 */
static void run_in_child(int wl, unsigned int size, const char *prof,
			 struct series *shared)
{
	const struct goal none = { GOAL_NONE, 0, 0 };
	char label[256];
	int status, ret;
	pid_t pid;

	memset(shared, 0, sizeof(*shared));
	shared->status = KSFT_FAIL;
	snprintf(shared->reason, sizeof(shared->reason), "child gave no result");
	pid = fork();
	if (pid < 0) {
		snprintf(shared->reason, sizeof(shared->reason), "fork: %s",
			 strerror(errno));
		return;
	}
	if (pid == 0) {
		ret = prof ? aa_confine(prof) : 0;
		if (ret) {
			snprintf(shared->reason, sizeof(shared->reason),
				 "changeprofile %s: %s", prof, strerror(-ret));
			_exit(0);
		}
		if (prof && aa_check_label(prof, false)) {
			aa_task_label(label, sizeof(label));
			snprintf(shared->reason, sizeof(shared->reason),
				 "label after changeprofile is '%.200s'", label);
			_exit(0);
		}
		run_series(wl, size, &none, shared);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		shared->status = KSFT_FAIL;
		snprintf(shared->reason, sizeof(shared->reason),
			 "child died (status %#x)", (unsigned int)status);
	}
}

static void compute(const struct series *r, struct stats *st)
{
	struct perf_summary d;
	int s;

	for (s = 0; s < NR_S; s++) {
		perf_summarize(r->ns[s], r->n, &st->sum[s]);
		perf_summarize(r->ns[s] + 1, r->n - 1, &d);
		st->drop1[s] = d.mean;
	}
	perf_mean_ci(r->ratios, r->n, &st->ratio);
}

static bool report_series(int v, int wl, unsigned int size,
			  const struct series *r, struct stats *st)
{
	unsigned long long ok, bad;
	struct perf_json_series js;
	char tag[96], msg[256], line[512];
	int s;

	snprintf(tag, sizeof(tag), "%s %s %uB", v_names[v], wl_names[wl], size);
	if (r->status != KSFT_PASS) {
		perf_json_not_run(v_names[v], wl_names[wl], size,
				  r->status == KSFT_SKIP ? "skip" : "fail",
				  r->reason);
		result(r->status, tag, r->reason);
		return false;
	}
	compute(r, st);
	for (s = 0; s < NR_S; s++) {
		snprintf(line, sizeof(line),
			 "%s %s: mean %.2f median %.2f min %.2f stdev %.2f cv %.3f%% ns/msg; without round 1: mean %.2f",
			 tag, s_names[s], st->sum[s].mean, st->sum[s].median,
			 st->sum[s].min, st->sum[s].stdev,
			 st->sum[s].cv * 100, st->drop1[s]);
		ksft_print_msg("%s\n", line);
		js = (struct perf_json_series) {
			v_names[v], wl_names[wl], s_names[s], size, r->ns[s],
			&st->sum[s], st->drop1[s], &st->ratio, &r->cnt[s],
		};
		perf_json_series(&js);
	}
	snprintf(line, sizeof(line),
		 "%s dgram/seqpacket ratio %.4f, 95%% t-interval [%.4f, %.4f] over %zu paired rounds",
		 tag, st->ratio.mean, st->ratio.lo, st->ratio.hi, r->n);
	ksft_print_msg("%s\n", line);
	ok = r->cnt[0].validated + r->cnt[1].validated;
	bad = r->cnt[0].failures + r->cnt[1].failures;
	if (bad) {
		snprintf(msg, sizeof(msg),
			 "%llu validation failures (%llu messages ok)", bad, ok);
		result(KSFT_FAIL, tag, msg);
		return false;
	}
	snprintf(msg, sizeof(msg),
		 "%llu messages validated, dgram %.1f seqpacket %.1f ns/msg, ratio %.4f",
		 ok, st->sum[S_DGRAM].mean, st->sum[S_SEQPACKET].mean,
		 st->ratio.mean);
	result(KSFT_PASS, tag, msg);
	return true;
}

/*
 * The confined variants: the same series under an OLD-ABI ("network
 * unix") and a NEW-ABI ("unix") profile, reported and never judged, since
 * a baseline holds the unconfined ratio only.
 */
static struct aa_policy *policy;
static const char *profile;

static void variant_teardown(void)
{
	aa_policy_free(policy);
	policy = NULL;
	profile = NULL;
}

/* Loads the variant's profile, for run_in_child(). */
static const char *variant_setup(int v, char *reason, size_t rlen)
{
	static const char * const rules[NR_V] = {
		[V_OLD] = "  file,\n  network unix,\n",
		[V_NEW] = "  file,\n  unix,\n",
	};
	enum aa_abi abi = v == V_OLD ? AA_ABI_OLD : AA_ABI_NEW;
	bool abis[AA_ABI_COUNT] = { false };
	char err[PERF_ERR_MAX];

	if (env.aa.skip[abi][0])
		return env.aa.skip[abi];
#ifndef HAVE_LIBAPPARMOR
	return "built without libapparmor (pkg-config libapparmor): cannot change profile";
#endif
	aa_cleanup_stale(PROFILE_PREFIX);
	policy = aa_policy_new(PROFILE_PREFIX, err, sizeof(err));
	if (!policy) {
		snprintf(reason, rlen, "%s", err);
		return reason;
	}
	profile = aa_policy_add(policy, abi, v_names[v], rules[v]);
	abis[abi] = true;
	if (!profile || aa_policy_load(policy, env.aa.parser, abis, err,
				       sizeof(err))) {
		snprintf(reason, rlen, "loading the %s profile failed: %.400s",
			 v_names[v], profile ? err : "out of memory");
		variant_teardown();
		return reason;
	}
	return NULL;
}

/* This run's baseline: as loaded, or as --record and --add-run fill it. */
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

static void load_baseline(void)
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

static void measure_unconfined(int wl, unsigned int size,
			       struct series *shared)
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
	result(code, tag, msg);
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

static void check_baseline(int wl, unsigned int size, bool usable,
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
	result(check_code(c.verdict), tag, c.reason);
}

static int store_baseline(char *err, size_t errlen)
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

/*
 * Pin to one CPU so that migrations do not land inside a timed batch; the
 * highest allowed CPU by default, as seccomp_benchmark does, because CPU 0
 * tends to take more interrupts.
 */
static void pin_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_getaffinity");
	if (opts.run.cpu < 0) {
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
		opts.run.cpu = cpu;
	} else if (!CPU_ISSET(opts.run.cpu, &set)) {
		fprintf(stderr, "af_unix_send_perf: invalid --cpu '%d': not in the allowed set\n",
			opts.run.cpu);
		exit(KSFT_FAIL);
	}
	CPU_ZERO(&set);
	CPU_SET(opts.run.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_setaffinity");
	ksft_print_msg("pinned to CPU %d\n", opts.run.cpu);
}

static void run_variant(int v, struct series *shared)
{
	const char *skip = NULL;
	char reason[512];
	struct stats st;
	unsigned int i, size;
	bool usable;
	int wl;

	if (v != V_UNCONFINED)
		skip = variant_setup(v, reason, sizeof(reason));
	for (i = 0; i < opts.nr_sizes; i++) {
		size = opts.sizes[i];
		for (wl = 0; wl < NR_WL; wl++) {
			if (!(opts.wl_mask & (1U << wl)))
				continue;
			memset(&st, 0, sizeof(st));
			if (skip) {
				shared->status = KSFT_SKIP;
				snprintf(shared->reason, sizeof(shared->reason),
					 "%.250s", skip);
				report_series(v, wl, size, shared, &st);
				continue;
			}
			if (v == V_UNCONFINED)
				measure_unconfined(wl, size, shared);
			else
				run_in_child(wl, size, profile, shared);
			usable = report_series(v, wl, size, shared, &st);
			if (v == V_UNCONFINED)
				check_baseline(wl, size, usable, shared, &st);
		}
	}
	if (v != V_UNCONFINED && !skip)
		variant_teardown();
}

int main(int argc, char **argv)
{
	char err[PERF_ERR_MAX], line[256];
	unsigned int per, plan;
	struct series *shared;
	double t0 = perf_now_ns();
	int v;

	parse_opts(argc, argv);
	ksft_print_header();
	perf_env_probe(&env);
	if (env.debug[0])
		ksft_exit_skip("a debug kernel (%s): its timings are not the kernel's\n",
			       env.debug);
	/* the ratio is its own control, a slow machine only needs more time */
	if (env.machine_slow && !opts.budget_set)
		opts.run.budget_s *= SLOW_BUDGET;
	per = opts.nr_sizes * __builtin_popcount(opts.wl_mask);
	plan = per * __builtin_popcount(opts.v_mask);
	if (opts.v_mask & (1U << V_UNCONFINED))
		plan += per;
	ksft_set_plan(plan);
	pin_cpu();
	perf_env_print(&env);
	snprintf(line, sizeof(line),
		 "clock_gettime: %.1f ns per call, about %.2f ns/msg at batch %u (reported, not subtracted)",
		 env.clock_ns, env.clock_ns / opts.run.batch, opts.run.batch);
	ksft_print_msg("%s\n", line);
	snprintf(line, sizeof(line),
		 "settings: batch %u, %u msgs/round, %u warm-up + %u paired rounds, then up to %u rounds or %g s to decide",
		 opts.run.batch, opts.run.msgs, opts.run.warmup,
		 opts.run.rounds, opts.run.max_rounds, opts.run.budget_s);
	ksft_print_msg("%s\n", line);
	load_baseline();
	if (opts.json)
		perf_json_open(opts.json, &env, &opts.run);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	for (v = 0; v < NR_V; v++)
		if (opts.v_mask & (1U << v))
			run_variant(v, shared);
	perf_json_close();
	if (store_baseline(err, sizeof(err)))
		ksft_exit_fail_msg("storing the baseline failed: %s\n", err);
	ksft_print_msg("total run time %.1f s\n", (perf_now_ns() - t0) / 1e9);
	munmap(shared, sizeof(*shared));
	ksft_finished();
}
