// SPDX-License-Identifier: GPL-2.0
/*
 * af_unix_send_perf's options: strict, because a typo in a benchmark's
 * settings gives a baseline or a verdict of something else.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest.h"
#include "perf_baseline.h"
#include "perf_parse.h"
#include "perf_verdict.h"
#include "send_opts.h"

/* send(), a syscall per message, is opt-in to keep the default run short */
#define WL_DEFAULT	((1U << WL_SENDMMSG) | (1U << WL_IOURING))

const char * const v_names[NR_V] = { "unconfined", "old-abi", "new-abi" };

struct send_opts opts = {
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

void parse_opts(int argc, char **argv)
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
						 opts.sizes, MAX_SIZES, &opts.nr_sizes))
				bad_opt("sizes", optarg,
					"expected up to 16 sizes 8..65536, comma separated");
			break;
		case 'b':
			opts.run.batch = opt_uint("batch", optarg, 1, WL_MAX_BATCH);
			break;
		case 'r':
			opts.run.rounds = opt_uint("rounds", optarg, 2, PERF_MAX_ROUNDS);
			break;
		case 'M':
			opts.run.max_rounds = opt_uint("max-rounds", optarg, 2,
						       PERF_MAX_ROUNDS);
			max_set = true;
			break;
		case 'T':
			if (perf_parse_double(optarg, 0, 3600, &opts.run.budget_s))
				bad_opt("budget", optarg, "expected seconds, 0..3600");
			opts.budget_set = true;
			break;
		case 'w':
			opts.run.warmup = opt_uint("warmup", optarg, 0, 1000);
			break;
		case 'm':
			opts.run.msgs = opt_uint("msgs", optarg, 1, 1U << 30);
			break;
		case 'c':
			opts.run.cpu = opt_uint("cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'W':
			opts.wl_mask = opt_names("workloads", optarg, wl_names, NR_WL);
			break;
		case 'V':
			opts.v_mask = opt_names("variants", optarg, v_names, NR_V);
			break;
		case 'j':
			if (!*optarg)
				bad_opt("json", optarg, "empty path");
			opts.json = optarg;
			break;
		case 'B':
			if (!*optarg || strlen(optarg) >= sizeof(opts.baseline))
				bad_opt("baseline", optarg, "empty or too long");
			memcpy(opts.baseline, optarg, strlen(optarg) + 1);
			break;
		case 't':
			/* (0,100]: 1 / 1e9 is the smallest above 0 it takes */
			if (perf_parse_double(optarg, 1 / 1e9, 100,
					      &opts.run.tolerance))
				bad_opt("tolerance", optarg,
					"expected a percentage in (0,100]");
			opts.run.tolerance /= 100;
			opts.tol_set = true;
			break;
		case 'R':
		case 'A':
			if (opts.record)
				bad_opt(c == 'R' ? "record" : "add-run", "",
					"--record and --add-run exclude each other");
			opts.record = c == 'R' ? REC_NEW : REC_ADD;
			break;
		case 'n':
			opts.runs = opt_uint("runs", optarg, PERF_MIN_RUNS,
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
	if (!max_set && opts.run.max_rounds < opts.run.rounds)
		opts.run.max_rounds = opts.run.rounds;
	if (opts.run.max_rounds < opts.run.rounds)
		bad_opt("max-rounds", "", "must not be below --rounds");
	if (opts.record && !(opts.v_mask & (1U << V_UNCONFINED))) {
		fprintf(stderr,
			"af_unix_send_perf: --record and --add-run need the unconfined variant\n");
		exit(KSFT_FAIL);
	}
}
