/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AppArmor's audit records, read as they are emitted from the audit
 * subsystem's read-only multicast group (as journald reads them): no audit
 * daemon is displaced, and no record is lost to printk rate limits.
 */

#ifndef _SELFTESTS_APPARMOR_AUDIT_LOG_H
#define _SELFTESTS_APPARMOR_AUDIT_LOG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A socket receiving every audit record from now on, or -errno with why it
 * cannot in @why (no CONFIG_AUDIT, no CAP_AUDIT_READ, ...).
 */
int audit_log_open(char *why, size_t len);

/*
 * Waits up to @ms for a record whose text holds every string of @needles
 * (NULL-terminated) and copies its text to @rec.  0, -ETIMEDOUT, or -errno.
 */
int audit_log_find(int fd, const char *const needles[], char *rec,
		   size_t len, int ms);

/*
 * Reads records up to the first that holds every string of @stop, a mark
 * the caller caused after what it looks for: records come in the order
 * they were made, so what was not before the mark was not made.  Returns
 * 1 with the first record holding every string of @want before it in
 * @rec, 0 if none did, -ETIMEDOUT if the mark did not come within @ms,
 * or -errno.
 */
int audit_log_until(int fd, const char *const stop[],
		    const char *const want[], char *rec, size_t len, int ms);

/*
 * Reads records up to the first that holds every string of @stop, as
 * audit_log_until() does, and returns how many before it @match took, or
 * -ETIMEDOUT or -errno.
 */
int audit_log_scan(int fd, const char *const stop[],
		   bool (*match)(const char *rec, void *arg), void *arg, int ms);

/* The value of @key=value or @key="value" in record @rec; false if absent. */
bool audit_field(const char *rec, const char *key, char *val, size_t len);

#endif /* _SELFTESTS_APPARMOR_AUDIT_LOG_H */
