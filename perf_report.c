// SPDX-License-Identifier: GPL-2.0
/*
 * A/B/A report for af_unix_send_perf results from fresh boots: parent
 * kernel (A), child kernel (B), parent again (A').  B's slowdown is taken
 * against the midpoint of the two A runs so that linear drift between boots
 * cancels; the drift itself is printed so the reader can judge it.
 *
 * With JSON inputs the verdict is on the dgram/seqpacket ratio: the
 * seqpacket control takes the same send path minus the LSM hook, so it
 * cancels what moves both with the boot.  Under qemu -icount two boots of
 * one tinyconfig 7.2 kernel differed by 1.2% in dgram ns/msg and by 0.07%
 * in the ratio.  With plain numbers it is on ns/msg.
 *
 * Each point is a JSON file written by "af_unix_send_perf --json" or a
 * plain ns/msg number.  Exit status: 0 no regression, 1 B slower than the
 * threshold or a validation failure, 2 bad usage or input.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest.h"
#include "perf_stats.h"

struct point {
	const char *src;
	bool json;
	double mean;
	double drop1;
	double cv;
	double seq_mean;
	double ratio;
	unsigned long long validated;
	unsigned long long failures;
};

struct sel {
	const char *variant;
	const char *workload;
	unsigned int size;
};

static void __noreturn die(const char *fmt, const char *arg)
{
	fprintf(stderr, "perf_report: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: perf_report [--threshold PCT] [--workload W] [--size N] [--variant V] A B A2\n"
		"  A, B, A2: JSON results of af_unix_send_perf --json, or ns/msg numbers\n"
		"  --threshold PCT  B slowdown that counts as a regression (default 5)\n"
		"  --workload W     sendmmsg (default), io_uring or send\n"
		"  --size N         message size (default 128)\n"
		"  --variant V      unconfined (default), old-abi or new-abi\n"
		"exit: 0 no regression, 1 regression or validation failure, 2 bad input\n");
}

static void load_point(const char *arg, const struct sel *sel, struct point *p)
{
	struct perf_series d, s;
	struct perf_summary sum;
	char err[PERF_ERR_MAX];
	char *text;

	memset(p, 0, sizeof(*p));
	p->src = arg;
	if (!perf_parse_double(arg, 1e-6, 1e12, &p->mean)) {
		p->drop1 = NAN;
		p->cv = NAN;
		p->seq_mean = NAN;
		p->ratio = NAN;
		return;
	}
	text = perf_read_file(arg, 4 << 20, err, sizeof(err));
	if (!text)
		die("%s (neither a number nor a readable file)", err);
	if (perf_json_find(text, sel->variant, sel->workload, "dgram",
			   sel->size, &d) ||
	    perf_json_find(text, sel->variant, sel->workload, "seqpacket",
			   sel->size, &s)) {
		free(text);
		die("%s: no matching dgram and seqpacket series", arg);
	}
	free(text);
	if (d.n < 2)
		die("%s: fewer than 2 rounds", arg);
	p->json = true;
	perf_summarize(d.ns, d.n, &sum);
	p->mean = sum.mean;
	p->cv = sum.cv;
	perf_summarize(d.ns + 1, d.n - 1, &sum);
	p->drop1 = sum.mean;
	perf_summarize(s.ns, s.n, &sum);
	p->seq_mean = sum.mean;
	p->ratio = p->mean / p->seq_mean;
	p->cv = fmax(p->cv, sum.cv);
	p->validated = d.validated + s.validated;
	p->failures = d.failures + s.failures;
}

static void print_point(const char *name, const struct point *p)
{
	if (!p->json) {
		printf("%-3s %10.3f %12s %8s %10s %8s %11s %8s  %s\n", name,
		       p->mean, "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", p->src);
		return;
	}
	printf("%-3s %10.3f %12.3f %8.3f %10.3f %8.4f %11llu %8llu  %s\n",
	       name, p->mean, p->drop1, p->cv * 100, p->seq_mean,
	       p->ratio, p->validated, p->failures, p->src);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 's' },
		{ "variant", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sel sel = { "unconfined", "sendmmsg", 128 };
	double thr = 5, maxcv = 0;
	unsigned long long v = 0;
	unsigned long long ok = 0, bad = 0;
	struct perf_aba r, r1, rr;
	const struct perf_aba *judged = &r;
	const char *what = "dgram ns/msg";
	struct point p[3];
	bool all_json = true;
	int c, i, rc = 0;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (perf_parse_double(optarg, 0, 1000, &thr))
				die("invalid --threshold '%s': expected 0..1000", optarg);
			break;
		case 'w':
			sel.workload = optarg;
			break;
		case 'v':
			sel.variant = optarg;
			break;
		case 's':
			if (perf_parse_uint(optarg, 1, 1 << 20, &v))
				die("invalid --size '%s'", optarg);
			sel.size = v;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 3) {
		print_usage(stderr);
		return 2;
	}
	for (i = 0; i < 3; i++) {
		load_point(argv[optind + i], &sel, &p[i]);
		all_json &= p[i].json;
		if (p[i].json)
			maxcv = fmax(maxcv, p[i].cv);
		ok += p[i].validated;
		bad += p[i].failures;
	}
	if (perf_aba(p[0].mean, p[1].mean, p[2].mean, &r))
		die("%s", "ns/msg must be positive numbers");
	printf("%s %s %uB, dgram (mean ns/msg per point)\n", sel.variant,
	       sel.workload, sel.size);
	printf("%-3s %10s %12s %8s %10s %8s %11s %8s  %s\n", "pt", "ns/msg",
	       "w/o round 1", "cv%", "seqpacket", "ratio", "validated",
	       "failures", "source");
	print_point("A", &p[0]);
	print_point("B", &p[1]);
	print_point("A'", &p[2]);
	printf("B slowdown vs midpoint of A runs (%.3f): %+.3f%%\n", r.mid,
	       r.slowdown_pct);
	if (all_json && !perf_aba(p[0].drop1, p[1].drop1, p[2].drop1, &r1))
		printf("B slowdown, first round dropped: %+.3f%%\n",
		       r1.slowdown_pct);
	else
		printf("B slowdown, first round dropped: n/a (needs JSON inputs)\n");
	printf("parent drift (A' vs A): %+.3f%%\n", r.drift_pct);
	if (all_json && !perf_aba(p[0].ratio, p[1].ratio, p[2].ratio, &rr)) {
		printf("B ratio slowdown vs midpoint of A runs (%.4f): %+.3f%%\n",
		       rr.mid, rr.slowdown_pct);
		printf("parent ratio drift (A' vs A): %+.3f%%\n", rr.drift_pct);
		judged = &rr;
		what = "dgram/seqpacket ratio";
	}
	if (all_json)
		printf("max CV: %.3f%%\n", maxcv * 100);
	else
		printf("max CV: n/a (needs JSON inputs)\n");
	printf("validation: %llu messages ok, %llu failures\n", ok, bad);
	if (bad) {
		printf("verdict: validation failures\n");
		rc = 1;
	}
	if (judged->slowdown_pct > thr) {
		printf("verdict: B is %.3f%% slower (%s), above the %.3f%% threshold\n",
		       judged->slowdown_pct, what, thr);
		rc = 1;
	} else {
		printf("verdict: B within the %.3f%% threshold (%s)\n", thr,
		       what);
	}
	return rc;
}
