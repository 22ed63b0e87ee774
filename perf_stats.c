// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics, strict parsing, baseline file and A/B/A report for the
 * AppArmor AF_UNIX send benchmark.  See perf_stats.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_stats.h"

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int perf_summarize(const double *v, size_t n, struct perf_summary *s)
{
	double sorted[PERF_MAX_ROUNDS], sum = 0, ss = 0;
	size_t i;

	if (!n || n > PERF_MAX_ROUNDS)
		return -EINVAL;
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->n = n;
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	s->cv = s->mean != 0 ? s->stdev / s->mean : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] :
		(sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	return 0;
}

/*
 * 0.975 quantile of Student's t: a table up to 30 degrees of freedom, then
 * the Cornish-Fisher expansion, which is within 1e-3 of the exact value
 * there and better beyond.
 */
double perf_t975(size_t df)
{
	static const double tab[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	const double z = 1.959964;
	double d = df;

	if (!df)
		return NAN;
	if (df <= ARRAY_SIZE(tab))
		return tab[df - 1];
	return z + (z * z * z + z) / (4 * d) +
		(5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

int perf_mean_ci(const double *v, size_t n, struct perf_ci *ci)
{
	struct perf_summary s;

	if (n < 2 || perf_summarize(v, n, &s))
		return -EINVAL;
	ci->n = n;
	ci->mean = s.mean;
	ci->half = perf_t975(n - 1) * s.stdev / sqrt(n);
	ci->lo = ci->mean - ci->half;
	ci->hi = ci->mean + ci->half;
	return 0;
}

int perf_ratios(const double *num, const double *den, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(den[i] > 0))
			return -EINVAL;
		out[i] = num[i] / den[i];
	}
	return 0;
}

/*
 * A regression needs both a mean above the limit and a CI lower bound above
 * it, so that noise alone cannot fail the test.  A CI wider than the
 * tolerance band cannot resolve a change of that size, so no verdict.
 */
enum perf_verdict perf_judge(double base_ratio, double tol,
			     const struct perf_ci *ci, double *limit)
{
	double lim = base_ratio * (1 + tol);

	if (limit)
		*limit = lim;
	if (!(2 * ci->half <= tol * base_ratio))
		return PERF_NOISY;
	if (ci->mean <= lim)
		return PERF_PASS;
	if (ci->lo > lim)
		return PERF_FAIL;
	return PERF_NOISY;
}

const char *perf_verdict_name(enum perf_verdict v)
{
	switch (v) {
	case PERF_PASS:
		return "pass";
	case PERF_FAIL:
		return "fail";
	default:
		return "noisy";
	}
}

int perf_aba(double a1, double b, double a2, struct perf_aba *r)
{
	if (!(a1 > 0) || !(b > 0) || !(a2 > 0))
		return -EINVAL;
	r->a1 = a1;
	r->b = b;
	r->a2 = a2;
	r->mid = (a1 + a2) / 2;
	r->slowdown_pct = (b / r->mid - 1) * 100;
	r->drift_pct = (a2 / a1 - 1) * 100;
	return 0;
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

	if (!s || !*s || !strchr("0123456789.-+", *s))
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
	char *buf;
	size_t len = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	while ((r = read(fd, buf + len, max - len)) > 0)
		len += r;
	close(fd);
	if (r < 0 || len == max) {
		seterr(err, errlen, "%s: %s", path,
		       r < 0 ? strerror(errno) : "file too large");
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		seterr(err, errlen, "%s: contains a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* --- baseline file ------------------------------------------------------ */

enum {
	K_VERSION, K_MACHINE, K_CPU, K_BATCH, K_MSGS, K_ROUNDS, K_WARMUP,
	K_ICOUNT, K_KERNEL, K_END, K_NR,
};

static const char * const bl_keys[K_NR] = {
	"version", "machine_id", "cpu_model", "batch", "msgs_per_round",
	"rounds", "warmup", "icount", "kernel", "end",
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

static int bl_entry(char *v, struct perf_baseline *b)
{
	struct perf_entry e = { 0 };
	char *f[6], *save;
	int n = 0;

	for (f[n] = strtok_r(v, " ", &save); f[n] && n < 5;
	     f[++n] = strtok_r(NULL, " ", &save))
		;
	if (n != 5 || f[5])
		return -EINVAL;
	if (bl_text(f[0], e.workload, sizeof(e.workload)) ||
	    bl_uint(f[1], 1, 1 << 20, &e.msg_size) ||
	    perf_parse_double(f[2], 0.1, 10, &e.ratio) ||
	    perf_parse_double(f[3], 0.01, 1e9, &e.dgram_ns) ||
	    perf_parse_double(f[4], 0.01, 1e9, &e.seqpacket_ns))
		return -EINVAL;
	if (perf_baseline_find(b, e.workload, e.msg_size))
		return -EEXIST;
	return perf_baseline_put(b, &e);
}

static int bl_value(int k, char *v, struct perf_baseline *b)
{
	unsigned int x;

	switch (k) {
	case K_VERSION:
		if (bl_uint(v, 0, 1000, &x))
			return -EINVAL;
		b->version = x;
		return x == PERF_BASELINE_VERSION ? 0 : -EPROTO;
	case K_MACHINE:
		return bl_text(v, b->id.machine_id, sizeof(b->id.machine_id));
	case K_CPU:
		return bl_text(v, b->id.cpu_model, sizeof(b->id.cpu_model));
	case K_BATCH:
		return bl_uint(v, 1, 1024, &b->set.batch);
	case K_MSGS:
		return bl_uint(v, 1, 1U << 30, &b->set.msgs_per_round);
	case K_ROUNDS:
		return bl_uint(v, 2, PERF_MAX_ROUNDS, &b->set.rounds);
	case K_WARMUP:
		return bl_uint(v, 0, 1000, &b->set.warmup);
	case K_ICOUNT:
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return -EINVAL;
		b->set.icount = !strcmp(v, "yes");
		return 0;
	case K_KERNEL:
		return bl_text(v, b->kernel, sizeof(b->kernel));
	case K_END:
		return strcmp(v, "1") ? -EINVAL : 0;
	}
	return -EINVAL;
}

static int bl_line(char *line, unsigned int lineno, unsigned int *seen,
		   struct perf_baseline *b, char *err, size_t errlen)
{
	char *eq = strchr(line, '=');
	int k, ret;

	if (!eq) {
		seterr(err, errlen, "line %u: expected key=value", lineno);
		return -EINVAL;
	}
	*eq = '\0';
	if (!strcmp(line, "entry")) {
		ret = bl_entry(eq + 1, b);
		if (ret)
			seterr(err, errlen, "line %u: %s entry", lineno,
			       ret == -EEXIST ? "duplicate" : "malformed");
		return ret;
	}
	for (k = 0; k < K_NR; k++)
		if (!strcmp(line, bl_keys[k]))
			break;
	if (k == K_NR) {
		seterr(err, errlen, "line %u: unknown key '%s'", lineno, line);
		return -EINVAL;
	}
	if (*seen & (1U << k)) {
		seterr(err, errlen, "line %u: duplicate key '%s'", lineno, line);
		return -EINVAL;
	}
	*seen |= 1U << k;
	ret = bl_value(k, eq + 1, b);
	if (ret)
		seterr(err, errlen, "line %u: bad value for '%s'%s", lineno,
		       line, ret == -EPROTO ? " (unsupported version)" : "");
	return ret;
}

int perf_baseline_parse(const char *text, struct perf_baseline *b,
			char *err, size_t errlen)
{
	unsigned int seen = 0, lineno = 0, k;
	const char *p = text, *nl;
	char line[512];
	int ret;

	memset(b, 0, sizeof(*b));
	while (*p) {
		lineno++;
		if (seen & (1U << K_END)) {
			seterr(err, errlen, "line %u: data after 'end'", lineno);
			return -EINVAL;
		}
		nl = strchr(p, '\n');
		if (!nl) {
			seterr(err, errlen, "line %u: truncated (no newline)",
			       lineno);
			return -EINVAL;
		}
		if ((size_t)(nl - p) >= sizeof(line)) {
			seterr(err, errlen, "line %u: too long", lineno);
			return -EINVAL;
		}
		memcpy(line, p, nl - p);
		line[nl - p] = '\0';
		p = nl + 1;
		if (line[0] == '#' || !line[0])
			continue;
		ret = bl_line(line, lineno, &seen, b, err, errlen);
		if (ret)
			return ret;
	}
	for (k = 0; k < K_NR; k++) {
		if (!(seen & (1U << k))) {
			seterr(err, errlen, "missing key '%s'%s", bl_keys[k],
			       k == K_END ? " (truncated file?)" : "");
			return -EINVAL;
		}
	}
	if (!b->nr_entries) {
		seterr(err, errlen, "no 'entry' lines");
		return -EINVAL;
	}
	return 0;
}

int perf_baseline_load(const char *path, struct perf_baseline *b,
		       char *err, size_t errlen)
{
	char msg[PERF_ERR_MAX];
	char *text;
	int ret;

	if (access(path, F_OK) && errno == ENOENT) {
		seterr(err, errlen, "%s does not exist", path);
		return -ENOENT;
	}
	text = perf_read_file(path, 64 * 1024, err, errlen);
	if (!text)
		return -EIO;
	ret = perf_baseline_parse(text, b, msg, sizeof(msg));
	free(text);
	if (ret)
		seterr(err, errlen, "%s: %s", path, msg);
	return ret;
}

int perf_baseline_format(const struct perf_baseline *b, char *buf, size_t len)
{
	size_t off, i;
	int n;

	n = snprintf(buf, len,
		     "# AppArmor af_unix_send_perf baseline, written by 'run_perf.sh record'\n"
		     "version=%d\nmachine_id=%s\ncpu_model=%s\nbatch=%u\n"
		     "msgs_per_round=%u\nrounds=%u\nwarmup=%u\nicount=%s\n"
		     "kernel=%s\n",
		     PERF_BASELINE_VERSION, b->id.machine_id, b->id.cpu_model,
		     b->set.batch, b->set.msgs_per_round, b->set.rounds,
		     b->set.warmup, b->set.icount ? "yes" : "no", b->kernel);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	off = n;
	for (i = 0; i < b->nr_entries; i++) {
		const struct perf_entry *e = &b->entries[i];

		n = snprintf(buf + off, len - off, "entry=%s %u %.6f %.3f %.3f\n",
			     e->workload, e->msg_size, e->ratio, e->dgram_ns,
			     e->seqpacket_ns);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += n;
	}
	n = snprintf(buf + off, len - off, "end=1\n");
	return n < 0 || (size_t)n >= len - off ? -ENOSPC : 0;
}

/* Written to a temporary file and renamed so a reader never sees half. */
int perf_baseline_store(const char *path, const struct perf_baseline *b,
			char *err, size_t errlen)
{
	char tmp[4096], buf[16384];
	size_t len;
	int fd;

	if (perf_baseline_format(b, buf, sizeof(buf)) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp)) {
		seterr(err, errlen, "baseline too large");
		return -ENOSPC;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	len = strlen(buf);
	if (write(fd, buf, len) != (ssize_t)len || fsync(fd) ||
	    fchmod(fd, 0644)) {
		seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -EIO;
	}
	close(fd);
	if (rename(tmp, path)) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

int perf_baseline_match(const struct perf_baseline *b,
			const struct perf_identity *id,
			const struct perf_settings *set,
			char *err, size_t errlen)
{
	if (strcmp(b->id.machine_id, id->machine_id) ||
	    strcmp(b->id.cpu_model, id->cpu_model)) {
		seterr(err, errlen,
		       "recorded on another machine (%s, %s), this is (%s, %s)",
		       b->id.machine_id, b->id.cpu_model, id->machine_id,
		       id->cpu_model);
		return -EINVAL;
	}
	if (b->set.batch != set->batch ||
	    b->set.msgs_per_round != set->msgs_per_round ||
	    b->set.rounds != set->rounds || b->set.warmup != set->warmup ||
	    b->set.icount != set->icount) {
		seterr(err, errlen,
		       "recorded with other settings (batch %u msgs %u rounds %u warmup %u icount %s), this run (batch %u msgs %u rounds %u warmup %u icount %s)",
		       b->set.batch, b->set.msgs_per_round, b->set.rounds,
		       b->set.warmup, b->set.icount ? "yes" : "no",
		       set->batch, set->msgs_per_round, set->rounds,
		       set->warmup, set->icount ? "yes" : "no");
		return -EINVAL;
	}
	return 0;
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

/* Adds an entry or replaces the one with the same workload and size. */
int perf_baseline_put(struct perf_baseline *b, const struct perf_entry *e)
{
	struct perf_entry *old;

	if (strchr(e->workload, ' ') || !e->workload[0])
		return -EINVAL;
	old = (struct perf_entry *)perf_baseline_find(b, e->workload,
						      e->msg_size);
	if (old) {
		*old = *e;
		return 0;
	}
	if (b->nr_entries == PERF_MAX_ENTRIES)
		return -E2BIG;
	b->entries[b->nr_entries++] = *e;
	return 0;
}

/* --- JSON results, one series object per line (see af_unix_send_perf) --- */

static const char *json_val(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

static int json_str(const char *line, const char *key, char *out, size_t len)
{
	const char *p = json_val(line, key), *q;

	if (!p || *p != '"')
		return -EINVAL;
	q = strchr(++p, '"');
	if (!q || (size_t)(q - p) >= len)
		return -EINVAL;
	memcpy(out, p, q - p);
	out[q - p] = '\0';
	return 0;
}

static int json_num(const char *line, const char *key, double *out)
{
	const char *p = json_val(line, key);
	char *end;

	if (!p)
		return -EINVAL;
	errno = 0;
	*out = strtod(p, &end);
	return errno || end == p || (*end != ',' && *end != '}') ? -EINVAL : 0;
}

static int json_array(const char *line, const char *key, double *out,
		      size_t max, size_t *n)
{
	const char *p = json_val(line, key);
	char *end;

	if (!p || *p++ != '[')
		return -EINVAL;
	for (*n = 0; *p != ']'; p = end + (*end == ',' ? 2 : 0)) {
		if (*n == max)
			return -E2BIG;
		errno = 0;
		out[*n] = strtod(p, &end);
		if (errno || end == p || (*end != ',' && *end != ']'))
			return -EINVAL;
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

static int json_series(const char *line, struct perf_series *s)
{
	double size, val, fail;

	if (json_str(line, "variant", s->variant, sizeof(s->variant)) ||
	    json_str(line, "workload", s->workload, sizeof(s->workload)) ||
	    json_str(line, "sock", s->sock, sizeof(s->sock)) ||
	    json_num(line, "msg_size", &size) || json_num(line, "cv", &s->cv) ||
	    json_num(line, "validated_msgs", &val) ||
	    json_num(line, "validation_failures", &fail) ||
	    json_array(line, "ns_per_msg", s->ns, PERF_MAX_ROUNDS, &s->n))
		return -EINVAL;
	s->msg_size = size;
	s->validated = val;
	s->failures = fail;
	return 0;
}

/* Returns 0 when found, -ENOENT when absent, -EINVAL on a broken line. */
int perf_json_find(const char *text, const char *variant,
		   const char *workload, const char *sock,
		   unsigned int msg_size, struct perf_series *s)
{
	const char *p = text, *nl;
	char line[32768];

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if ((size_t)(nl - p) >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, nl - p);
		line[nl - p] = '\0';
		if (!strstr(line, "\"ns_per_msg\": "))
			continue;
		if (json_series(line, s))
			return -EINVAL;
		if (!strcmp(s->variant, variant) &&
		    !strcmp(s->workload, workload) &&
		    !strcmp(s->sock, sock) && s->msg_size == msg_size)
			return 0;
	}
	return -ENOENT;
}
