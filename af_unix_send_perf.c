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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <sched.h>
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
#include "perf_env.h"
#include "perf_json.h"
#include "perf_parse.h"
#include "perf_verdict.h"
#include "send_workload.h"

#define BASELINE_DIR	"/var/lib/apparmor-selftests"
#define MAX_SIZES	16
/* What KSFT_MACHINE_SLOW=yes multiplies the time budget by. */
#define SLOW_BUDGET	10

/* send(), a syscall per message, is opt-in to keep the default run short */
#define WL_DEFAULT	((1U << WL_SENDMMSG) | (1U << WL_IOURING))
enum { V_UNCONFINED, V_OLD, V_NEW, NR_V };
static const char * const v_names[NR_V] = { "unconfined", "old-abi", "new-abi" };

static struct opts {
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
} o = {
	.run = {
		.cpu = -1, .batch = 32, .msgs = 8192,
		.rounds = PERF_DEFAULT_ROUNDS,
		.max_rounds = PERF_DEFAULT_MAX_ROUNDS, .warmup = 2,
		.budget_s = PERF_DEFAULT_BUDGET_S,
		.tolerance = NAN,
	},
	.runs = PERF_DEFAULT_RUNS,
	.sizes = { 128 }, .nr_sizes = 1,
	.wl_mask = WL_DEFAULT, .v_mask = (1U << NR_V) - 1,
};

static struct perf_env env;

/* --- options ------------------------------------------------------------ */

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: af_unix_send_perf [options]\n"
		"  --sizes LIST       message sizes in bytes, %d..%d (default 128)\n"
		"  --batch N          messages per send batch, 1..%d (default 32)\n"
		"  --msgs N           messages per round and socket type (default 8192)\n"
		"  --warmup N         warm-up rounds, 0..1000 (default 2)\n"
		"  --rounds N         paired rounds before a verdict, 2..%d (default %d)\n"
		"  --max-rounds N     paired rounds to decide at most (default %d)\n"
		"  --budget SEC       time to decide at most, per verdict (default %g,\n"
		"                     x%d with KSFT_MACHINE_SLOW=yes)\n"
		"  --cpu N            CPU to pin to (default: highest allowed)\n"
		"  --workloads LIST   sendmmsg,io_uring,send (default sendmmsg,io_uring)\n"
		"  --variants LIST    unconfined,old-abi,new-abi (default all)\n"
		"  --json PATH        write the results to PATH (format %s)\n"
		"  --baseline PATH    baseline file (default %s/af_unix_send_perf.<machine-id>.baseline)\n"
		"  --tolerance PCT    allowed ratio excess over the baseline, (0,100]\n"
		"                     (default: from the spread of the baseline's runs,\n"
		"                     %g..%g)\n"
		"  --record           measure --runs runs, each in a process of its own,\n"
		"                     and store them as a new baseline\n"
		"  --add-run          measure one run, add it to the baseline (or start one)\n"
		"  --runs N           runs of a baseline, %d..%d (default %d): --record\n"
		"                     measures them, --add-run judges it complete at them\n"
		"Bad options exit 1 (KSFT_FAIL).\n",
		WL_MIN_SIZE, WL_MAX_SIZE, WL_MAX_BATCH, PERF_MAX_ROUNDS,
		PERF_DEFAULT_ROUNDS, PERF_DEFAULT_MAX_ROUNDS,
		PERF_DEFAULT_BUDGET_S, SLOW_BUDGET, PERF_JSON_FORMAT,
		BASELINE_DIR, PERF_TOL_FLOOR * 100, PERF_TOL_CAP * 100,
		PERF_MIN_RUNS, PERF_MAX_RUNS, PERF_DEFAULT_RUNS);
}

static void __noreturn bad_opt(const char *name, const char *val,
			       const char *why)
{
	fprintf(stderr, "af_unix_send_perf: invalid --%s '%s': %s\n", name,
		val, why);
	exit(KSFT_FAIL);
}

