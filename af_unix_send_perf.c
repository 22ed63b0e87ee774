// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX datagram send cost under AppArmor: a benchmark that also judges.
 *
 * Kernel commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix
 * sockets when using old abi") dropped the early return for unconfined
 * labels in aa_unix_peer_perm(), so every unconfined SOCK_DGRAM send runs
 * unix_peer_perm() twice.  SOCK_SEQPACKET sends go through the same
 * unix_dgram_sendmsg() but skip security_unix_may_send(), so the
 * dgram/seqpacket ratio of paired rounds is the cost of the hook with the
 * rest of the path as its own control.
 *
 * Every message must arrive whole and in order.  An unconfined series is
 * judged against a baseline of this machine (perf_baseline.h) as
 * perf_verdict.h says.  Absolute ns/msg are printed, never judged.  Under
 * a profile (run_perf.sh confined) the series are named for it, and only
 * measured: a baseline holds the unconfined ratio.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "common.h"
#include "perf_baseline.h"
#include "perf_verdict.h"
#include "send_workload.h"

/* named as checkpatch's logging functions, so long formats stay whole */
#define perf_info	ksft_print_msg
#define BASELINE_DIR	"/var/lib/apparmor-selftests"
#define JSON_FORMAT	"af_unix_send_perf/2"
#define MAX_SIZES	16
#define SLOW_BUDGET	10	/* x the time budget, KSFT_MACHINE_SLOW=yes */

/* Strict: a typo in a setting gives a baseline or verdict of another. */
static struct {
	unsigned int cpu;	/* CPU_SETSIZE: the highest allowed */
	unsigned int rounds, max_rounds, warmup, msgs, runs;
	double budget_s;
	double tolerance;	/* a fraction; NAN: from the baseline */
	unsigned int sizes[MAX_SIZES];
	size_t nr_sizes;
	unsigned int wl_mask;
	const char *json, *baseline;
	bool budget_set;
	enum { REC_NONE, REC_NEW, REC_ADD } record;
} opts = {
	.cpu = CPU_SETSIZE, .msgs = 8192, .rounds = PERF_DEFAULT_ROUNDS,
	.max_rounds = PERF_DEFAULT_MAX_ROUNDS, .warmup = 2,
	.runs = PERF_DEFAULT_RUNS, .budget_s = PERF_DEFAULT_BUDGET_S,
	.tolerance = NAN, .sizes = { 128 }, .nr_sizes = 1,
	/* send(), a syscall per message, is opt-in to keep the run short */
	.wl_mask = (1U << WL_SENDMMSG) | (1U << WL_IOURING),
};

enum { OT_UINT, OT_DOUBLE, OT_SIZES, OT_NAMES, OT_PATH, OT_RECORD };

