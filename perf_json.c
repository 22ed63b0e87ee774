// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the JSON result of af_unix_send_perf.  See perf_json.h.  Series
 * are written as they are measured; the short lists of series that did
 * not run and of verdicts are kept in memory streams and written last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest.h"
#include "perf_json.h"

static const char *path;
static FILE *out;
static struct list {
	FILE *f;
	char *buf;
	size_t len;
} not_run, verdicts;
static bool first_series = true;

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void key_str(FILE *f, const char *sep, const char *key, const char *v)
{
	fprintf(f, "%s\"%s\": ", sep, key);
	str(f, v);
}

/* JSON has no NaN: a value that was not measured is null. */
static void key_num(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, ", \"%s\": %.10g", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

static void list_open(struct list *l)
{
	l->f = open_memstream(&l->buf, &l->len);
	if (!l->f)
		ksft_exit_fail_msg("--json: open_memstream: %s\n", strerror(errno));
}

void perf_json_open(const char *p, const struct perf_env *env,
		    const struct perf_run *run)
{
	const struct {
		const char *key, *val;
	} s[] = {
		{ "time", env->time },
		{ "kernel", env->uts.release },
		{ "kernel_version", env->uts.version },
		{ "cmdline", env->cmdline },
		{ "lsm", env->sys.lsm },
		{ "preempt", env->preempt },
		{ "label", env->label },
		{ "cpu_model", env->id.cpu_model },
		{ "machine_id", env->id.machine_id },
		{ "clocksource", env->clocksource },
	};
	size_t i;

	path = p;
	out = fopen(path, "we");
	if (!out)
		ksft_exit_fail_msg("--json %s: %s\n", path, strerror(errno));
	list_open(&not_run);
	list_open(&verdicts);
	fprintf(out, "{\n  \"format\": \"%s\"", PERF_JSON_FORMAT);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		key_str(out, ",\n  ", s[i].key, s[i].val);
	fprintf(out, ",\n  \"apparmor\": %s, \"icount\": %s, \"machine_slow\": %s",
		env->sys.apparmor ? "true" : "false",
		env->icount ? "true" : "false",
		env->machine_slow ? "true" : "false");
	fprintf(out, ",\n  \"cpu\": %d, \"batch\": %u, \"msgs_per_round\": %u",
		run->cpu, run->batch, run->msgs);
	fprintf(out, ", \"rounds\": %u, \"max_rounds\": %u, \"warmup\": %u",
		run->rounds, run->max_rounds, run->warmup);
	fprintf(out, ",\n  \"budget_s\": %g", run->budget_s);
	/* null: each verdict's from its baseline entry */
	key_num(out, "tolerance", run->tolerance);
	key_num(out, "clock_gettime_ns", env->clock_ns);
	fprintf(out, ",\n  \"series\": [");
}

void perf_json_series(const struct perf_json_series *s)
{
	const struct perf_summary *m = s->sum;
	size_t i;

	if (!out)
		return;
	fprintf(out, "%s\n    {", first_series ? "" : ",");
	first_series = false;
	key_str(out, "", "variant", s->variant);
	key_str(out, ", ", "workload", s->workload);
	key_str(out, ", ", "sock", s->sock);
	fprintf(out, ", \"msg_size\": %u, \"rounds\": %zu", s->size, m->n);
	key_num(out, "mean", m->mean);
	key_num(out, "median", m->median);
	key_num(out, "min", m->min);
	key_num(out, "stdev", m->stdev);
	key_num(out, "cv", m->cv);
	key_num(out, "mean_drop_first", s->mean_drop_first);
	key_num(out, "ratio", s->ratio->mean);
	key_num(out, "ratio_lo", s->ratio->lo);
	key_num(out, "ratio_hi", s->ratio->hi);
	fprintf(out, ", \"validated_msgs\": %llu, \"validation_failures\": %llu, \"ns_per_msg\": [",
		s->cnt->validated, s->cnt->failures);
	for (i = 0; i < m->n; i++)
		fprintf(out, "%s%.3f", i ? ", " : "", s->ns[i]);
	fprintf(out, "]}");
}

static void item(struct list *l)
{
	fprintf(l->f, "%s\n    {", ftell(l->f) ? "," : "");
}

void perf_json_not_run(const char *variant, const char *workload,
		       unsigned int size, const char *status,
		       const char *reason)
{
	if (!out)
		return;
	item(&not_run);
	key_str(not_run.f, "", "variant", variant);
	key_str(not_run.f, ", ", "workload", workload);
	fprintf(not_run.f, ", \"msg_size\": %u", size);
	key_str(not_run.f, ", ", "status", status);
	key_str(not_run.f, ", ", "reason", reason);
	fputc('}', not_run.f);
}

void perf_json_verdict(const struct perf_json_verdict *v)
{
	FILE *f = verdicts.f;

	if (!out)
		return;
	item(&verdicts);
	key_str(f, "", "workload", v->workload);
	fprintf(f, ", \"msg_size\": %u", v->size);
	key_str(f, ", ", "verdict", v->verdict);
	key_str(f, ", ", "reason", v->reason);
	key_num(f, "tolerance", v->tolerance);
	key_num(f, "baseline_ratio", v->baseline_ratio);
	key_num(f, "limit", v->limit);
	key_num(f, "catches", v->catches);
	fprintf(f, ", \"baseline_runs\": %zu", v->baseline_runs);
	key_num(f, "baseline_spread", v->baseline_spread);
	key_num(f, "ratio", v->ratio ? v->ratio->mean : NAN);
	key_num(f, "ratio_lo", v->ratio ? v->ratio->lo : NAN);
	key_num(f, "ratio_hi", v->ratio ? v->ratio->hi : NAN);
	fprintf(f, ", \"rounds\": %zu", v->ratio ? v->ratio->n : 0);
	key_num(f, "extra_s", v->extra_s);
	fputc('}', f);
}

static void list_close(struct list *l, const char *key)
{
	fclose(l->f);
	fprintf(out, "\n  ],\n  \"%s\": [%s", key, l->buf);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

void perf_json_close(void)
{
	if (!out)
		return;
	list_close(&not_run, "not_run");
	list_close(&verdicts, "verdicts");
	fprintf(out, "\n  ]\n}\n");
	if (fclose(out))
		ksft_exit_fail_msg("--json %s: %s\n", path, strerror(errno));
	out = NULL;
}
