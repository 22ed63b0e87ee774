/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict parsing of numbers and lists for af_unix_send_perf's options and
 * baseline file: strtoull() and strtod() alone accept "-1", " 1", "nan"
 * and trailing junk.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_PARSE_H
#define _SELFTESTS_APPARMOR_PERF_PARSE_H

#include <stddef.h>

/* Each returns 0, -EINVAL for malformed text or -ERANGE outside [min, max]. */
int perf_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
/* Finite numbers only. */
int perf_parse_double(const char *s, double min, double max, double *out);
/* "a,b,c": no empty items; -E2BIG for more than @max_n. */
int perf_parse_uint_list(const char *s, unsigned long long min,
			 unsigned long long max, unsigned int *out,
			 size_t max_n, size_t *n);

/*
 * The whole of a text file of at most @max bytes, NUL terminated, or NULL
 * with the reason in @err.
 */
char *perf_read_file(const char *path, size_t max, char *err, size_t errlen);

#endif /* _SELFTESTS_APPARMOR_PERF_PARSE_H */
