// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline file of af_unix_send_perf: "key=value" lines, then per
 * workload and size its "run=" lines and an "entry=" line with what they
 * give, checked against them so that a hand edit is caught, and "end=1"
 * last so that a truncated file is never taken for a whole one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "perf_baseline.h"

/* The largest file: every entry full of runs, about 80 bytes a line. */
#define FILE_MAX	(PERF_MAX_ENTRIES * (PERF_MAX_RUNS + 1) * 80 + 4096)

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int perf_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	/* strtod also takes hexadecimal ("0x1p3"), which no one means here */
	if (!s || !*s || !strchr("0123456789.-+", *s) || strpbrk(s, "xX"))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return errno ? -ERANGE : -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Digits only; exact below 2^53, far above what any caller takes. */
int perf_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	double v;
	int ret = s && strspn(s, "0123456789") == strlen(s) ?
		perf_parse_double(s, min, max, &v) : -EINVAL;

	if (!ret)
		*out = v;
	return ret;
}

int perf_parse_uint_list(const char *s, unsigned long long min,
			 unsigned long long max, unsigned int *out,
			 size_t max_n, size_t *n)
{
	unsigned long long v;
	char item[32], *end;
	int ret;

	if (!s)
		return -EINVAL;
	for (*n = 0; *n < max_n; s = end + 1) {
		/* an empty item ("", "1,,2", "1,") fails perf_parse_uint() */
		end = strchrnul(s, ',');
		if (end - s >= (int)sizeof(item))
			return -EINVAL;
		memcpy(item, s, end - s);
		item[end - s] = '\0';
		ret = perf_parse_uint(item, min, max, &v);
		if (ret)
			return ret;
		out[(*n)++] = v;
		if (!*end)
			return 0;
	}
	return -E2BIG;
}

