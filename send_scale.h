/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_unix_send_perf --senders: the cost of a datagram send when several
 * processes send at once, each pinned to its own CPU.
 */
#ifndef _SELFTESTS_APPARMOR_SEND_SCALE_H
#define _SELFTESTS_APPARMOR_SEND_SCALE_H

#include <stddef.h>

#include "perf_env.h"
#include "perf_json.h"

/*
 * Runs the scaling measurements for each sender count in @senders with
 * messages of @size bytes, prints KTAP (plan, results, totals) and returns
 * the kselftest exit status.
 */
int scale_main(const struct perf_env *env, const struct perf_run *run,
	       const unsigned int *senders, size_t nr, unsigned int size);

#endif /* _SELFTESTS_APPARMOR_SEND_SCALE_H */