static unsigned int opt_uint(const char *name, const char *val,
			     unsigned long long min, unsigned long long max)
{
	unsigned long long v;
	char why[64];

	if (perf_parse_uint(val, min, max, &v)) {
		snprintf(why, sizeof(why), "expected an integer %llu..%llu",
			 min, max);
		bad_opt(name, val, why);
	}
	return v;
}

static unsigned int opt_names(const char *name, const char *val,
			      const char * const *names, int nr)
{
	char buf[256], *tok, *save;
	unsigned int mask = 0;
	int i;

	if (!*val || strlen(val) >= sizeof(buf) || val[0] == ',' ||
	    val[strlen(val) - 1] == ',' || strstr(val, ",,"))
		bad_opt(name, val, "expected a comma separated list");
	memcpy(buf, val, strlen(val) + 1);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr && strcmp(tok, names[i]); i++)
			;
		if (i == nr)
			bad_opt(name, val, "unknown name in list");
		mask |= 1U << i;
	}
	return mask;
}

static void parse_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "max-rounds", required_argument, NULL, 'M' },
		{ "budget", required_argument, NULL, 'T' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "msgs", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "workloads", required_argument, NULL, 'W' },
		{ "variants", required_argument, NULL, 'V' },
		{ "json", required_argument, NULL, 'j' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "record", no_argument, NULL, 'R' },
		{ "add-run", no_argument, NULL, 'A' },
		{ "runs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool max_set = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (perf_parse_uint_list(optarg, WL_MIN_SIZE, WL_MAX_SIZE,
						 o.sizes, MAX_SIZES, &o.nr_sizes))
				bad_opt("sizes", optarg,
					"expected up to 16 sizes 8..65536, comma separated");
			break;
		case 'b':
			o.run.batch = opt_uint("batch", optarg, 1, WL_MAX_BATCH);
			break;
		case 'r':
			o.run.rounds = opt_uint("rounds", optarg, 2, PERF_MAX_ROUNDS);
			break;
		case 'M':
			o.run.max_rounds = opt_uint("max-rounds", optarg, 2,
						    PERF_MAX_ROUNDS);
			max_set = true;
			break;
		case 'T':
			if (perf_parse_double(optarg, 0, 3600, &o.run.budget_s))
				bad_opt("budget", optarg, "expected seconds, 0..3600");
			o.budget_set = true;
			break;
		case 'w':
			o.run.warmup = opt_uint("warmup", optarg, 0, 1000);
			break;
		case 'm':
			o.run.msgs = opt_uint("msgs", optarg, 1, 1U << 30);
			break;
		case 'c':
			o.run.cpu = opt_uint("cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'W':
			o.wl_mask = opt_names("workloads", optarg, wl_names, NR_WL);
			break;
		case 'V':
			o.v_mask = opt_names("variants", optarg, v_names, NR_V);
			break;
		case 'j':
			if (!*optarg)
				bad_opt("json", optarg, "empty path");
			o.json = optarg;
			break;
		case 'B':
			if (!*optarg || strlen(optarg) >= sizeof(o.baseline))
				bad_opt("baseline", optarg, "empty or too long");
			memcpy(o.baseline, optarg, strlen(optarg) + 1);
			break;
		case 't':
			if (perf_parse_double(optarg, 1e-9, 100, &o.run.tolerance))
				bad_opt("tolerance", optarg,
					"expected a percentage in (0,100]");
			o.run.tolerance /= 100;
			o.tol_set = true;
			break;
		case 'R':
		case 'A':
			if (o.record)
				bad_opt(c == 'R' ? "record" : "add-run", "",
					"--record and --add-run exclude each other");
			o.record = c == 'R' ? REC_NEW : REC_ADD;
			break;
		case 'n':
			o.runs = opt_uint("runs", optarg, PERF_MIN_RUNS,
					  PERF_MAX_RUNS);
			break;
		case 'h':
			print_usage(stdout);
			exit(KSFT_PASS);
		default:
			print_usage(stderr);
			exit(KSFT_FAIL);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "af_unix_send_perf: unexpected argument '%s'\n",
			argv[optind]);
		exit(KSFT_FAIL);
	}
	if (!max_set && o.run.max_rounds < o.run.rounds)
		o.run.max_rounds = o.run.rounds;
	if (o.run.max_rounds < o.run.rounds)
		bad_opt("max-rounds", "", "must not be below --rounds");
	if (o.record && !(o.v_mask & (1U << V_UNCONFINED))) {
		fprintf(stderr,
			"af_unix_send_perf: --record and --add-run need the unconfined variant\n");
		exit(KSFT_FAIL);
	}
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
	if (o.run.cpu < 0) {
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
		o.run.cpu = cpu;
	} else if (!CPU_ISSET(o.run.cpu, &set)) {
		fprintf(stderr, "af_unix_send_perf: invalid --cpu '%d': not in the allowed set\n",
			o.run.cpu);
		exit(KSFT_FAIL);
	}
	CPU_ZERO(&set);
	CPU_SET(o.run.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_setaffinity");
	ksft_print_msg("pinned to CPU %d\n", o.run.cpu);
}