char *perf_read_file(const char *path, size_t max, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = f ? malloc(max + 1) : NULL;
	size_t len = buf ? fread(buf, 1, max, f) : 0;
	const char *why = !f || ferror(f) ? strerror(errno) :
		!buf ? "out of memory" : len == max ? "file too large" :
		memchr(buf, 0, len) ? "contains a NUL byte" : NULL;

	if (f)
		fclose(f);
	if (why) {
		snprintf(err, errlen, "%s: %s", path, why);
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

enum { K_VERSION, K_TEXT, K_BOOL, K_UINT, K_END };

static const struct key {
	const char *name;
	int type;
	size_t off, size;
	unsigned int min, max;
} keys[] = {
#define OFF(f) offsetof(struct perf_baseline, f)
	{ "version", K_VERSION, 0, 0, 0, 1000 },
	{ "machine_id", K_TEXT, OFF(id.machine_id), PERF_ID_MAX, 0, 0 },
	{ "cpu_model", K_TEXT, OFF(id.cpu_model), PERF_ID_MAX, 0, 0 },
	{ "kernel", K_TEXT, OFF(sys.kernel), PERF_ID_MAX, 0, 0 },
	{ "lsm", K_TEXT, OFF(sys.lsm), PERF_LSM_MAX, 0, 0 },
	{ "apparmor", K_BOOL, OFF(sys.apparmor), 0, 0, 0 },
	{ "batch", K_UINT, OFF(set.batch), 0, 1, 1024 },
	{ "msgs_per_round", K_UINT, OFF(set.msgs_per_round), 0, 1, 1U << 30 },
	{ "warmup", K_UINT, OFF(set.warmup), 0, 0, 1000 },
	{ "icount", K_BOOL, OFF(set.icount), 0, 0, 0 },
	{ "end", K_END, 0, 0, 1, 1 },
#undef OFF
};

#define NR_KEYS	ARRAY_SIZE(keys)

static int key_value(const struct key *k, const char *v,
		     struct perf_baseline *b)
{
	void *p = (char *)b + k->off;
	unsigned long long x;

	if (k->type == K_TEXT) {
		if (!*v || strlen(v) >= k->size)
			return -EINVAL;
		memcpy(p, v, strlen(v) + 1);
	} else if (k->type == K_BOOL) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return -EINVAL;
		*(bool *)p = !strcmp(v, "yes");
	} else if (perf_parse_uint(v, k->min, k->max, &x)) {
		return -EINVAL;
	} else if (k->type == K_VERSION && x != PERF_BASELINE_VERSION) {
		return -EPROTO;
	} else if (k->type == K_UINT) {
		*(unsigned int *)p = x;
	}
	return 0;
}

/*
 * "run=workload size ratio dgram_ns seqpacket_ns" or "entry=workload size
 * ratio spread runs".  Bit i of @claimed: the entry line of
 * b->entries[i] came, and no run of it may follow.
 */
static int data_line(bool entry, char *v, struct perf_baseline *b,
		     unsigned long long *claimed, char *err, size_t errlen)
{
	unsigned long long size, runs = 0, bit;
	const struct perf_entry *e;
	char *f[6], *save;
	double x[3];
	int i = 0;

	for (f[0] = strtok_r(v, " ", &save); f[i] && i < 5;
	     f[++i] = strtok_r(NULL, " ", &save))
		;
	if (i != 5 || f[5] || perf_parse_uint(f[1], 1, 1 << 20, &size) ||
	    perf_parse_double(f[2], 0.1, 10, &x[0]) ||
	    perf_parse_double(f[3], entry ? 0 : 0.01, entry ? 10 : 1e9, &x[1]) ||
	    (entry ? perf_parse_uint(f[4], 1, PERF_MAX_RUNS, &runs) :
	     perf_parse_double(f[4], 0.01, 1e9, &x[2])))
		return bad(err, errlen, "malformed %s", entry ? "entry" : "run");
	e = perf_baseline_find(b, f[0], size);
	bit = e ? 1ULL << (e - b->entries) : 0;
	if (!entry) {
		i = *claimed & bit ? -EINVAL : perf_baseline_add_run(b, f[0],
			size, &(struct perf_run_result){ x[0], x[1], x[2] });
		return i ? bad(err, errlen, "%s run", i == -E2BIG ?
			       "one too many" : "malformed") : 0;
	}
	if (!e)
		return bad(err, errlen, "entry %s %llu has no 'run' lines",
			   f[0], size);
	if (*claimed & bit)
		return bad(err, errlen, "duplicate entry");
	/* both sides printed with 6 decimals */
	if (e->nr_runs != runs || fabs(e->ratio - x[0]) > 2 / 1e6 ||
	    fabs(e->spread - x[1]) > 2 / 1e6)
		return bad(err, errlen,
			   "entry %s %llu says ratio %.6f, spread %.6f over %llu runs; its 'run' lines give %.6f, %.6f over %zu",
			   f[0], size, x[0], x[1], runs, e->ratio, e->spread,
			   e->nr_runs);
	*claimed |= bit;
	return 0;
}

static int parse_line(char *line, struct perf_baseline *b,
		      unsigned int *seen, unsigned long long *claimed,
		      char *err, size_t errlen)
{
	char *eq = strchr(line, '=');
	size_t k;
	int ret;

	if (!eq)
		return bad(err, errlen, "expected key=value");
	*eq = '\0';
	if (!*seen && strcmp(line, "version"))
		return bad(err, errlen,
			   "not an af_unix_send_perf baseline ('%.32s' before 'version')",
			   line);
	if (!strcmp(line, "run") || !strcmp(line, "entry"))
		return data_line(*line == 'e', eq + 1, b, claimed, err, errlen);
	for (k = 0; k < NR_KEYS && strcmp(line, keys[k].name); k++)
		;
	if (k == NR_KEYS)
		return bad(err, errlen, "unknown key '%.32s'", line);
	if (*seen & (1U << k))
		return bad(err, errlen, "duplicate key '%s'", line);
	*seen |= 1U << k;
	ret = key_value(&keys[k], eq + 1, b);
	if (ret == -EPROTO)
		return bad(err, errlen,
			   "version %.16s, this program reads version %d: record the baseline again",
			   eq + 1, PERF_BASELINE_VERSION);
	return ret ? bad(err, errlen, "bad value for '%s'", line) : 0;
}

int perf_baseline_parse(const char *text, struct perf_baseline *b,
			char *err, size_t errlen)
{
	unsigned long long claimed = 0;
	unsigned int lineno = 0, seen = 0;
	const char *p = text, *nl;
	char line[512], msg[PERF_ERR_MAX];
	size_t k;

	memset(b, 0, sizeof(*b));
	if (!*text)
		return bad(err, errlen, "empty file");
	for (; *p; p = nl + 1) {
		lineno++;
		nl = strchr(p, '\n');
		if (seen & (1U << (NR_KEYS - 1)))
			return bad(err, errlen, "line %u: data after 'end'",
				   lineno);
		if (!nl || (size_t)(nl - p) >= sizeof(line))
			return bad(err, errlen, "line %u: %s", lineno,
				   nl ? "too long" : "truncated (no newline)");
		memcpy(line, p, nl - p);
		line[nl - p] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (parse_line(line, b, &seen, &claimed, msg, sizeof(msg)))
			return bad(err, errlen, "line %u: %s", lineno, msg);
	}
	for (k = 0; k < NR_KEYS; k++)
		if (!(seen & (1U << k)))
			return bad(err, errlen, "missing key '%s'%s", keys[k].name,
				   k == NR_KEYS - 1 ? " (truncated file?)" : "");
	if (!b->nr_entries)
		return bad(err, errlen, "no 'run' lines");
	for (k = 0; k < b->nr_entries; k++)
		if (!(claimed & (1ULL << k)))
			return bad(err, errlen, "runs of %s %u have no 'entry' line",
				   b->entries[k].workload, b->entries[k].msg_size);
	return 0;
}

int perf_baseline_load(const char *path, struct perf_baseline *b,
		       char *err, size_t errlen)
{
	char msg[PERF_ERR_MAX];
	char *text;
	int ret;

	if (access(path, F_OK) && errno == ENOENT) {
		snprintf(err, errlen, "%s does not exist", path);
		return -ENOENT;
	}
	text = perf_read_file(path, FILE_MAX, err, errlen);
	if (!text)
		return -EIO;
	ret = perf_baseline_parse(text, b, msg, sizeof(msg));
	free(text);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

int perf_baseline_write(FILE *f, const struct perf_baseline *b)
{
	const struct perf_entry *e;
	const struct key *k;
	const void *p;
	size_t i, j;

	fputs("# AppArmor af_unix_send_perf baseline, written by 'run_perf.sh record'\n",
	      f);
	for (k = keys; k->type != K_END; k++) {
		p = (const char *)b + k->off;
		if (k->type == K_VERSION)
			fprintf(f, "version=%d\n", PERF_BASELINE_VERSION);
		else if (k->type == K_TEXT)
			fprintf(f, "%s=%s\n", k->name, (const char *)p);
		else if (k->type == K_BOOL)
			fprintf(f, "%s=%s\n", k->name, *(const bool *)p ? "yes" : "no");
		else
			fprintf(f, "%s=%u\n", k->name, *(const unsigned int *)p);
	}
	fputs("# run=workload size ratio dgram_ns seqpacket_ns\n"
	      "# entry=workload size mean_ratio spread runs (spread: stdev/mean)\n",
	      f);
	for (i = 0; i < b->nr_entries; i++) {
		e = &b->entries[i];
		for (j = 0; j < e->nr_runs; j++)
			fprintf(f, "run=%s %u %.6f %.3f %.3f\n", e->workload,
				e->msg_size, e->runs[j].ratio,
				e->runs[j].dgram_ns, e->runs[j].seqpacket_ns);
		fprintf(f, "entry=%s %u %.6f %.6f %zu\n", e->workload,
			e->msg_size, e->ratio, e->spread, e->nr_runs);
	}
	fputs("end=1\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* Written to a temporary file and renamed so a reader never sees half. */
int perf_baseline_store(const char *path, const struct perf_baseline *b,
			char *err, size_t errlen)
{
	char tmp[PATH_MAX + 16];
	int fd = (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path), mkstemp(tmp));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int failed = !f || perf_baseline_write(f, b) || fsync(fd) ||
		fchmod(fd, 0644);

	if ((f ? fclose(f) : fd >= 0 ? close(fd) : 0) || failed ||
	    rename(tmp, path)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -EIO;
	}
	return 0;
}

static void describe(const struct perf_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "batch %u, %u msgs/round, warm-up %u, icount %s",
		 s->batch, s->msgs_per_round, s->warmup,
		 s->icount ? "yes" : "no");
}

enum perf_match perf_baseline_match(const struct perf_baseline *b,
				    const struct perf_identity *id,
				    const struct perf_system *sys,
				    const struct perf_settings *set,
				    char *err, size_t errlen)
{
	char was[160], now[160];

	describe(&b->set, was, sizeof(was));
	describe(set, now, sizeof(now));
	if (strcmp(b->id.machine_id, id->machine_id) ||
	    strcmp(b->id.cpu_model, id->cpu_model)) {
		snprintf(err, errlen,
			 "recorded on another machine (%s, %s), this is (%s, %s)",
			 b->id.machine_id, b->id.cpu_model, id->machine_id,
			 id->cpu_model);
		return PERF_OTHER_MACHINE;
	}
	if (strcmp(b->sys.lsm, sys->lsm) || b->sys.apparmor != sys->apparmor) {
		snprintf(err, errlen,
			 "recorded with LSMs %s, AppArmor %s; this kernel has %s, AppArmor %s",
			 b->sys.lsm, b->sys.apparmor ? "enabled" : "disabled",
			 sys->lsm, sys->apparmor ? "enabled" : "disabled");
		return PERF_OTHER_SYSTEM;
	}
	/* the descriptions hold every setting */
	if (strcmp(was, now)) {
		snprintf(err, errlen,
			 "recorded with %s; this run has %s: run with the baseline's settings or record again",
			 was, now);
		return PERF_OTHER_SETTINGS;
	}
	return PERF_MATCH;
}

const struct perf_entry *perf_baseline_find(const struct perf_baseline *b,
					    const char *workload,
					    unsigned int msg_size)
{
	size_t i;

	for (i = 0; i < b->nr_entries; i++)
		if (!strcmp(b->entries[i].workload, workload) &&
		    b->entries[i].msg_size == msg_size)
			return &b->entries[i];
	return NULL;
}

int perf_baseline_add_run(struct perf_baseline *b, const char *workload,
			  unsigned int msg_size,
			  const struct perf_run_result *r)
{
	double sum = 0, ss = 0;
	struct perf_entry *e;
	size_t i, n;

	if (!workload[0] || strchr(workload, ' ') ||
	    strlen(workload) >= PERF_NAME_MAX || !(r->ratio > 0))
		return -EINVAL;
	e = (struct perf_entry *)perf_baseline_find(b, workload, msg_size);
	if (!e) {
		if (b->nr_entries == PERF_MAX_ENTRIES)
			return -E2BIG;
		e = &b->entries[b->nr_entries++];
		memset(e, 0, sizeof(*e));
		memcpy(e->workload, workload, strlen(workload) + 1);
		e->msg_size = msg_size;
	}
	if (e->nr_runs == PERF_MAX_RUNS)
		return -E2BIG;
	e->runs[e->nr_runs++] = *r;
	n = e->nr_runs;
	for (i = 0; i < n; i++)
		sum += e->runs[i].ratio;
	e->ratio = sum / n;
	for (i = 0; i < n; i++)
		ss += (e->runs[i].ratio - e->ratio) * (e->runs[i].ratio - e->ratio);
	e->spread = n > 1 ? sqrt(ss / (n - 1)) / e->ratio : 0;
	return 0;
}
