// SPDX-License-Identifier: GPL-2.0
/*
 * Measuring one series of af_unix_send_perf, here or in a child process
 * of its own, and reporting what it measured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "common.h"
#include "policy.h"
#include "perf_verdict.h"
#include "send_perf.h"

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
void run_series(int wl, unsigned int size, const struct goal *g,
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
void run_in_child(int wl, unsigned int size, const char *prof,
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

bool report_series(int v, int wl, unsigned int size,
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
		send_result(r->status, tag, r->reason);
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
		send_result(KSFT_FAIL, tag, msg);
		return false;
	}
	snprintf(msg, sizeof(msg),
		 "%llu messages validated, dgram %.1f seqpacket %.1f ns/msg, ratio %.4f",
		 ok, st->sum[S_DGRAM].mean, st->sum[S_SEQPACKET].mean,
		 st->ratio.mean);
	send_result(KSFT_PASS, tag, msg);
	return true;
}