static const struct {
	const char *name;
	int type;
	void *p;
	double min, max;	/* OT_NAMES: max names in the list */
	const char * const *names;
} ot[] = {
	{ "rounds", OT_UINT, &opts.rounds, 2, PERF_MAX_ROUNDS, NULL },
	{ "max-rounds", OT_UINT, &opts.max_rounds, 2, PERF_MAX_ROUNDS, NULL },
	{ "warmup", OT_UINT, &opts.warmup, 0, 1000, NULL },
	{ "msgs", OT_UINT, &opts.msgs, 1, 1U << 30, NULL },
	{ "cpu", OT_UINT, &opts.cpu, 0, CPU_SETSIZE - 1, NULL },
	{ "runs", OT_UINT, &opts.runs, PERF_MIN_RUNS, PERF_MAX_RUNS, NULL },
	{ "budget", OT_DOUBLE, &opts.budget_s, 0, 3600, NULL },
	/* (0,100]: 1 / 1e9 is the smallest above 0 it takes */
	{ "tolerance", OT_DOUBLE, &opts.tolerance, 1 / 1e9, 100, NULL },
	{ "sizes", OT_SIZES, opts.sizes, WL_MIN_SIZE, WL_MAX_SIZE, NULL },
	{ "workloads", OT_NAMES, &opts.wl_mask, 0, NR_WL, wl_names },
	{ "json", OT_PATH, &opts.json, 0, 0, NULL },
	{ "baseline", OT_PATH, &opts.baseline, 0, 0, NULL },
	{ "record", OT_RECORD, NULL, REC_NEW, 0, NULL },
	{ "add-run", OT_RECORD, NULL, REC_ADD, 0, NULL },
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: af_unix_send_perf [options]\n"
		"  --sizes LIST      message sizes, %d..%d B (default 128)\n"
		"  --workloads LIST  sendmmsg,io_uring,send (default sendmmsg,io_uring)\n"
		"  --msgs N          messages per round and socket type (default 8192)\n"
		"  --warmup N        warm-up rounds, 0..1000 (default 2)\n"
		"  --rounds N        paired rounds before a verdict, 2..%d (default %d)\n"
		"  --max-rounds N    paired rounds to decide at most (default %d)\n"
		"  --budget SEC      time to decide at most, per verdict (default %g,\n"
		"                    x%d with KSFT_MACHINE_SLOW=yes)\n"
		"  --cpu N           CPU to pin to (default: highest allowed)\n"
		"  --json PATH       write the results to PATH (format %s)\n"
		"  --baseline PATH   default %s/af_unix_send_perf.<machine-id>.baseline\n"
		"  --tolerance PCT   allowed ratio excess over the baseline, (0,100]\n"
		"                    (default: from the spread of its runs, %g..%g)\n"
		"  --record          start a new baseline with this run\n"
		"  --add-run         add this run to the baseline (or start one)\n"
		"  --runs N          runs a baseline is complete at, %d..%d (default %d)\n"
		"Bad options exit 1 (KSFT_FAIL).\n",
		WL_MIN_SIZE, WL_MAX_SIZE, PERF_MAX_ROUNDS, PERF_DEFAULT_ROUNDS,
		PERF_DEFAULT_MAX_ROUNDS, PERF_DEFAULT_BUDGET_S, SLOW_BUDGET,
		JSON_FORMAT, BASELINE_DIR, PERF_TOL_FLOOR * 100,
		PERF_TOL_CAP * 100, PERF_MIN_RUNS, PERF_MAX_RUNS,
		PERF_DEFAULT_RUNS);
}

static void __noreturn bad_opt(const char *name, const char *why)
{
	fprintf(stderr, "af_unix_send_perf: invalid --%s '%s': %s\n", name,
		optarg ?: "", why);
	exit(KSFT_FAIL);
}

static unsigned int opt_names(const char * const *names, int nr)
{
	const char *s = optarg, *end;
	unsigned int mask = 0;
	int i;

	do {
		end = strchrnul(s, ',');
		for (i = 0; i < nr && (strncmp(s, names[i], end - s) ||
				       names[i][end - s]); i++)
			;
		if (i == nr)
			return 0;
		mask |= 1U << i;
		s = end + 1;
	} while (*end);
	return mask;
}

