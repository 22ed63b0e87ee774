// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's reports on itself: its log through /dev/kmsg, read from a
 * point on.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel_reports.h"

/*
 * How a splat's first line starts: KASAN, might_sleep() and oopses say
 * "BUG:", lockdep and WARN() "WARNING:", refcount_t "refcount_t:".
 */
static const char *const splat_starts[] = {
	"BUG: ", "WARNING: ", "refcount_t: ", "Oops: ", "kernel BUG at ",
	"general protection fault", "UBSAN: ", NULL,
};

int klog_start(struct klog *k)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	if (lseek(k->fd, 0, SEEK_END) < 0) {
		int ret = -errno;

		klog_stop(k);
		return ret;
	}
	return 0;
}

static bool is_splat(const char *msg)
{
	size_t i;

	for (i = 0; splat_starts[i]; i++)
		if (!strncmp(msg, splat_starts[i], strlen(splat_starts[i])))
			return true;
	return false;
}

bool klog_report(struct klog *k, char *line, size_t len)
{
	/* One read, one record: "prio,seq,usec,flags[,...];text\n..." */
	char rec[8192], *msg, *end;
	ssize_t n;

	while (k->fd >= 0) {
		n = read(k->fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before it was read */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (is_splat(msg)) {
			snprintf(line, len, "%s", msg);
			return true;
		}
	}
	return false;
}

void klog_stop(struct klog *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}
