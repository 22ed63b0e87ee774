/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An AF_UNIX socketpair created under one AppArmor label and used under
 * another, as when systemd hands a socket to a daemon that then changes
 * profile, or D-Bus passes one with SCM_RIGHTS.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_HANDOFF_H
#define _SELFTESTS_APPARMOR_UNIX_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>

#include "unix_core.h"

/*
 * The harness's limit for a handoff or stack_handoff test, in seconds.
 * Each runs its table's probes, a few processes or an exec apiece.  With
 * two other guests on two cores (qemu TCG, tinyconfig 7.2) the slowest
 * took 4.2 s on a production kernel and 58.8 s (exec_stream) on a debug
 * one (build_kernel.sh -d): three times that, since run_kselftest.sh's
 * --override-timeout does not reach a test's own limit.
 */
#define HANDOFF_TEST_TIMEOUT 180

/* How the socket reaches the label that uses it. */
enum handoff_how {
	HANDOFF_CHANGE,	/* its creator changes profile, then uses it */
	HANDOFF_FORK,	/* split by fork(): the child changes profile */
	HANDOFF_PASS,	/* sent with SCM_RIGHTS to a process under the other */
	/* Split by fork(): the child execs this program into the other. */
	HANDOFF_EXEC,
	HANDOFF_REPLACE, /* in use when its creator's profile is replaced */
	HANDOFF_COUNT,
};

/* The pair: how its ends are named decides which rules revalidate it. */
enum handoff_shape {
	HSHAPE_PAIR,		/* socketpair(): unnamed ends */
	HSHAPE_BOUND,		/* both ends bound to paths, connected */
	HSHAPE_TO_BOUND,	/* an end not on a path, its peer bound to one */
	HSHAPE_FROM_BOUND,	/* an end on a path, its peer on an abstract name */
	HSHAPE_ABSTRACT,	/* both ends on abstract names, connected */
	/*
	 * End 0 listens, end 1's connection waits on it: a socket as
	 * systemd hands it to a daemon.  Stream and seqpacket only.
	 */
	HSHAPE_LISTENER,	/* bound to path[0] */
	HSHAPE_ABSTRACT_LISTENER, /* bound to the abstract name path[0] */
	HSHAPE_COUNT,
};

/* The one operation a run performs under the new label. */
enum handoff_op {
	HOP_WRITE,	/* file operations: revalidated by aa_file_perm() */
	HOP_READ,
	HOP_SENDMSG,	/* socket operations: the socket hooks decide */
	HOP_RECVMSG,
	HOP_URING_SEND,	/* the same through io_uring (liburing) */
	HOP_URING_RECV,
	HOP_ACCEPT,	/* listener shapes: accept(), then a message back */
	/*
	 * HANDOFF_REPLACE: end 0 connects to end 1, which listens on the
	 * abstract name path[1].
	 */
	HOP_CONNECT,
	/*
	 * flock() on end 0: AppArmor asks a shared lock as a lock alone, an
	 * exclusive one as lock and write (flock_translate_cmd() makes it
	 * F_WRLCK).  Revalidated by aa_file_perm() as read and write are.
	 */
	HOP_FLOCK_SH,
	HOP_FLOCK_EX,
	/*
	 * More file operations, each revalidated by aa_file_perm() through
	 * rw_verify_area() as read() and write() are: readv() and writev()
	 * of two halves, splice() from a pipe into end 0 or from end 0 into
	 * a pipe, io_uring's WRITE and READ (liburing).
	 */
	HOP_WRITEV,
	HOP_READV,
	HOP_SPLICE_TO,
	HOP_SPLICE_FROM,
	HOP_URING_WRITE,
	HOP_URING_READ,
	HOP_COUNT,
};

/* The creator's label and the user's: how the second is reached. */
enum handoff_onto {
	ONTO_PROFILE,	/* the user's profile alone: change_profile */
	/* The user's stacked on the creator's: aa_stack_profile(). */
	ONTO_STACK,
	/* The same stack, by change_profile to "&" and the user's profile. */
	ONTO_CHANGE_STACK,
	/* The same stack by its name, handoff.label: change_profile. */
	ONTO_NAMED,
	/*
	 * HANDOFF_EXEC alone: nothing asked, the creator's exec rule for
	 * handoff.exec_path stacks the user (pix -> &user: no profile
	 * attaches to the path, so the creator's stays under it).
	 */
	ONTO_RULE,
	/*
	 * HANDOFF_EXEC alone: nothing asked, the creator's exec rule for
	 * handoff.exec_path (px) enters the profile attached to the path,
	 * the user alone.
	 */
	ONTO_ATTACH,
	ONTO_COUNT,
};

/*
 * HANDOFF_FORK and HANDOFF_PASS: what the creator, who keeps end 1 (the
 * peer's end), does around the user's label change.
 */
enum handoff_peer {
	HPEER_NONE,
	HPEER_USE,	/* handoff.peer_warm's ops, on end 1 */
	HPEER_CHANGE,	/* change_profile to handoff.peer_label */
	HPEER_REPLACE,	/* its profile replaced: handoff.replace */
	/* read() and recv() on end 1, where nothing is queued: EAGAIN */
	HPEER_READ,
	HPEER_SHUTDOWN,	/* shutdown(end 1, handoff.peer_shut) */
	HPEER_CLOSE,	/* end 1 closed: nothing is checked there after */
	HPEER_COUNT,
};

