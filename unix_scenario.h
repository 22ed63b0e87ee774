/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One AF_UNIX conversation between a server and a client process, each
 * optionally confined by its own AppArmor profile, recording where each
 * side stopped: the operation, and either the kernel's errno or a reason
 * of the test's own.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_SCENARIO_H
#define _SELFTESTS_APPARMOR_UNIX_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "unix_core.h"

enum sock_kind {
	KIND_PATHNAME,	/* bound to a file system path */
	KIND_ABSTRACT,	/* bound to a name in the abstract namespace */
	KIND_UNNAMED,	/* socketpair(): both ends in one process */
	KIND_AUTOBIND,	/* bind() with only sun_family: kernel-chosen name */
	KIND_COUNT,
};

enum side {
	SERVER,
	CLIENT,	/* for KIND_UNNAMED: the process holding both ends */
	SIDE_COUNT,
};

struct scenario {
	enum sock_kind kind;
	int type;			/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	const char *dir;		/* where pathname sockets are created */
	const char *name;		/* unique per check: path or abstract name */
	/* NULL runs the side unconfined. */
	const char *profile[SIDE_COUNT];
	bool complain[SIDE_COUNT];	/* the profile is in complain mode */
	/* The profile (a stack "A//&B") is stacked onto the task. */
	bool by_stack[SIDE_COUNT];
	/* Not NULL: the client binds there before it connects or sends. */
	const char *client_path;
	/*
	 * Not 0: once bound, the server hands its socket file over to this
	 * uid, so that an "owner" file rule on the path does not match it
	 * for a task running as root.
	 */
	uid_t owner;
	/* The kernel labels AF_UNIX peers (SO_PEERSEC): check the labels. */
	bool peer_labels;
};

/*
 * Runs the conversation and fills @res, one outcome per side.  Returns 0,
 * or -errno when the test itself could not set it up (fork, pipe, mmap).
 *
 * A side that stops (done or not) keeps its sockets open until the other
 * side has stopped too.  A side that has to wait (accept, receive, the
 * server's readiness) for a side that has stopped stops there with
 * FAULT_PEER_STOPPED, so where each side ends is deterministic.
 */
int scenario_run(const struct scenario *sc, struct outcome res[SIDE_COUNT]);

/*
 * Where the other side of a conversation stops when @who stops at @step
 * and the other side's own operations all succeed.
 */
struct outcome scenario_other_side(const struct scenario *sc, enum side who,
				   enum step step);

#endif /* _SELFTESTS_APPARMOR_UNIX_SCENARIO_H */