static void parse_opts(int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(ot) + 2] = { { 0 } };
	unsigned long long v;
	bool max_set = false;
	char why[64];
	size_t i;
	int c;

	for (i = 0; i < ARRAY_SIZE(ot); i++)
		lo[i] = (struct option){ ot[i].name, ot[i].type == OT_RECORD ?
			no_argument : required_argument, NULL, i };
	lo[i] = (struct option){ "help", no_argument, NULL, 'h' };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c < 0 || c >= (int)ARRAY_SIZE(ot)) {
			print_usage(c == 'h' ? stdout : stderr);
			exit(c == 'h' ? KSFT_PASS : KSFT_FAIL);
		}
		snprintf(why, sizeof(why), "expected %s %.10g..%.10g",
			 ot[c].type == OT_UINT ? "an integer" : "a number",
			 ot[c].min, ot[c].max);
		switch (ot[c].type) {
		case OT_UINT:
			if (perf_parse_uint(optarg, ot[c].min, ot[c].max, &v))
				bad_opt(ot[c].name, why);
			*(unsigned int *)ot[c].p = v;
			break;
		case OT_DOUBLE:
			if (perf_parse_double(optarg, ot[c].min, ot[c].max, ot[c].p))
				bad_opt(ot[c].name, why);
			break;
		case OT_SIZES:
			if (perf_parse_uint_list(optarg, ot[c].min, ot[c].max,
						 opts.sizes, MAX_SIZES, &opts.nr_sizes))
				bad_opt("sizes", "expected up to 16 sizes 8..65536");
			break;
		case OT_NAMES:
			*(unsigned int *)ot[c].p = opt_names(ot[c].names, ot[c].max);
			if (!*(unsigned int *)ot[c].p)
				bad_opt(ot[c].name, "expected known names, comma separated");
			break;
		case OT_PATH:
			if (!*optarg)
				bad_opt(ot[c].name, "empty path");
			*(const char **)ot[c].p = optarg;
			break;
		case OT_RECORD:
			if (opts.record)
				bad_opt(ot[c].name, "--record and --add-run exclude each other");
			opts.record = ot[c].min;
			break;
		}
		opts.budget_set |= ot[c].p == &opts.budget_s;
		max_set |= ot[c].p == &opts.max_rounds;
	}
	if (optind < argc) {
		fprintf(stderr, "af_unix_send_perf: unexpected argument '%s'\n",
			argv[optind]);
		exit(KSFT_FAIL);
	}
	optarg = NULL;		/* what follows is of no one option */
	opts.tolerance /= 100;
	/* --max-rounds follows --rounds unless given */
	if (!max_set && opts.max_rounds < opts.rounds)
		opts.max_rounds = opts.rounds;
	if (opts.max_rounds < opts.rounds)
		bad_opt("max-rounds", "must not be below --rounds");
}

static struct wl_env env;
/* The label the series run under, without its mode; judged unconfined. */
static char variant[256];
static bool confined;

static void env_print(void)
{
	perf_info("kernel: %s %s; lsm: %s; apparmor %s, label: %s\n",
		  env.uts.release, env.uts.version, env.sys.lsm,
		  env.sys.apparmor ? "enabled" : "not enabled", env.label);
	perf_info("cpu: %s; machine-id: %s\n", env.id.cpu_model,
		  env.id.machine_id);
	perf_info("clocksource: %s; preempt: %s; icount: %s (kernel command line word %s); KSFT_MACHINE_SLOW: %s\n",
		  env.clocksource, env.preempt, env.icount ? "yes" : "no",
		  ICOUNT_WORD, env.machine_slow ? "yes" : "no");
	perf_info("settings: batch %u, %u msgs/round, %u warm-up + %u paired rounds, then up to %u rounds or %g s to decide\n",
		  WL_BATCH, opts.msgs, opts.warmup, opts.rounds, opts.max_rounds,
		  opts.budget_s);
}

/*
 * --json: the fields run_perf.sh and CI read.  Each list goes to a memory
 * stream as it comes, and is written whole at the end.
 */
enum { J_SERIES, J_NOT_RUN, J_VERDICTS, NR_J };
static const char * const j_names[NR_J] = { "series", "not_run", "verdicts" };
static FILE *jl[NR_J], *jf;	/* the lists, the item being written */
static char *jbuf[NR_J];
static size_t jlen[NR_J];
static const char *jsep;

static void jstr(const char *key, const char *s)
{
	fprintf(jf, "%s\"%s\": \"", jsep, key);
	jsep = ", ";
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(jf, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(jf, "\\u%04x", *s);
		else
			fputc(*s, jf);
	}
	fputc('"', jf);
}

/* Integers whole; JSON has no NaN: what was not measured is null. */
static void jnum(const char *key, double v)
{
	fprintf(jf, "%s\"%s\": ", jsep, key);
	jsep = ", ";
	if (!isfinite(v))
		fputs("null", jf);
	else
		fprintf(jf, v == trunc(v) && fabs(v) < 1e15 ? "%.0f" : "%.10g", v);
}

static bool jitem(int l, bool series, int wl, unsigned int size)
{
	if (!opts.json)
		return false;
	jf = jl[l];
	fprintf(jf, "%s\n    {", ftell(jf) ? "," : "");
	jsep = "";
	if (series)
		jstr("variant", variant);
	jstr("workload", wl_names[wl]);
	jnum("msg_size", size);
	return true;
}

