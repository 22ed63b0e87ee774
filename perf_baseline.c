// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline file of af_unix_send_perf: "key=value" lines, a "run=" line
 * per run, workload and size, an "entry=" line per workload and size with
 * what its runs give (mean ratio, spread, number of runs: for the reader,
 * and checked against the runs, so that a hand edit is caught), and
 * "end=1" last so that a truncated file is never taken for a whole one.
 * See perf_baseline.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_baseline.h"

/* The largest file: every entry full of runs, about 80 bytes a line. */
#define FILE_MAX	(PERF_MAX_ENTRIES * (PERF_MAX_RUNS + 1) * 80 + 4096)

/* Sets the reason in @err for the caller to return. */
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Digits only: strtoull would accept "-1", " 1" and "+1". */
int perf_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return errno ? -ERANGE : -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
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
	if (errno || *end || end == s || !isfinite(v))
		return errno ? -ERANGE : -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int perf_parse_uint_list(const char *s, unsigned long long min,
			 unsigned long long max, unsigned int *out,
			 size_t max_n, size_t *n)
{
	unsigned long long v;
	char buf[256], *tok, *save;
	int ret;

	if (!s || !*s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	/* strtok_r would silently merge empty items ("1,,2", "1,") */
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return -EINVAL;
	memcpy(buf, s, strlen(s) + 1);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == max_n)
			return -E2BIG;
		ret = perf_parse_uint(tok, min, max, &v);
		if (ret)
			return ret;
		out[(*n)++] = v;
	}
	return *n ? 0 : -EINVAL;
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

enum {
	K_VERSION, K_MACHINE, K_CPU, K_KERNEL, K_LSM, K_APPARMOR, K_BATCH,
	K_MSGS, K_WARMUP, K_ICOUNT, K_END, K_NR,
};

static const char * const bl_keys[K_NR] = {
	"version", "machine_id", "cpu_model", "kernel", "lsm", "apparmor",
	"batch", "msgs_per_round", "warmup", "icount", "end",
};

/* What an "entry=" line claims, checked against the runs at the end. */
struct claim {
	char workload[PERF_NAME_MAX];
	unsigned int msg_size;
	double ratio;
	double spread;
	unsigned int runs;
};

struct parse_state {
	unsigned int seen;	/* keys, a bit each */
	size_t nr_claims;
	struct claim claims[PERF_MAX_ENTRIES];
};

static int bl_uint(const char *v, unsigned long long min,
		   unsigned long long max, unsigned int *out)
{
	unsigned long long x;

	if (perf_parse_uint(v, min, max, &x))
		return -EINVAL;
	*out = x;
	return 0;
}

static int bl_text(const char *v, char *out, size_t len)
{
	size_t n = strlen(v);

	if (!n || n >= len)
		return -EINVAL;
	memcpy(out, v, n + 1);
	return 0;
}

static int bl_bool(const char *v, bool *out)
{
	if (strcmp(v, "yes") && strcmp(v, "no"))
		return -EINVAL;
	*out = !strcmp(v, "yes");
	return 0;
}

/* Splits @v into exactly @n blank separated fields. */
static int fields(char *v, char **f, int n)
{
	char *save;
	int i = 0;

	for (f[i] = strtok_r(v, " ", &save); f[i] && i < n;
	     f[++i] = strtok_r(NULL, " ", &save))
		;
	return i == n && !f[n] ? 0 : -EINVAL;
}

static int bl_run(char *v, struct perf_baseline *b)
{
	struct perf_run_result r;
	unsigned int size;
	char *f[6];

	if (fields(v, f, 5) || bl_uint(f[1], 1, 1 << 20, &size) ||
	    strlen(f[0]) >= PERF_NAME_MAX ||
	    perf_parse_double(f[2], 0.1, 10, &r.ratio) ||
	    perf_parse_double(f[3], 0.01, 1e9, &r.dgram_ns) ||
	    perf_parse_double(f[4], 0.01, 1e9, &r.seqpacket_ns))
		return -EINVAL;
	return perf_baseline_add_run(b, f[0], size, &r);
}

static int bl_claim(char *v, struct parse_state *ps)
{
	struct claim c = { 0 };
	char *f[6];
	size_t i;

	if (fields(v, f, 5) || bl_text(f[0], c.workload, sizeof(c.workload)) ||
	    bl_uint(f[1], 1, 1 << 20, &c.msg_size) ||
	    perf_parse_double(f[2], 0.1, 10, &c.ratio) ||
	    perf_parse_double(f[3], 0, 10, &c.spread) ||
	    bl_uint(f[4], 1, PERF_MAX_RUNS, &c.runs))
		return -EINVAL;
	for (i = 0; i < ps->nr_claims; i++)
		if (!strcmp(ps->claims[i].workload, c.workload) &&
		    ps->claims[i].msg_size == c.msg_size)
			return -EEXIST;
	if (ps->nr_claims == PERF_MAX_ENTRIES)
		return -E2BIG;
	ps->claims[ps->nr_claims++] = c;
	return 0;
}

