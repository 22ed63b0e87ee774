/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel reports about itself while a test runs: the splats of
 * a debug kernel in its log (KASAN, lockdep, might_sleep(), refcount_t,
 * oopses).  A bug these tests replay may leave no other trace.
 */

#ifndef _SELFTESTS_APPARMOR_KERNEL_REPORTS_H
#define _SELFTESTS_APPARMOR_KERNEL_REPORTS_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel log from a point on. */
struct klog {
	int fd;		/* /dev/kmsg, or -1: the log cannot be read */
};

/*
 * Starts reading the kernel log at its end.  Returns 0, or -errno when
 * /dev/kmsg cannot be read (not root, or dmesg_restrict): klog_report()
 * then finds nothing.
 */
int klog_start(struct klog *k);

/*
 * The first splat the kernel logged since klog_start(), its header line
 * in @line ("BUG: KASAN: slab-use-after-free in ...").  False if none.
 */
bool klog_report(struct klog *k, char *line, size_t len);

void klog_stop(struct klog *k);

#endif /* _SELFTESTS_APPARMOR_KERNEL_REPORTS_H */
