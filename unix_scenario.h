/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One AF_UNIX conversation between a server and a client process, each
 * optionally confined by its own AppArmor profile, recording which socket
 * operation first failed on each side and with which errno.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_SCENARIO_H
#define _SELFTESTS_APPARMOR_UNIX_SCENARIO_H

#include <stdbool.h>

enum sock_kind {
	KIND_PATHNAME,	/* bound to a file system path */
	KIND_ABSTRACT,	/* bound to a name in the abstract namespace */
	KIND_UNNAMED,	/* socketpair(): both ends in one process */
	KIND_AUTOBIND,	/* bind() with only sun_family: kernel-chosen name */
	KIND_COUNT,
};

/* The operations in the order each side performs them. */
enum step {
	STEP_CONFINE,		/* change_profile and check the label */
	STEP_CREATE,		/* socket() or socketpair() */
	STEP_SETOPT,		/* setsockopt(SO_RCVTIMEO) */
	STEP_GETOPT,		/* getsockopt(SO_TYPE) */
	STEP_BIND,
	STEP_LISTEN,
	STEP_CONNECT,
	STEP_ACCEPT,
	STEP_GETSOCKNAME,
	STEP_GETPEERNAME,
	STEP_PEERLABEL,		/* aa_getpeercon() names the peer's profile */
	STEP_SENDTO,
	STEP_SENDMSG,
	STEP_SENDMMSG,
	STEP_RECV,		/* all messages arrive intact */
	STEP_REPLY,		/* stream and seqpacket: server answers */
	STEP_RECV_REPLY,
	STEP_SHUTDOWN,
	STEP_DONE,		/* every step succeeded */
	STEP_NOT_RUN,
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
	/* The kernel labels AF_UNIX peers (SO_PEERSEC): check the labels. */
	bool peer_labels;
	/*
	 * The client always runs to its end; the server is stopped then
	 * unless the test asserts its outcome too.
	 */
	bool wait_server;
};

struct outcome {
	enum step step;		/* first failed step, or STEP_DONE */
	int err;		/* its errno, 0 for STEP_DONE */
};

/* Returns 0 and fills @res (one outcome per side) or -errno. */
int scenario_run(const struct scenario *sc, struct outcome res[SIDE_COUNT]);

const char *step_name(enum step step);
const char *kind_name(enum sock_kind kind);
const char *type_name(int type);

#endif /* _SELFTESTS_APPARMOR_UNIX_SCENARIO_H */