/* --- measuring ----------------------------------------------------------- */

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

static bool goal_met(const struct goal *g, const struct series *r)
{
	struct perf_decision d;

	if (r->n < o.run.rounds)
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
		o.run.max_rounds, o.run.budget_s,
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
		if (wl_init(&c[st], s_types[st], wl, size, o.run.batch,
			    r->reason, sizeof(r->reason), &skip))
			goto out;
	for (round = 0;; round++) {
		bool warm = round < o.run.warmup;

		if (!warm && r->n == o.run.rounds)
			t_extra = perf_now_ns();
		if (!warm && r->n >= o.run.rounds &&
		    !perf_more(goal_met(g, r), r->n,
			       (perf_now_ns() - t_extra) / 1e9, &budget))
			break;
		for (k = 0; k < NR_S; k++) {
			st = (round + k) % NR_S;
			memset(&scratch, 0, sizeof(scratch));
			if (wl_round(&c[st], o.run.msgs, warm ? &scratch : &r->cnt[st],
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

/* --- reporting ----------------------------------------------------------- */

/* "ok N TAG: MSG" in the form the other results of this program have. */
static void result(int code, const char *tag, const char *msg)
{
	if (code == KSFT_PASS)
		ksft_test_result_pass("%s: %s\n", tag, msg);
	else if (code == KSFT_SKIP)
		ksft_test_result_skip("%s: %s\n", tag, msg);
	else
		ksft_test_result_fail("%s: %s\n", tag, msg);
}

struct stats {
	struct perf_summary sum[NR_S];
	double drop1[NR_S];		/* mean without the first round */
	struct perf_ci ratio;
};

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

/* Reports one measured series; returns true when it can be judged. */
static bool report_series(int v, int wl, unsigned int size,
			  const struct series *r, struct stats *st)
{
	unsigned long long ok, bad;
	struct perf_json_series js;
	char tag[96];
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
		ksft_print_msg(
			"%s %s: mean %.2f median %.2f min %.2f stdev %.2f cv %.3f%% ns/msg; without round 1: mean %.2f\n",
			tag, s_names[s], st->sum[s].mean, st->sum[s].median,
			st->sum[s].min, st->sum[s].stdev,
			st->sum[s].cv * 100, st->drop1[s]);
		js = (struct perf_json_series) {
			v_names[v], wl_names[wl], s_names[s], size, r->ns[s],
			&st->sum[s], st->drop1[s], &st->ratio, &r->cnt[s],
		};
		perf_json_series(&js);
	}
	ksft_print_msg(
		"%s dgram/seqpacket ratio %.4f, 95%% t-interval [%.4f, %.4f] over %zu paired rounds\n",
		tag, st->ratio.mean, st->ratio.lo, st->ratio.hi, r->n);
	ok = r->cnt[0].validated + r->cnt[1].validated;
	bad = r->cnt[0].failures + r->cnt[1].failures;
	if (bad) {
		ksft_test_result_fail("%s: %llu validation failures (%llu messages ok)\n",
				      tag, bad, ok);
		return false;
	}
	ksft_test_result_pass(
		"%s: %llu messages validated, dgram %.1f seqpacket %.1f ns/msg, ratio %.4f\n",
		tag, ok, st->sum[S_DGRAM].mean,
		st->sum[S_SEQPACKET].mean, st->ratio.mean);
	return true;
}

/* --- the baseline -------------------------------------------------------- */

static struct {
	struct perf_baseline b;
	enum { B_OK, B_MISSING, B_SKIP, B_FAIL, B_RECORD } state;
	char msg[4096 + PERF_ERR_MAX + 8];
	bool record_failed;
	/* --record: the runs of the series being recorded */
	size_t nr_runs;
	struct perf_run_result runs[PERF_MAX_RUNS];
} base;

static struct perf_settings cur_settings(void)
{
	struct perf_settings s = {
		.batch = o.run.batch, .msgs_per_round = o.run.msgs,
		.warmup = o.run.warmup, .icount = env.icount,
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

	if (base.state == B_OK &&
	    perf_baseline_match(&base.b, &env.id, &env.sys, set, err,
				sizeof(err)) != PERF_MATCH)
		snprintf(base.msg, sizeof(base.msg), "%s: %s", o.baseline, err);
	else if (base.state == B_OK &&
		 strcmp(base.b.sys.kernel, env.uts.release))
		snprintf(base.msg, sizeof(base.msg),
			 "%s: recorded on kernel %s, this is %s: add runs on the kernel it was started on",
			 o.baseline, base.b.sys.kernel, env.uts.release);
	else if (base.state == B_OK || base.state == B_MISSING)
		base.state = B_RECORD;
	if (base.state != B_RECORD)
		base.state = B_FAIL;
}

static void load_baseline(void)
{
	struct perf_settings set = cur_settings();
	char err[PERF_ERR_MAX];
	int ret;

	if (!o.baseline[0])
		snprintf(o.baseline, sizeof(o.baseline),
			 BASELINE_DIR "/af_unix_send_perf.%s.baseline",
			 env.id.machine_id);
	ksft_print_msg("baseline: %s\n", o.baseline);
	if (o.record)
		ksft_print_msg(
			"recording on kernel %s: a baseline recorded on a regressed kernel accepts that regression, so record on one known to be good\n",
			env.uts.release);
	ret = o.record == REC_NEW ? -ENOENT :
		perf_baseline_load(o.baseline, &base.b, base.msg,
				   sizeof(base.msg));
	base.state = ret == -ENOENT ? B_MISSING : ret ? B_FAIL : B_OK;
	if (!ret)
		ksft_print_msg("baseline recorded on kernel %s\n",
			       base.b.sys.kernel);
	if (o.record)
		add_to(&set);
	if (base.state == B_RECORD && ret) {
		memset(&base.b, 0, sizeof(base.b));
		base.b.id = env.id;
		base.b.sys = env.sys;
		base.b.set = set;
	}
	if (o.record)
		return;
	if (ret)
		return;
	switch (perf_baseline_match(&base.b, &env.id, &env.sys, &set, err,
				    sizeof(err))) {
	case PERF_MATCH:
		return;
	case PERF_OTHER_SETTINGS:
		base.state = B_FAIL;
		break;
	default:
		base.state = B_SKIP;
		break;
	}
	snprintf(base.msg, sizeof(base.msg), "%s: %s", o.baseline, err);
}

/*
 * The tolerance a check against @e uses: --tolerance, else the one its
 * runs' spread gives (see perf_tolerance()).
 */
static int entry_tolerance(const struct perf_entry *e, double *tol)
{
	if (o.tol_set) {
		*tol = o.run.tolerance;
		return 0;
	}
	return perf_tolerance(e->nr_runs, e->spread, tol);
}

/* What the unconfined series of @wl and @size must measure until. */
static struct goal series_goal(int wl, unsigned int size)
{
	const struct perf_entry *e;
	struct goal g = { GOAL_NONE, 0, 0 };

	e = base.state == B_OK ? perf_baseline_find(&base.b, wl_names[wl], size) :
		NULL;
	if (e && !entry_tolerance(e, &g.tol)) {
		g.kind = GOAL_DECIDE;
		g.base = e->ratio;
	}
	return g;
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

/* "catches >= +X%" of a verdict line, from perf_mde(). */
static const char *mde_text(double mde, char *buf, size_t len)
{
	if (isnan(mde))
		snprintf(buf, len, "catches: unknown, the baseline has one run");
	else
		snprintf(buf, len, "catches >= +%.2f%% (95%% power)", mde * 100);
	return buf;
}

/* The runs of this series, as --record or --add-run measured them. */
static size_t series_runs(const struct stats *st, struct perf_run_result *runs)
{
	if (o.record == REC_NEW) {
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
	if (o.record == REC_NEW)
		snprintf(what, sizeof(what),
			 "%zu runs recorded, each a process of its own: ratio %.4f, spread %.3f%%",
			 e->nr_runs, e->ratio, e->spread * 100);
	else
		snprintf(what, sizeof(what),
			 "run %zu recorded, ratio %.4f [%.4f, %.4f] after %zu rounds; baseline %.4f over %zu runs, spread %.3f%%",
			 e->nr_runs, st->ratio.mean, st->ratio.lo, st->ratio.hi,
			 r->n, e->ratio, e->nr_runs, e->spread * 100);
	if (e->nr_runs < o.runs) {
		verdict(jv, KSFT_PASS, tag, "%s; complete at %u runs", what,
			o.runs);
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
		tol * 100, mde_text(jv->catches, buf, sizeof(buf)));
}

/* The verdict of an unconfined series against the baseline. */
static void check_baseline(int wl, unsigned int size, bool usable,
			   const struct series *r, const struct stats *st)
{
	struct perf_json_verdict jv = {
		wl_names[wl], size, "skip", NULL, o.run.tolerance, NAN, NAN,
		NAN, 0, NAN, usable ? &st->ratio : NULL,
		usable ? r->extra_s : 0,
	};
	const struct perf_entry *e;
	struct perf_decision d;
	char tag[96], buf[64];
	double tol;
	int ret;

	snprintf(tag, sizeof(tag), "unconfined %s %uB vs baseline", wl_names[wl],
		 size);
	if (!usable) {
		base.record_failed = true;
		verdict(&jv, KSFT_SKIP, tag, "no valid measurement");
		return;
	}
	if (env.aa.enabled && !env.unconfined) {
		verdict(&jv, KSFT_SKIP, tag,
			"task is confined ('%s'), run it unconfined", env.label);
		return;
	}
	switch (base.state) {
	case B_RECORD:
		record_entry(tag, wl, size, r, st, &jv);
		return;
	case B_MISSING:
		verdict(&jv, KSFT_SKIP, tag,
			"no baseline for this machine (%s); record one with ./run_perf.sh record",
			base.msg);
		return;
	case B_SKIP:
		verdict(&jv, KSFT_SKIP, tag, "cannot be judged here: %s",
			base.msg);
		return;
	case B_FAIL:
		jv.verdict = "fail";
		verdict(&jv, KSFT_FAIL, tag, "bad baseline: %s", base.msg);
		return;
	case B_OK:
		break;
	}
	e = perf_baseline_find(&base.b, wl_names[wl], size);
	if (!e) {
		verdict(&jv, KSFT_SKIP, tag,
			"%s has no entry for it; record one with ./run_perf.sh record",
			o.baseline);
		return;
	}
	jv.baseline_ratio = e->ratio;
	jv.baseline_runs = e->nr_runs;
	jv.baseline_spread = e->spread;
	ret = entry_tolerance(e, &tol);
	if (ret == -EINVAL) {
		jv.verdict = "fail";
		verdict(&jv, KSFT_FAIL, tag,
			"bad baseline: %s has %zu runs of it, a tolerance needs %d (run_perf.sh record takes %d), or give --tolerance",
			o.baseline, e->nr_runs, PERF_MIN_RUNS, PERF_DEFAULT_RUNS);
		return;
	}
	if (ret) {
		verdict(&jv, KSFT_SKIP, tag,
			"baseline too noisy to judge with: its %zu runs spread %.2f%%, a tolerance of %.2f%% over the %g%% cap; record on a quiet machine, or give --tolerance",
			e->nr_runs, e->spread * 100, tol * 100,
			PERF_TOL_CAP * 100);
		return;
	}
	jv.tolerance = tol;
	if (perf_decide(r->ratios, r->n, e->ratio, tol, &d)) {
		jv.verdict = "fail";
		verdict(&jv, KSFT_FAIL, tag, "ratios cannot be judged");
		return;
	}
	jv.limit = d.limit;
	jv.catches = perf_mde(tol, e->nr_runs, e->spread, d.ci.half / e->ratio);
	mde_text(jv.catches, buf, sizeof(buf));
	ksft_print_msg(
		"%s: ratio %.4f [%.4f, %.4f] over %zu rounds (%.1f s past the first %u), baseline %.4f over %zu runs spreading %.3f%%, tolerance %.2f%%%s, limit %.4f; dgram %.1f ns/msg (baseline %.1f)\n",
		tag, d.ci.mean, d.ci.lo, d.ci.hi, r->n, r->extra_s,
		o.run.rounds, e->ratio, e->nr_runs, e->spread * 100, tol * 100,
		o.tol_set ? " (--tolerance)" : "", d.limit,
		st->sum[S_DGRAM].mean, e->dgram_ns);
	jv.verdict = perf_verdict_name(d.verdict);
	if (d.verdict == PERF_PASS)
		verdict(&jv, KSFT_PASS, tag,
			"ratio %.4f within %.2f%% of %.4f (95%% CI high %.4f <= limit %.4f); %s",
			d.ci.mean, tol * 100, e->ratio, d.ci.hi, d.limit, buf);
	else if (d.verdict == PERF_FAIL)
		verdict(&jv, KSFT_FAIL, tag,
			"ratio %.4f (95%% CI low %.4f) exceeds baseline %.4f by more than %.2f%% (limit %.4f); %s",
			d.ci.mean, d.ci.lo, e->ratio, tol * 100, d.limit, buf);
	else
		verdict(&jv, KSFT_SKIP, tag,
			"undecided after %zu rounds and %.1f s (budget %u rounds, %g s): leans to %s, ratio %.4f is %.2f%% %s the limit %.4f, 95%% CI [%.4f, %.4f]; %s",
			r->n, r->extra_s, o.run.max_rounds, o.run.budget_s,
			d.lean_pct > 0 ? "FAIL" : "PASS", d.ci.mean,
			fabs(d.lean_pct), d.lean_pct > 0 ? "above" : "below",
			d.limit, d.ci.lo, d.ci.hi, buf);
}

static void store_baseline(void)
{
	char err[PERF_ERR_MAX];

	if (!o.record || base.state != B_RECORD)
		return;
	if (base.record_failed || !base.b.nr_entries) {
		ksft_print_msg("baseline NOT written: some entries could not be recorded\n");
		return;
	}
	mkdir(BASELINE_DIR, 0755);
	if (perf_baseline_store(o.baseline, &base.b, err, sizeof(err)))
		ksft_exit_fail_msg("storing the baseline failed: %s\n", err);
	ksft_print_msg("baseline with %zu entries, recorded on kernel %s, written to %s\n",
		       base.b.nr_entries, base.b.sys.kernel, o.baseline);
}

/* --- confined variants --------------------------------------------------- */

#define PROFILE_PREFIX "af_unix_send_perf"

static struct aa_policy *policy;
static const char *profile;

static void variant_teardown(void)
{
	aa_policy_free(policy);
	policy = NULL;
	profile = NULL;
}

/* Loads the variant's profile; returns why it cannot run, or NULL. */
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

/*
 * A series in a child process: confined to @prof, whose label the sockets
 * must be created under to carry it, or unconfined (NULL) for a recorded
 * run of its own.
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
	unsigned int i;
	int s;

	for (base.nr_runs = 0, i = 0; i < o.runs; i++) {
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
		ksft_print_msg(
			"%s %uB run %u of %u: ratio %.4f [%.4f, %.4f], dgram %.1f seqpacket %.1f ns/msg\n",
			wl_names[wl], size, i + 1, o.runs, ci.mean, ci.lo,
			ci.hi, d.mean, q.mean);
	}
	memcpy(shared->cnt, total, sizeof(total));
}

/* --- main ---------------------------------------------------------------- */

static void run_variant(int v, struct series *shared)
{
	const char *skip = NULL;
	char reason[512];
	struct stats st;
	struct goal g;
	unsigned int i, size;
	bool usable;
	int wl;

	if (v != V_UNCONFINED)
		skip = variant_setup(v, reason, sizeof(reason));
	for (i = 0; i < o.nr_sizes; i++) {
		size = o.sizes[i];
		for (wl = 0; wl < NR_WL; wl++) {
			if (!(o.wl_mask & (1U << wl)))
				continue;
			memset(&st, 0, sizeof(st));
			if (skip) {
				shared->status = KSFT_SKIP;
				snprintf(shared->reason, sizeof(shared->reason),
					 "%.250s", skip);
				report_series(v, wl, size, shared, &st);
				continue;
			}
			if (v != V_UNCONFINED) {
				run_in_child(wl, size, profile, shared);
			} else if (o.record == REC_NEW && env.sys.apparmor &&
				   base.state == B_RECORD) {
				record_runs(wl, size, shared);
			} else {
				g = series_goal(wl, size);
				run_series(wl, size, &g, shared);
			}
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
	unsigned int per, plan;
	struct series *shared;
	double t0 = perf_now_ns();
	int v;

	parse_opts(argc, argv);
	ksft_print_header();
	perf_env_probe(&env);
	/* the ratio is its own control, a slow machine only needs more time */
	if (env.machine_slow && !o.budget_set)
		o.run.budget_s *= SLOW_BUDGET;
	per = o.nr_sizes * __builtin_popcount(o.wl_mask);
	plan = per * __builtin_popcount(o.v_mask);
	if (o.v_mask & (1U << V_UNCONFINED))
		plan += per;
	ksft_set_plan(plan);
	pin_cpu();
	perf_env_print(&env);
	ksft_print_msg(
		"clock_gettime: %.1f ns per call, about %.2f ns/msg at batch %u (reported, not subtracted)\n",
		env.clock_ns, env.clock_ns / o.run.batch, o.run.batch);
	ksft_print_msg(
		"settings: batch %u, %u msgs/round, %u warm-up + %u paired rounds, then up to %u rounds or %g s to decide\n",
		o.run.batch, o.run.msgs, o.run.warmup, o.run.rounds,
		o.run.max_rounds, o.run.budget_s);
	load_baseline();
	if (o.json)
		perf_json_open(o.json, &env, &o.run);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	for (v = 0; v < NR_V; v++)
		if (o.v_mask & (1U << v))
			run_variant(v, shared);
	perf_json_close();
	store_baseline();
	ksft_print_msg("total run time %.1f s\n", (perf_now_ns() - t0) / 1e9);
	munmap(shared, sizeof(*shared));
	ksft_finished();
}