static void json_write(void)
{
	const char *s[][2] = {
		{ "format", JSON_FORMAT }, { "time", env.time },
		{ "kernel", env.uts.release }, { "cmdline", env.cmdline },
		{ "lsm", env.sys.lsm }, { "preempt", env.preempt },
		{ "cpu_model", env.id.cpu_model },
		{ "machine_id", env.id.machine_id },
		{ "clocksource", env.clocksource },
	};
	size_t i;

	jf = fopen(opts.json, "we");
	if (!jf)
		ksft_exit_fail_msg("--json %s: %s\n", opts.json, strerror(errno));
	fputs("{\n  ", jf);
	for (jsep = "", i = 0; i < ARRAY_SIZE(s); i++)
		jstr(s[i][0], s[i][1]);
	fprintf(jf,
		",\n  \"apparmor\": %s, \"icount\": %s, \"batch\": %u, \"msgs_per_round\": %u, \"rounds\": %u, \"warmup\": %u",
		env.sys.apparmor ? "true" : "false",
		env.icount ? "true" : "false", WL_BATCH, opts.msgs, opts.rounds,
		opts.warmup);
	for (i = 0; i < NR_J; i++) {
		fclose(jl[i]);
		fprintf(jf, ",\n  \"%s\": [%s\n  ]", j_names[i], jbuf[i]);
		free(jbuf[i]);
	}
	fputs("\n}\n", jf);
	if (fclose(jf))
		ksft_exit_fail_msg("--json %s: %s\n", opts.json, strerror(errno));
}

/* A series of paired rounds. */
struct series {
	int status;		/* KSFT_PASS, KSFT_FAIL or KSFT_SKIP */
	char reason[256];
	size_t n;		/* measured paired rounds */
	double ns[NR_S][PERF_MAX_ROUNDS];
	double ratios[PERF_MAX_ROUNDS];
	struct wl_count cnt[NR_S];
	double extra_s;		/* spent measuring past --rounds */
	struct perf_summary sum[NR_S];
	struct perf_ci ratio;
};

/*
 * Warm-up rounds, then paired rounds, the order swapped every round so
 * that slow drift lands on both: --rounds, then, when judged against entry
 * @e, more until decided or the budget is spent.  A recorded run measures
 * --rounds only: its spread is that of a check's first look.
 */
static void run_series(int wl, unsigned int size, const struct perf_entry *e,
		       struct series *r)
{
	struct sock_ctx c[NR_S] = { { .sv = { -1, -1 } }, { .sv = { -1, -1 } } };
	unsigned long long validated;
	struct perf_decision d;
	unsigned int round, k;
	double ns[NR_S], t_extra = 0, tol;
	bool skip = false, done;
	int st;

	if (e && perf_check_tolerance(e, opts.tolerance, &tol))
		e = NULL;
	memset(r, 0, sizeof(*r));
	r->status = KSFT_FAIL;
	for (st = 0; st < NR_S; st++)
		if (wl_init(&c[st], s_types[st], wl, size, r->reason,
			    sizeof(r->reason), &skip))
			goto out;
	for (round = 0;; round++) {
		bool warm = round < opts.warmup;

		if (!warm && r->n == opts.rounds)
			t_extra = wl_now_ns();
		if (!warm && r->n >= opts.rounds) {
			done = !e ||
				(!perf_decide(r->ratios, r->n, e->ratio, tol, &d) &&
				 d.verdict != PERF_UNDECIDED);
			if (!perf_more(done, r->n, (wl_now_ns() - t_extra) / 1e9,
				       opts.max_rounds, opts.budget_s))
				break;
		}
		for (k = 0; k < NR_S; k++) {
			st = (round + k) % NR_S;
			/* warm-up failures count, its messages do not */
			validated = r->cnt[st].validated;
			if (wl_round(&c[st], opts.msgs, &r->cnt[st], &ns[st],
				     r->reason, sizeof(r->reason)))
				goto out;
			if (warm)
				r->cnt[st].validated = validated;
		}
		fprintf(stderr, "# %s %uB %s %u: dgram %.1f seqpacket %.1f ns/msg\n",
			wl_names[wl], size, warm ? "warm-up" : "round",
			warm ? round + 1 : (unsigned int)r->n + 1,
			ns[S_DGRAM], ns[S_SEQPACKET]);
		if (warm)
			continue;
		if (!(ns[S_SEQPACKET] > 0)) {
			snprintf(r->reason, sizeof(r->reason),
				 "seqpacket round took no time");
			goto out;
		}
		r->ns[S_DGRAM][r->n] = ns[S_DGRAM];
		r->ns[S_SEQPACKET][r->n] = ns[S_SEQPACKET];
		r->ratios[r->n++] = ns[S_DGRAM] / ns[S_SEQPACKET];
	}
	r->extra_s = (wl_now_ns() - t_extra) / 1e9;
	r->status = KSFT_PASS;
	for (st = 0; st < NR_S; st++)
		perf_summarize(r->ns[st], r->n, &r->sum[st]);
	perf_mean_ci(r->ratios, r->n, &r->ratio);
out:
	if (skip)
		r->status = KSFT_SKIP;
	for (st = 0; st < NR_S; st++)
		wl_free(&c[st]);
}

