// SPDX-License-Identifier: GPL-2.0
/* Strict parsing for af_unix_send_perf.  See perf_parse.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_parse.h"

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
	size_t len = 0;
	ssize_t r;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while ((r = read(fd, buf + len, max - len)) > 0)
		len += r;
	close(fd);
	if (r < 0 || len == max) {
		snprintf(err, errlen, "%s: %s", path,
			 r < 0 ? strerror(errno) : "file too large");
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
}