/* Each entry line agrees with its runs, and each run has an entry line. */
static int check_claims(const struct parse_state *ps,
			const struct perf_baseline *b, char *err, size_t errlen)
{
	unsigned long long claimed = 0;	/* entries, a bit each */
	const struct perf_entry *e;
	const struct claim *c;
	size_t i;

	for (i = 0; i < ps->nr_claims; i++) {
		c = &ps->claims[i];
		e = perf_baseline_find(b, c->workload, c->msg_size);
		if (!e)
			return bad(err, errlen, "entry %s %u has no 'run' lines",
				   c->workload, c->msg_size);
		/* both sides printed with 6 decimals */
		if (e->nr_runs != c->runs || fabs(e->ratio - c->ratio) > 2e-6 ||
		    fabs(e->spread - c->spread) > 2e-6)
			return bad(err, errlen,
				   "entry %s %u says ratio %.6f, spread %.6f over %u runs; its 'run' lines give %.6f, %.6f over %zu",
				   c->workload, c->msg_size, c->ratio, c->spread,
				   c->runs, e->ratio, e->spread, e->nr_runs);
		claimed |= 1ULL << (e - b->entries);
	}
	for (i = 0; i < b->nr_entries; i++)
		if (!(claimed & (1ULL << i)))
			return bad(err, errlen, "runs of %s %u have no 'entry' line",
				   b->entries[i].workload, b->entries[i].msg_size);
	return 0;
}

static int bl_value(int k, char *v, struct perf_baseline *b)
{
	unsigned int x;

	switch (k) {
	case K_VERSION:
		if (bl_uint(v, 0, 1000, &x))
			return -EINVAL;
		return x == PERF_BASELINE_VERSION ? 0 : -EPROTO;
	case K_MACHINE:
		return bl_text(v, b->id.machine_id, sizeof(b->id.machine_id));
	case K_CPU:
		return bl_text(v, b->id.cpu_model, sizeof(b->id.cpu_model));
	case K_KERNEL:
		return bl_text(v, b->sys.kernel, sizeof(b->sys.kernel));
	case K_LSM:
		return bl_text(v, b->sys.lsm, sizeof(b->sys.lsm));
	case K_APPARMOR:
		return bl_bool(v, &b->sys.apparmor);
	case K_BATCH:
		return bl_uint(v, 1, 1024, &b->set.batch);
	case K_MSGS:
		return bl_uint(v, 1, 1U << 30, &b->set.msgs_per_round);
	case K_WARMUP:
		return bl_uint(v, 0, 1000, &b->set.warmup);
	case K_ICOUNT:
		return bl_bool(v, &b->set.icount);
	case K_END:
		return strcmp(v, "1") ? -EINVAL : 0;
	}
	return -EINVAL;
}

static int bl_line(char *line, unsigned int lineno, struct parse_state *ps,
		   struct perf_baseline *b, char *err, size_t errlen)
{
	unsigned int *seen = &ps->seen;
	char *eq = strchr(line, '=');
	int k, ret;

	if (!eq)
		return bad(err, errlen, "line %u: expected key=value", lineno);
	*eq = '\0';
	if (!*seen && strcmp(line, "version"))
		return bad(err, errlen,
			   "line %u: not an af_unix_send_perf baseline ('%.32s' before 'version')",
			   lineno, line);
	if (!strcmp(line, "run")) {
		ret = bl_run(eq + 1, b);
		if (ret)
			snprintf(err, errlen, "line %u: %s run", lineno,
				 ret == -E2BIG ? "one too many" : "malformed");
		return ret;
	}
	if (!strcmp(line, "entry")) {
		ret = bl_claim(eq + 1, ps);
		if (ret)
			snprintf(err, errlen, "line %u: %s entry", lineno,
				 ret == -EEXIST ? "duplicate" :
				 ret == -E2BIG ? "one too many" : "malformed");
		return ret;
	}
	for (k = 0; k < K_NR; k++)
		if (!strcmp(line, bl_keys[k]))
			break;
	if (k == K_NR)
		return bad(err, errlen, "line %u: unknown key '%.32s'", lineno,
			   line);
	if (*seen & (1U << k))
		return bad(err, errlen, "line %u: duplicate key '%s'", lineno, line);
	*seen |= 1U << k;
	ret = bl_value(k, eq + 1, b);
	if (ret == -EPROTO)
		snprintf(err, errlen,
			 "line %u: version %.16s, this program reads version %d: record the baseline again",
			 lineno, eq + 1, PERF_BASELINE_VERSION);
	else if (ret)
		snprintf(err, errlen, "line %u: bad value for '%s'", lineno, line);
	return ret;
}