static bool report_series(int wl, unsigned int size, const struct series *r)
{
	unsigned long long ok, bad;
	char tag[96];
	size_t i;
	int s;

	snprintf(tag, sizeof(tag), "%.64s %s %uB", variant, wl_names[wl], size);
	if (r->status != KSFT_PASS) {
		if (jitem(J_NOT_RUN, true, wl, size)) {
			jstr("status", r->status == KSFT_SKIP ? "skip" : "fail");
			jstr("reason", r->reason);
			fputc('}', jf);
		}
		ksft_test_result_report(r->status, "%s: %s\n", tag, r->reason);
		return false;
	}
	for (s = 0; opts.json && s < NR_S; s++) {
		jitem(J_SERIES, true, wl, size);
		jstr("sock", s_names[s]);
		jnum("rounds", r->n);
		jnum("mean", r->sum[s].mean);
		jnum("ratio", r->ratio.mean);
		jnum("ratio_lo", r->ratio.lo);
		jnum("ratio_hi", r->ratio.hi);
		jnum("validated_msgs", r->cnt[s].validated);
		jnum("validation_failures", r->cnt[s].failures);
		fputs(", \"ns_per_msg\": [", jf);
		for (i = 0; i < r->n; i++)
			fprintf(jf, "%s%.3f", i ? ", " : "", r->ns[s][i]);
		fputs("]}", jf);
	}
	perf_info("%s dgram/seqpacket ratio %.4f, 95%% t-interval [%.4f, %.4f] over %zu rounds, %.1f s past the first %u\n",
		  tag, r->ratio.mean, r->ratio.lo, r->ratio.hi, r->n, r->extra_s,
		  opts.rounds);
	ok = r->cnt[0].validated + r->cnt[1].validated;
	bad = r->cnt[0].failures + r->cnt[1].failures;
	if (bad)
		ksft_test_result_fail("%s: %llu validation failures (%llu messages ok)\n",
				      tag, bad, ok);
	else
		ksft_test_result_report(KSFT_PASS,
					"%s: %llu messages validated, dgram %.1f seqpacket %.1f ns/msg, ratio %.4f\n",
					tag, ok, r->sum[S_DGRAM].mean,
					r->sum[S_SEQPACKET].mean, r->ratio.mean);
	return !bad;
}

static struct {
	struct perf_baseline b;
	enum perf_base_state state;
	char msg[4096 + PERF_ERR_MAX + 8];
	bool record_failed;
} base;

