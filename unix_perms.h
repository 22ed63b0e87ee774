/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a conversation stops when one side's profile lacks one unix
 * permission: the suite's expectations for single permissions, as tables
 * a reviewer can check row by row against the clauses of SEMANTICS.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_PERMS_H
#define _SELFTESTS_APPARMOR_UNIX_PERMS_H

#include <stdbool.h>

#include "common.h"
#include "unix_scenario.h"

/*
 * What a conversation is expected to do: every step on both sides
 * succeeds (who == SIDE_COUNT), or @who stops at @step with @err.  Where
 * the other side then stops follows from the conversation
 * (scenario_other_side()).  Where that is an open question of SEMANTICS,
 * @question names it and @known is what the kernel does instead.
 */
struct expect {
	enum side who;
	enum step step;
	int err;
	const char *why;	/* the clauses that say so */
	const char *question;
	struct {
		enum side who;
		enum step step;
		int err;
	} known;
};

extern const struct expect all_ok;

/* @who stops at @step with EACCES. */
struct expect denied(enum side who, enum step step);

/*
 * Where a conversation of @kind and @type stops when @who's profile in
 * @abi lacks @perm and the other side may do everything.  @have_v9: the
 * kernel has unix mediation (network_v9/af_unix, 6.17+), without which
 * the OLD ABI's rules are asked by each socket call ([old]).
 */
struct expect missing_perm(enum aa_abi abi, bool have_v9, enum sock_kind kind,
			   int type, enum side who, const char *perm);

/*
 * Where a client stops whose peer=() rules do not match the server, all
 * else allowed.
 */
struct expect peer_mismatch(enum sock_kind kind, int type);

#endif /* _SELFTESTS_APPARMOR_UNIX_PERMS_H */
