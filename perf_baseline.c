// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline file of af_unix_send_perf: "key=value" lines, one "entry="
 * line per workload and size, and "end=1" last so that a truncated file
 * is never taken for a whole one.  See perf_baseline.h.
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
#include "perf_parse.h"

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

enum {
	K_VERSION, K_MACHINE, K_CPU, K_KERNEL, K_LSM, K_APPARMOR, K_BATCH,
	K_MSGS, K_WARMUP, K_ICOUNT, K_TOLERANCE, K_END, K_NR,
};

static const char * const bl_keys[K_NR] = {
	"version", "machine_id", "cpu_model", "kernel", "lsm", "apparmor",
	"batch", "msgs_per_round", "warmup", "icount", "tolerance", "end",
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
	case K_TOLERANCE:
		return perf_parse_double(v, 1e-6, 1, &b->set.tolerance) ?
			-EINVAL : 0;
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
	if (!*seen && strcmp(line, "version")) {
		seterr(err, errlen,
		       "line %u: not an af_unix_send_perf baseline ('%.32s' before 'version')",
		       lineno, line);
		return -EINVAL;
	}
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
		seterr(err, errlen, "line %u: unknown key '%.32s'", lineno, line);
		return -EINVAL;
	}
	if (*seen & (1U << k)) {
		seterr(err, errlen, "line %u: duplicate key '%s'", lineno, line);
		return -EINVAL;
	}
	*seen |= 1U << k;
	ret = bl_value(k, eq + 1, b);
	if (ret == -EPROTO)
		seterr(err, errlen,
		       "line %u: version %.16s, this program reads version %d: record the baseline again",
		       lineno, eq + 1, PERF_BASELINE_VERSION);
	else if (ret)
		seterr(err, errlen, "line %u: bad value for '%s'", lineno, line);
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
	if (!*text) {
		seterr(err, errlen, "empty file");
		return -EINVAL;
	}
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
	text = perf_read_file(path, 64 * 1024, msg, sizeof(msg));
	if (!text) {
		seterr(err, errlen, "%s", msg);
		return -EIO;
	}
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
		     "version=%d\nmachine_id=%s\ncpu_model=%s\nkernel=%s\nlsm=%s\n"
		     "apparmor=%s\nbatch=%u\nmsgs_per_round=%u\nwarmup=%u\n"
		     "icount=%s\ntolerance=%.6f\n",
		     PERF_BASELINE_VERSION, b->id.machine_id, b->id.cpu_model,
		     b->sys.kernel, b->sys.lsm, b->sys.apparmor ? "yes" : "no",
		     b->set.batch, b->set.msgs_per_round, b->set.warmup,
		     b->set.icount ? "yes" : "no", b->set.tolerance);
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

static bool same_settings(const struct perf_settings *a,
			  const struct perf_settings *b)
{
	return a->batch == b->batch && a->msgs_per_round == b->msgs_per_round &&
		a->warmup == b->warmup && a->icount == b->icount &&
		fabs(a->tolerance - b->tolerance) < 1e-9;
}

static void describe(const struct perf_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "batch %u, %u msgs/round, warm-up %u, icount %s, tolerance %g%%",
		 s->batch, s->msgs_per_round, s->warmup,
		 s->icount ? "yes" : "no", s->tolerance * 100);
}

enum perf_match perf_baseline_match(const struct perf_baseline *b,
				    const struct perf_identity *id,
				    const struct perf_system *sys,
				    const struct perf_settings *set,
				    char *err, size_t errlen)
{
	char was[160], now[160];

	if (strcmp(b->id.machine_id, id->machine_id) ||
	    strcmp(b->id.cpu_model, id->cpu_model)) {
		seterr(err, errlen,
		       "recorded on another machine (%s, %s), this is (%s, %s)",
		       b->id.machine_id, b->id.cpu_model, id->machine_id,
		       id->cpu_model);
		return PERF_OTHER_MACHINE;
	}
	if (strcmp(b->sys.lsm, sys->lsm) || b->sys.apparmor != sys->apparmor) {
		seterr(err, errlen,
		       "recorded with LSMs %s, AppArmor %s; this kernel has %s, AppArmor %s",
		       b->sys.lsm, b->sys.apparmor ? "enabled" : "disabled",
		       sys->lsm, sys->apparmor ? "enabled" : "disabled");
		return PERF_OTHER_SYSTEM;
	}
	if (!same_settings(&b->set, set)) {
		describe(&b->set, was, sizeof(was));
		describe(set, now, sizeof(now));
		seterr(err, errlen,
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
