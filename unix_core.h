/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every AF_UNIX run of the suite shares, whether two processes
 * converse (unix_scenario.h) or a socket changes hands (unix_handoff.h):
 * each process records in memory shared with the caller the step it is
 * at and, when it stops, the kernel's errno or a fault of the test's own,
 * so that a test can tell a denial from a broken test.  Nothing waits
 * without a bound: a kernel that loses a message or a process that hangs
 * ends the run with a fault, not a hung test.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_CORE_H
#define _SELFTESTS_APPARMOR_UNIX_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* Every message the suite sends: fixed size, so a cut one shows. */
#define MSG_LEN 64
/* Bounds every wait, so a kernel that loses a message cannot hang us. */
#define IO_TIMEOUT_MS 5000
#define EXIT_TIMEOUT_MS 10000
/*
 * How long a child may take to answer a step it is waited on for: an
 * exec under KASAN and TCG takes seconds, a minute is a hang.
 */
#define CHILD_TIMEOUT_MS 60000
/* Room for a label as the kernel prints it, stacks included. */
#define LABEL_MAX 512

/* The operations of a run, in the order a process performs them. */
enum step {
	STEP_NOT_RUN,		/* the process never started */
	STEP_CONFINE,		/* change_profile and check the label */
	STEP_CREATE,		/* socket(), socketpair(), or a handoff's pair */
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
	/* A socket changing hands (unix_handoff.h). */
	STEP_SEED,		/* read ops: the creator's end sends one message */
	STEP_BEFORE,		/* replace: the op, before the replacement */
	STEP_HANDOFF,		/* fork(), sendmsg(SCM_RIGHTS), or replace */
	STEP_CONFINE_USER,	/* the user's change_profile */
	STEP_RECV_FD,		/* recvmsg(SCM_RIGHTS) under the new label */
	STEP_EXEC,		/* exec into the new label, inheriting it */
	STEP_OPEN,		/* a file opened by the task that uses it */
	STEP_OP,		/* the one operation under the new label */
	STEP_RETRY,		/* the same operation again */
	STEP_CHECK,		/* the other end received what was written */
	STEP_DONE,		/* every step succeeded */
};

/* Why a process stopped, when it was not an error returned by the kernel. */
enum fault {
	FAULT_NONE,		/* done, or the kernel's errno is in @err */
	FAULT_PEER_STOPPED,	/* it had to wait for a process that had stopped */
	FAULT_EOF,		/* the connection was closed under it */
	FAULT_SHORT,		/* a message was cut or merged */
	FAULT_PAYLOAD,		/* bytes received differ from those sent */
	FAULT_SOCK_TYPE,	/* SO_TYPE is not the type created */
	FAULT_ADDR,		/* the bound address is not what it should be */
	FAULT_LABEL,		/* the label is not the profile expected */
	/* SCM_RIGHTS: no descriptor (MSG_CTRUNC); exec: not the socket */
	FAULT_NOT_INSTALLED,
	/* nothing to read within the I/O timeout, or a child's step */
	FAULT_TIMEOUT,
	/*
	 * The retry was decided otherwise: @err the first's errno, @detail
	 * the retry's (0: allowed).
	 */
	FAULT_RETRY,
	FAULT_TEST,		/* the test's own call failed (@detail: errno) */
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
	/* Who did the operation, for its audit records: not compared. */
	pid_t pid;
};

/* "connect: EACCES (Permission denied)", "accept: peer stopped", "done". */
const char *outcome_str(const struct outcome *o, char *buf, size_t len);
bool outcome_eq(const struct outcome *a, const struct outcome *b);
const char *step_name(enum step step);
const char *type_name(int type);

/* Marks the operation under way, so that a crash or hang shows where. */
void at(struct outcome *out, enum step step);
/* True, with the step and the kernel's errno recorded, when @ret < 0. */
bool failed(struct outcome *out, enum step where, long ret);
/* True, with the step, @fault and errno recorded, when !@ok. */
bool wrong(struct outcome *out, enum step where, bool ok, enum fault fault);

/*
 * Waits until @fd is readable, by poll(): no SO_RCVTIMEO, which is itself
 * mediated.  False, recorded at @where, when nothing came in time or, if
 * @stop is not -1, the other process wrote to its stop pipe @stop first
 * (FAULT_PEER_STOPPED).
 */
bool readable(struct outcome *out, enum step where, int fd, int stop);
/*
 * Whether child @pid wrote to or closed @fd within CHILD_TIMEOUT_MS; if
 * not, it is killed and reaped, and @out says it timed out.
 */
bool child_answers(struct outcome *out, int fd, pid_t pid);

/*
 * Confines the calling task to @profile (NULL: stays unconfined), by
 * change_profile, or by aa_stack_profile() onto the unconfined task when
 * @stack, and checks the label it then has.  0, or -1 recorded at @where.
 */
int confine(struct outcome *out, enum step where, const char *profile,
	    bool stack, bool complain);

/*
 * The address of @name: a path, or an abstract name (a NUL, then @name)
 * when @abstract.  @name NULL: the family only (autobind).  Returns its
 * length.
 */
socklen_t unix_addr(struct sockaddr_un *addr, const char *name, bool abstract);

/* Sends @fd on @chan with SCM_RIGHTS; 0, or -1 recorded at STEP_HANDOFF. */
int send_fd(struct outcome *out, int chan, int fd);
/*
 * The descriptor received on @chan, or -1 recorded at STEP_RECV_FD: one
 * the receiver may not have is dropped (FAULT_NOT_INSTALLED), not refused.
 */
int recv_fd(struct outcome *out, int chan);

/* @len bytes of zeroed memory shared with the children forked later. */
void *shared_alloc(size_t len);
void shared_free(void *p, size_t len);

/* Forks a child that runs @fn(@arg) and exits 0: its pid, or -errno. */
pid_t spawn(void (*fn)(void *arg), void *arg);

/*
 * Waits for the child @pid, kills it when it does not exit in time, and
 * records in @out a hang, a crash or a non-zero exit status.
 */
void reap(struct outcome *out, pid_t pid);

#endif /* _SELFTESTS_APPARMOR_UNIX_CORE_H */