int perf_baseline_parse(const char *text, struct perf_baseline *b,
			char *err, size_t errlen)
{
	static struct parse_state ps;
	unsigned int lineno = 0, k;
	const char *p = text, *nl;
	char line[512];
	int ret;

	memset(b, 0, sizeof(*b));
	memset(&ps, 0, sizeof(ps));
	if (!*text)
		return bad(err, errlen, "empty file");
	while (*p) {
		lineno++;
		if (ps.seen & (1U << K_END))
			return bad(err, errlen, "line %u: data after 'end'", lineno);
		nl = strchr(p, '\n');
		if (!nl)
			return bad(err, errlen, "line %u: truncated (no newline)",
				   lineno);
		if ((size_t)(nl - p) >= sizeof(line))
			return bad(err, errlen, "line %u: too long", lineno);
		memcpy(line, p, nl - p);
		line[nl - p] = '\0';
		p = nl + 1;
		if (line[0] == '#' || !line[0])
			continue;
		ret = bl_line(line, lineno, &ps, b, err, errlen);
		if (ret)
			return ret;
	}
	for (k = 0; k < K_NR; k++)
		if (!(ps.seen & (1U << k)))
			return bad(err, errlen, "missing key '%s'%s", bl_keys[k],
				   k == K_END ? " (truncated file?)" : "");
	if (!b->nr_entries)
		return bad(err, errlen, "no 'run' lines");
	return check_claims(&ps, b, err, errlen);
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
	text = perf_read_file(path, FILE_MAX, msg, sizeof(msg));
	if (!text) {
		snprintf(err, errlen, "%s", msg);
		return -EIO;
	}
	ret = perf_baseline_parse(text, b, msg, sizeof(msg));
	free(text);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

/* Appends to @buf at *@off; -ENOSPC when it does not fit. */
static int append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off)
		return -ENOSPC;
	*off += n;
	return 0;
}

int perf_baseline_format(const struct perf_baseline *b, char *buf, size_t len)
{
	const struct perf_entry *e;
	size_t off = 0, i, j;

	if (append(buf, len, &off,
		   "# AppArmor af_unix_send_perf baseline, written by 'run_perf.sh record'\n"
		   "version=%d\nmachine_id=%s\ncpu_model=%s\nkernel=%s\nlsm=%s\n"
		   "apparmor=%s\nbatch=%u\nmsgs_per_round=%u\nwarmup=%u\n"
		   "icount=%s\n"
		   "# run=workload size ratio dgram_ns seqpacket_ns\n"
		   "# entry=workload size mean_ratio spread runs (spread: stdev/mean)\n",
		   PERF_BASELINE_VERSION, b->id.machine_id, b->id.cpu_model,
		   b->sys.kernel, b->sys.lsm, b->sys.apparmor ? "yes" : "no",
		   b->set.batch, b->set.msgs_per_round, b->set.warmup,
		   b->set.icount ? "yes" : "no"))
		return -ENOSPC;
	for (i = 0; i < b->nr_entries; i++) {
		e = &b->entries[i];
		for (j = 0; j < e->nr_runs; j++)
			if (append(buf, len, &off, "run=%s %u %.6f %.3f %.3f\n",
				   e->workload, e->msg_size, e->runs[j].ratio,
				   e->runs[j].dgram_ns, e->runs[j].seqpacket_ns))
				return -ENOSPC;
		if (append(buf, len, &off, "entry=%s %u %.6f %.6f %zu\n",
			   e->workload, e->msg_size, e->ratio, e->spread,
			   e->nr_runs))
			return -ENOSPC;
	}
	return append(buf, len, &off, "end=1\n");
}

/* Written to a temporary file and renamed so a reader never sees half. */
int perf_baseline_store(const char *path, const struct perf_baseline *b,
			char *err, size_t errlen)
{
	char tmp[4096], *buf = malloc(FILE_MAX);
	int fd = -1, ret = -ENOSPC;
	size_t len;

	if (!buf || perf_baseline_format(b, buf, FILE_MAX) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "baseline too large");
		goto out;
	}
	ret = -EIO;
	fd = mkstemp(tmp);
	len = strlen(buf);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) ||
	    fchmod(fd, 0644) || rename(tmp, path)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
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

/*
 * The entry's mean, spread (sample stdev / mean) and mean times, from its
 * runs: as perf_summarize() computes them, but here, since perf_verdict.c
 * judges with an entry and so stands above this file.
 */
static void summarize(struct perf_entry *e)
{
	double ratio = 0, dgram = 0, seqpacket = 0, ss = 0;
	size_t i, n = e->nr_runs;

	for (i = 0; i < n; i++) {
		ratio += e->runs[i].ratio;
		dgram += e->runs[i].dgram_ns;
		seqpacket += e->runs[i].seqpacket_ns;
	}
	e->ratio = ratio / n;
	for (i = 0; i < n; i++)
		ss += (e->runs[i].ratio - e->ratio) * (e->runs[i].ratio - e->ratio);
	e->spread = n > 1 && e->ratio != 0 ? sqrt(ss / (n - 1)) / e->ratio : 0;
	e->dgram_ns = dgram / n;
	e->seqpacket_ns = seqpacket / n;
}

int perf_baseline_add_run(struct perf_baseline *b, const char *workload,
			  unsigned int msg_size,
			  const struct perf_run_result *r)
{
	struct perf_entry *e;

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
	summarize(e);
	return 0;
}