/* In handoff.warm: the creator does @op on end 0 before the hand-off. */
#define HANDOFF_WARM(op) (1U << (op))

struct handoff {
	enum handoff_how how;
	enum handoff_shape shape;
	int type;		/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	/*
	 * Bound shapes: where end 0 (if bound) and end 1 are bound; the
	 * listener shapes: where end 0 listens.
	 */
	const char *path[2];
	const char *creator;	/* NULL: created unconfined */
	const char *user;	/* the profile it is used under */
	/*
	 * How @user is put on (at exec: aa_stack_onexec() or change_onexec;
	 * HANDOFF_PASS: a stack onto @creator), and for a stack the label
	 * the user then has, as the kernel prints it.  Not for
	 * HANDOFF_REPLACE.
	 */
	enum handoff_onto onto;
	const char *label;
	/* ONTO_PROFILE: the user's profile is in complain mode. */
	bool complain;
	/* HANDOFF_EXEC: a link to this program to exec, NULL: itself. */
	const char *exec_path;
	enum handoff_op op;
	/* HANDOFF_REPLACE: replaces the creator's profile; 0 or -errno. */
	int (*replace)(void *arg);
	void *arg;
	/*
	 * HANDOFF_WARM() of the file ops (HOP_WRITE, HOP_READ, the flock
	 * ones and those after them) the creator does on end 0 before handing it over, so that the
	 * file allows them and only the socket's cache of labels decides
	 * whether the user's are revalidated (aa_file_perm()'s fast path).
	 */
	unsigned int warm;
	/*
	 * A stack of two steps: the task first stacks @mid onto the
	 * creator's label, becoming @mid_label, and does @mid_warm's ops on
	 * end 0 there, so that the socket caches the stack; then @user goes
	 * on top.  Done by whoever holds both ends then: the creator, for
	 * HANDOFF_PASS before it sends end 0 to a user that stacks @mid and
	 * @user; the child, for HANDOFF_FORK and HANDOFF_EXEC.  Not for
	 * HANDOFF_REPLACE or ONTO_PROFILE.
	 */
	const char *mid;
	const char *mid_label;
	unsigned int mid_warm;
	/*
	 * The creator seeds and checks with write() and read(), file ops
	 * revalidated under its own label, instead of sendmsg() and
	 * recvmsg(): a conversation with a peer whose label changed.
	 */
	bool creator_file_ops;
	/*
	 * HANDOFF_REPLACE: the task reads the go-ahead with read(), which
	 * has AppArmor refresh its label first; else with recv(), which
	 * does not, so the op is the first thing mediated after it.
	 */
	bool refresh;
	/*
	 * HANDOFF_FORK and HANDOFF_PASS: the peer's event, before the user
	 * puts its label on or (@peer_after) once it has, before the user's
	 * op and, for HANDOFF_PASS, before it receives end 0.
	 * @peer_warm: HANDOFF_WARM() of HOP_WRITE and the flock ops;
	 * @peer_shut: SHUT_RD, SHUT_WR or SHUT_RDWR.
	 */
	enum handoff_peer peer;
	bool peer_after;
	unsigned int peer_warm;
	int peer_shut;
	const char *peer_label;
};

/*
 * Runs @h in child processes: the caller's label is not changed.  Returns
 * 0 with @out filled, or -errno when the run could not be set up.
 */
int handoff_run(const struct handoff *h, struct outcome *out);

const char *handoff_how_name(enum handoff_how how);
const char *handoff_op_name(enum handoff_op op);
const char *handoff_shape_name(enum handoff_shape shape);
const char *handoff_peer_name(enum handoff_peer peer);

/* The user's profile put on alone, not stacked on the creator's. */
static inline bool handoff_onto_alone(enum handoff_onto onto)
{
	return onto == ONTO_PROFILE || onto == ONTO_ATTACH;
}

/* By the creator's exec rule: the user's task asks nothing. */
static inline bool handoff_onto_by_rule(enum handoff_onto onto)
{
	return onto == ONTO_RULE || onto == ONTO_ATTACH;
}

/* End 0 is a listener: accept() is the one op it runs. */
static inline bool handoff_shape_listens(enum handoff_shape shape)
{
	return shape == HSHAPE_LISTENER || shape == HSHAPE_ABSTRACT_LISTENER;
}

/*
 * HANDOFF_EXEC's exec'd image: a program that runs HANDOFF_EXEC calls it
 * first (unix_test.h's add_exec_reentry()).  There it uses the inherited
 * end and returns the exit status; elsewhere it returns -1.
 */
int handoff_exec_main(int argc, char **argv);

/* 0 if this build and kernel can run the io_uring ops, else -errno. */
int handoff_uring_probe(void);

/*
 * What a table's row expects the user of a handed-over end to be refused,
 * by ABI: a mask of the table's own, the clauses of SEMANTICS that say so
 * and, on an open question, the mask the kernel is known to refuse
 * instead (expect_policy()).
 */
struct handoff_expect {
	unsigned int refused[AA_ABI_COUNT];
	const char *why[AA_ABI_COUNT];
	const char *question[AA_ABI_COUNT];
	unsigned int known[AA_ABI_COUNT];
};

#endif /* _SELFTESTS_APPARMOR_UNIX_HANDOFF_H */
