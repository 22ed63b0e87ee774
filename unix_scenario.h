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

enum sock_kind {
	KIND_PATHNAME,	/* bound to a file system path */
	KIND_ABSTRACT,	/* bound to a name in the abstract namespace */
	KIND_UNNAMED,	/* socketpair(): both ends in one process */
	KIND_AUTOBIND,	/* bind() with only sun_family: kernel-chosen name */
	KIND_COUNT,
};

/* The operations in the order each side performs them. */
enum step {
	STEP_NOT_RUN,		/* the side never started */
	STEP_CONFINE,		/* change_profile and check the label */
	STEP_CREATE,		/* socket() or socketpair() */
	STEP_SETOPT,		/* setsockopt(SO_RCVTIMEO) */
	STEP_GETOPT,		/* getsockopt(SO_TYPE) */
	STEP_BIND,
	STEP_LISTEN,
	STEP_WAIT_SERVER,	/* client: until the server is bound */
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
	/* The kernel labels AF_UNIX peers (SO_PEERSEC): check the labels. */
	bool peer_labels;
};

/* Why a side stopped, when it was not an error returned by the kernel. */
enum fault {
	FAULT_NONE,		/* done, or the kernel's errno is in @err */
	FAULT_PEER_STOPPED,	/* it had to wait for a side that had stopped */
	FAULT_EOF,		/* the connection was closed under it */
	FAULT_SHORT,		/* a message was cut or merged */
	FAULT_PAYLOAD,		/* bytes received differ from those sent */
	FAULT_SOCK_TYPE,	/* SO_TYPE is not the type created */
	FAULT_ADDR,		/* the bound address is not what it should be */
	FAULT_LABEL,		/* the label is not the profile expected */
	FAULT_TIMEOUT,		/* nothing to read within the I/O timeout */
	FAULT_PIPE,		/* the test's own pipe failed (@detail: errno) */
	FAULT_HUNG,		/* did not exit in time: killed */
	FAULT_CRASHED,		/* killed by signal @detail */
	FAULT_EXIT,		/* exited with status @detail */
	FAULT_COUNT,
};

struct outcome {
	enum step step;		/* where it stopped, STEP_DONE if nowhere */
	int err;		/* the kernel's errno, 0 if none */
	enum fault fault;	/* else the test's own reason */
	int detail;
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

/* "connect: EACCES (Permission denied)", "accept: peer stopped", "done". */
const char *outcome_str(const struct outcome *o, char *buf, size_t len);

const char *step_name(enum step step);
const char *kind_name(enum sock_kind kind);
const char *type_name(int type);

#endif /* _SELFTESTS_APPARMOR_UNIX_SCENARIO_H */
