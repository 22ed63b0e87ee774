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
 * Where things are: here, main() (the plan, each variant in turn) and
 * the one place results are counted; the program's own files, which
 * send_perf.h ties together,
 *   send_opts.c      the options and their defaults
 *   send_series.c    measuring a series, here or in a child under a
 *                    profile, and reporting what it measured
 *   send_baseline.c  the baseline in this run: loading it, --record and
 *                    --add-run, the check's result line and JSON, storing
 *   send_confined.c  the OLD- and NEW-ABI profiles of the variants
 *   send_workload.c  the timed sends and the checking of each message
 * and what it is built on,
 *   perf_check.c     the check against a baseline entry, decided whole
 *                    before anything is printed
 *   perf_verdict.c   the rule and the tolerance; perf_stats.c the means
 *                    and intervals
 *   perf_baseline.c  the baseline file; perf_parse.c strict numbers
 *   perf_env.c       what the run is on; perf_json.c --json
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest.h"
#include "perf_baseline.h"
#include "send_perf.h"

struct perf_env env;

void send_result(int code, const char *tag, const char *msg)
{
	if (code == KSFT_PASS)
		ksft_test_result_pass("%s: %s\n", tag, msg);
	else if (code == KSFT_SKIP)
		ksft_test_result_skip("%s: %s\n", tag, msg);
	else
		ksft_test_result_fail("%s: %s\n", tag, msg);
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
				measure_confined(wl, size, shared);
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