static void load_baseline(void)
{
	static char path[PERF_ID_MAX + 64];
	const struct perf_settings set = {
		WL_BATCH, opts.msgs, opts.warmup, env.icount,
	};
	char err[PERF_ERR_MAX];
	enum perf_match m;
	int ret;

	if (!opts.baseline) {
		snprintf(path, sizeof(path),
			 BASELINE_DIR "/af_unix_send_perf.%s.baseline",
			 env.id.machine_id);
		opts.baseline = path;
	}
	perf_info("baseline: %s\n", opts.baseline);
	if (opts.record)
		perf_info("recording on kernel %s: a baseline recorded on a regressed kernel accepts that regression, so record on one known to be good\n",
			  env.uts.release);
	ret = opts.record == REC_NEW ? -ENOENT :
		perf_baseline_load(opts.baseline, &base.b, base.msg,
				   sizeof(base.msg));
	base.state = ret == -ENOENT ? PERF_BASE_MISSING :
		ret ? PERF_BASE_BAD : PERF_BASE_OK;
	if (ret) {
		/* what a baseline started by this run holds */
		memset(&base.b, 0, sizeof(base.b));
		base.b.id = env.id;
		base.b.sys = env.sys;
		base.b.set = set;
	}
	m = perf_baseline_match(&base.b, &env.id, &env.sys, &set, err,
				sizeof(err));
	if (m != PERF_MATCH && base.state == PERF_BASE_OK) {
		snprintf(base.msg, sizeof(base.msg), "%s: %s", opts.baseline, err);
		/* a run is added only to a baseline it can be judged with */
		base.state = opts.record || m == PERF_OTHER_SETTINGS ?
			PERF_BASE_BAD : PERF_BASE_ELSEWHERE;
	} else if (opts.record && base.state == PERF_BASE_OK &&
		   strcmp(base.b.sys.kernel, env.uts.release)) {
		snprintf(base.msg, sizeof(base.msg),
			 "%s: recorded on kernel %s, this is %s: add runs on the kernel it was started on",
			 opts.baseline, base.b.sys.kernel, env.uts.release);
		base.state = PERF_BASE_BAD;
	}
	if (opts.record && base.state != PERF_BASE_BAD)
		base.state = PERF_BASE_RECORD;
}

static void verdict(int code, const char *tag, const char *name,
		    int wl, unsigned int size, const struct perf_check *c)
{
	const struct perf_entry *e = c->entry;

	if (jitem(J_VERDICTS, false, wl, size)) {
		jstr("verdict", name);
		jstr("reason", c->reason);
		jnum("tolerance", c->tolerance);
		jnum("baseline_ratio", e ? e->ratio : NAN);
		jnum("limit", c->limit);
		jnum("catches", c->catches);
		jnum("baseline_runs", e ? e->nr_runs : 0);
		jnum("baseline_spread", e ? e->spread : NAN);
		fputc('}', jf);
	}
	ksft_test_result_report(code, "%s: %s\n", tag, c->reason);
}

static void record_entry(const char *tag, int wl, unsigned int size,
			 const struct series *r, struct perf_check *c)
{
	const struct perf_run_result run = {
		r->ratio.mean, r->sum[S_DGRAM].mean, r->sum[S_SEQPACKET].mean,
	};
	const struct perf_entry *e;
	char what[384], buf[64];
	int code = KSFT_PASS;
	double tol;

	if (!env.sys.apparmor ||
	    perf_baseline_add_run(&base.b, wl_names[wl], size, &run)) {
		base.record_failed = true;
		if (env.sys.apparmor)
			snprintf(c->reason, sizeof(c->reason),
				 "baseline full: %d runs of an entry, %d entries at most",
				 PERF_MAX_RUNS, PERF_MAX_ENTRIES);
		else
			snprintf(c->reason, sizeof(c->reason),
				 "AppArmor is not enabled: there is no hook to record");
		verdict(env.sys.apparmor ? KSFT_FAIL : KSFT_SKIP, tag,
			"not recorded", wl, size, c);
		return;
	}
	e = perf_baseline_find(&base.b, wl_names[wl], size);
	c->entry = e;
	snprintf(what, sizeof(what),
		 "run %zu recorded (ratio %.4f [%.4f, %.4f]); baseline %.4f over %zu runs, spread %.3f%%",
		 e->nr_runs, r->ratio.mean, r->ratio.lo, r->ratio.hi, e->ratio, e->nr_runs,
		 e->spread * 100);
	if (e->nr_runs < opts.runs) {
		snprintf(c->reason, sizeof(c->reason),
			 "%s; complete at %u runs", what, opts.runs);
	} else if (perf_tolerance(e->nr_runs, e->spread, &tol)) {
		code = KSFT_FAIL;
		snprintf(c->reason, sizeof(c->reason),
			 "%s: too noisy to judge with, the tolerance would be %.2f%%, over the %g%% cap: record on a quiet machine, pinned (see the README)",
			 what, tol * 100, PERF_TOL_CAP * 100);
	} else {
		c->tolerance = tol;
		c->catches = perf_mde(tol, e->nr_runs, e->spread,
				      r->ratio.half / e->ratio);
		snprintf(c->reason, sizeof(c->reason), "%s; tolerance %.2f%%, %s",
			 what, tol * 100,
			 perf_catches_text(c->catches, buf, sizeof(buf)));
	}
	verdict(code, tag, "recorded", wl, size, c);
}

static void check_baseline(int wl, unsigned int size, bool usable,
			   const struct series *r)
{
	const struct perf_check_in in = {
		base.state, perf_baseline_find(&base.b, wl_names[wl], size),
		opts.baseline, base.msg, opts.tolerance, opts.max_rounds,
		opts.budget_s, usable, confined, env.label, r->ratios, r->n, r->extra_s,
	};
	struct perf_check c = perf_check(&in);
	char tag[96];

	snprintf(tag, sizeof(tag), "%.64s %s %uB vs baseline", variant,
		 wl_names[wl], size);
	if (c.verdict == PERF_RECORD) {
		record_entry(tag, wl, size, r, &c);
		return;
	}
	/* a baseline missing a series it was asked to hold is not written */
	base.record_failed = true;
	verdict(c.verdict == PERF_PASS ? KSFT_PASS : c.verdict == PERF_FAIL ?
		KSFT_FAIL : KSFT_SKIP, tag, perf_verdict_names[c.verdict], wl,
		size, &c);
}

int main(int argc, char **argv)
{
	static struct series r;
	char err[PERF_ERR_MAX];
	double t0 = wl_now_ns();
	unsigned int i, size;
	int wl;

	parse_opts(argc, argv);
	ksft_print_header();
	wl_env_probe(&env);
	/* the ratio is its own control, a slow machine only needs more time */
	if (env.machine_slow && !opts.budget_set)
		opts.budget_s *= SLOW_BUDGET;
	ksft_set_plan(2 * opts.nr_sizes * __builtin_popcount(opts.wl_mask));
	confined = env.aa.enabled && !env.unconfined;
	snprintf(variant, sizeof(variant), "%s", confined ? env.label : "unconfined");
	variant[strcspn(variant, " ")] = '\0';
	opts.cpu = wl_pin_cpu(opts.cpu);
	perf_info("pinned to CPU %u\n", opts.cpu);
	env_print();
	load_baseline();
	for (i = 0; opts.json && i < NR_J; i++) {
		jl[i] = open_memstream(&jbuf[i], &jlen[i]);
		if (!jl[i])
			ksft_exit_fail_perror("--json: open_memstream");
	}
	for (i = 0; i < opts.nr_sizes; i++) {
		size = opts.sizes[i];
		for (wl = 0; wl < NR_WL; wl++) {
			if (!(opts.wl_mask & (1U << wl)))
				continue;
			run_series(wl, size, base.state != PERF_BASE_OK ? NULL :
				   perf_baseline_find(&base.b, wl_names[wl], size),
				   &r);
			check_baseline(wl, size, report_series(wl, size, &r), &r);
		}
	}
	if (opts.json)
		json_write();
	if (base.state == PERF_BASE_RECORD &&
	    (base.record_failed || !base.b.nr_entries)) {
		perf_info("baseline NOT written: some entries could not be recorded\n");
	} else if (base.state == PERF_BASE_RECORD) {
		mkdir(BASELINE_DIR, 0755);
		if (perf_baseline_store(opts.baseline, &base.b, err, sizeof(err)))
			ksft_exit_fail_msg("storing the baseline failed: %s\n", err);
		perf_info("baseline with %zu entries, recorded on kernel %s, written to %s\n",
			  base.b.nr_entries, base.b.sys.kernel, opts.baseline);
	}
	perf_info("total run time %.1f s\n", (wl_now_ns() - t0) / 1e9);
	ksft_finished();
}
