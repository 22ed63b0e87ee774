// SPDX-License-Identifier: GPL-2.0
/*
 * A socketpair created under one AppArmor label and used under another.
 *
 * A unix socket keeps the label it was created under; a descriptor used
 * by a task whose label is not cached on it is revalidated on read() and
 * write() (aa_file_perm() -> aa_unix_file_perm()) and on receipt with
 * SCM_RIGHTS (the file_receive hook), while sendmsg() and recvmsg() only
 * meet the socket hooks.  Each run does one operation, so that no earlier
 * success has cached the new label on the socket.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "common.h"
#include "unix_core.h"
#include "unix_handoff.h"

/* The creator's process and, for fork and SCM_RIGHTS, the user's. */
enum who {
	CREATOR,
	USER,
	WHO_COUNT,
};

struct run {
	const struct handoff *h;
	struct outcome *out;
	struct run *user;	/* the creator's: where the user records */
	int chan;		/* to the other process, -1 if none */
	int chan_other;		/* the end only the other process holds */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
};

const char *handoff_how_name(enum handoff_how how)
{
	static const char *const names[] = {
		[HANDOFF_CHANGE] = "change_profile",
		[HANDOFF_FORK] = "fork",
		[HANDOFF_PASS] = "SCM_RIGHTS",
		[HANDOFF_EXEC] = "exec",
		[HANDOFF_REPLACE] = "profile replacement",
	};

	return how < HANDOFF_COUNT ? names[how] : "?";
}

const char *handoff_shape_name(enum handoff_shape shape)
{
	static const char *const names[] = {
		[HSHAPE_PAIR] = "socketpair",
		[HSHAPE_BOUND] = "both ends on paths",
		[HSHAPE_TO_BOUND] = "peer on a path",
		[HSHAPE_FROM_BOUND] = "on a path, peer abstract",
		[HSHAPE_ABSTRACT] = "both ends abstract",
		[HSHAPE_LISTENER] = "listener on a path",
		[HSHAPE_ABSTRACT_LISTENER] = "abstract listener",
	};

	return shape < HSHAPE_COUNT ? names[shape] : "?";
}

const char *handoff_peer_name(enum handoff_peer peer)
{
	static const char *const names[] = {
		[HPEER_NONE] = "nothing",
		[HPEER_USE] = "uses end 1",
		[HPEER_CHANGE] = "changes profile",
		[HPEER_REPLACE] = "has its profile replaced",
	};

	return peer < HPEER_COUNT ? names[peer] : "?";
}

const char *handoff_op_name(enum handoff_op op)
{
	static const char *const names[] = {
		[HOP_WRITE] = "write",
		[HOP_READ] = "read",
		[HOP_SENDMSG] = "sendmsg",
		[HOP_RECVMSG] = "recvmsg",
		[HOP_URING_SEND] = "io_uring SEND",
		[HOP_URING_RECV] = "io_uring RECV",
		[HOP_ACCEPT] = "accept",
		[HOP_CONNECT] = "connect",
		[HOP_FLOCK_SH] = "flock(LOCK_SH)",
		[HOP_FLOCK_EX] = "flock(LOCK_EX)",
		[HOP_WRITEV] = "writev",
		[HOP_READV] = "readv",
		[HOP_SPLICE_TO] = "splice from a pipe",
		[HOP_SPLICE_FROM] = "splice to a pipe",
		[HOP_URING_WRITE] = "io_uring WRITE",
		[HOP_URING_READ] = "io_uring READ",
	};

	return op < HOP_COUNT ? names[op] : "?";
}

static void make_msg(char *buf, enum handoff_op op)
{
	memset(buf, 0, MSG_LEN);
	snprintf(buf, MSG_LEN, "aa_unix_mediation handoff %s",
		 handoff_op_name(op));
}

#ifdef HAVE_LIBURING
static bool op_uring(enum handoff_op op)
{
	return op == HOP_URING_SEND || op == HOP_URING_RECV ||
	       op == HOP_URING_WRITE || op == HOP_URING_READ;
}

/*
 * One io_uring SEND, RECV, WRITE or READ, as the task does it: -1 and
 * errno if refused.  A socket takes no offset but 0 (sock_read_iter()).
 */
static ssize_t uring_xfer(struct run *r, enum handoff_op via, int fd,
			  char *buf, size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe) {
		errno = EBUSY;
		return -1;
	}
	if (via == HOP_URING_SEND)
		io_uring_prep_send(sqe, fd, buf, len, 0);
	else if (via == HOP_URING_RECV)
		io_uring_prep_recv(sqe, fd, buf, len, 0);
	else if (via == HOP_URING_WRITE)
		io_uring_prep_write(sqe, fd, buf, len, 0);
	else
		io_uring_prep_read(sqe, fd, buf, len, 0);
	ret = io_uring_submit_and_wait(&r->ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&r->ring, &cqe);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	ret = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
#endif

/* The ring of an io_uring op, made by the label that uses it. */
static int ring_open(struct run *r, enum step at, enum handoff_op op)
{
	int ret = 0;

#ifdef HAVE_LIBURING
	if (op_uring(op))
		ret = io_uring_queue_init(2, &r->ring, 0);
#endif
	(void)op;
	errno = -ret;
	return wrong(r->out, at, !ret, FAULT_TEST) ? -1 : 0;
}

static void ring_close(struct run *r, enum handoff_op op)
{
#ifdef HAVE_LIBURING
	if (op_uring(op))
		io_uring_queue_exit(&r->ring);
#endif
	(void)r;
	(void)op;
}

/* readv() or writev() of @buf's two halves: a vector, not one buffer. */
static ssize_t vec_xfer(int fd, char *buf, size_t len, bool out)
{
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = len / 2 },
		{ .iov_base = buf + len / 2, .iov_len = len - len / 2 },
	};

	return out ? writev(fd, iov, 2) : readv(fd, iov, 2);
}

/* splice() between @fd and a pipe, @to the socket or from it. */
static ssize_t splice_xfer(int fd, char *buf, size_t len, bool to)
{
	ssize_t n;
	int p[2], err;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	if (to) {
		n = write(p[1], buf, len);
		if (n == (ssize_t)len)
			n = splice(p[0], NULL, fd, NULL, len, 0);
	} else {
		n = splice(fd, NULL, p[1], NULL, len, 0);
		if (n > 0)
			n = read(p[0], buf, n);
	}
	err = errno;
	close(p[0]);
	close(p[1]);
	errno = err;
	return n;
}

/* Moves @len bytes through @fd by the system call of @via. */
static ssize_t xfer(struct run *r, enum handoff_op via, int fd, char *buf,
		    size_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	switch (via) {
	case HOP_WRITE:
		return write(fd, buf, len);
	case HOP_READ:
		return read(fd, buf, len);
	case HOP_SENDMSG:
		return sendmsg(fd, &msg, 0);
	case HOP_RECVMSG:
		return recvmsg(fd, &msg, 0);
	case HOP_WRITEV:
	case HOP_READV:
		return vec_xfer(fd, buf, len, via == HOP_WRITEV);
	case HOP_SPLICE_TO:
	case HOP_SPLICE_FROM:
		return splice_xfer(fd, buf, len, via == HOP_SPLICE_TO);
#ifdef HAVE_LIBURING
	case HOP_URING_SEND:
	case HOP_URING_RECV:
	case HOP_URING_WRITE:
	case HOP_URING_READ:
		return uring_xfer(r, via, fd, buf, len);
#endif
	default:
		(void)r;
		errno = EOPNOTSUPP;
		return -1;
	}
}

static bool op_reads(enum handoff_op op)
{
	return op == HOP_READ || op == HOP_RECVMSG || op == HOP_URING_RECV ||
	       op == HOP_READV || op == HOP_SPLICE_FROM || op == HOP_URING_READ;
}

static bool op_locks(enum handoff_op op)
{
	return op == HOP_FLOCK_SH || op == HOP_FLOCK_EX;
}

/* What aa_file_perm() revalidates: not the socket hooks' ops. */
static bool op_file(enum handoff_op op)
{
	return op == HOP_WRITE || op == HOP_READ || op >= HOP_FLOCK_SH;
}

/* The lock of @op on @fd, and its release: nothing else waits on it. */
static int lock_at(struct run *r, enum step where, int fd, enum handoff_op op)
{
	if (failed(r->out, where,
		   flock(fd, (op == HOP_FLOCK_EX ? LOCK_EX : LOCK_SH) | LOCK_NB)))
		return -1;
	return failed(r->out, where, flock(fd, LOCK_UN)) ? -1 : 0;
}

/* Receives the run's message on @fd by @via and checks every byte. */
static int recv_msg(struct run *r, enum step where, int fd,
		    enum handoff_op via)
{
	char want[MSG_LEN], got[MSG_LEN + 1];
	/* One more byte shows a longer record; a stream has no records. */
	size_t len = r->h->type == SOCK_STREAM ? MSG_LEN : sizeof(got);
	ssize_t n;

	if (!readable(r->out, where, fd, -1))
		return -1;
	n = xfer(r, via, fd, got, len);
	if (failed(r->out, where, n) || wrong(r->out, where, n == MSG_LEN, FAULT_SHORT))
		return -1;
	make_msg(want, r->h->op);
	return wrong(r->out, where, !memcmp(want, got, MSG_LEN), FAULT_PAYLOAD) ? -1 : 0;
}

static int send_msg(struct run *r, enum step where, int fd,
		    enum handoff_op via)
{
	char buf[MSG_LEN];
	ssize_t n;

	make_msg(buf, r->h->op);
	n = xfer(r, via, fd, buf, MSG_LEN);
	if (failed(r->out, where, n))
		return -1;
	return wrong(r->out, where, n == MSG_LEN, FAULT_SHORT) ? -1 : 0;
}

/*
 * accept() on the listener @fd, then a message back on the connection:
 * the check at the other end sees it.
 */
static int accept_at(struct run *r, enum step at, int fd)
{
	int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	int ret;

	if (failed(r->out, at, conn))
		return -1;
	ret = send_msg(r, at, conn, HOP_SENDMSG);
	close(conn);
	return ret;
}

static int op_once(struct run *r, enum step at, int fd)
{
	if (op_locks(r->h->op))
		return lock_at(r, at, fd, r->h->op);
	if (op_reads(r->h->op))
		return recv_msg(r, at, fd, r->h->op);
	return send_msg(r, at, fd, r->h->op);
}

/*
 * A revalidated operation, asked again, is decided again the same way:
 * the socket caches the user's label only once it was allowed.  @first
 * is what the first one returned; a fault of the test is not retried.
 */
static int retry(struct run *r, int fd, int first)
{
	struct outcome *out = r->out, again = { .step = STEP_NOT_RUN };
	int ret;

	if (out->fault)
		return first;
	r->out = &again;
	ret = op_once(r, STEP_RETRY, fd);
	r->out = out;
	if (again.fault || (!first && !ret) ||
	    (first && ret && again.err == out->err))
		return first;
	*out = (struct outcome){ .step = STEP_RETRY, .err = first ? out->err : 0,
				 .fault = FAULT_RETRY, .detail = again.err };
	return -1;
}

/* The operation on end @fd, recorded as step @at. */
static int use_at(struct run *r, enum step at, int fd)
{
	enum handoff_op op = r->h->op;
	int ret;

	r->out->step = at;
	r->out->pid = getpid();
	if (op == HOP_ACCEPT)
		return accept_at(r, at, fd);
	if (op == HOP_CONNECT) {
		struct sockaddr_un addr;
		socklen_t len = unix_addr(&addr, r->h->path[1], true);

		return failed(r->out, at,
			      connect(fd, (struct sockaddr *)&addr, len)) ?
		       -1 : 0;
	}
	/* The ring is the new label's own, made after the change. */
	if (ring_open(r, at, op))
		return -1;
	ret = op_once(r, at, fd);
	if (at == STEP_OP && op_file(op))
		ret = retry(r, fd, ret);
	ring_close(r, op);
	return ret;
}

static int use(struct run *r, int fd)
{
	return use_at(r, STEP_OP, fd);
}

/*
 * The creator's end receives what the user's end wrote, or accepts the
 * connection it made.
 */
static int check_at(struct run *r, enum step at, int fd)
{
	int conn;

	if (op_reads(r->h->op) || op_locks(r->h->op))
		return 0;
	if (r->h->op != HOP_CONNECT)
		return recv_msg(r, at, fd, r->h->creator_file_ops ? HOP_READ :
				HOP_RECVMSG);
	if (!readable(r->out, at, fd, -1))
		return -1;
	conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (failed(r->out, at, conn))
		return -1;
	close(conn);
	return 0;
}

static int check(struct run *r, int fd)
{
	return check_at(r, STEP_CHECK, fd);
}

/* Asks the caller to replace our profile, and waits until it has. */
static int await_replace(struct run *r, int chan)
{
	char c = 0;

	r->out->step = STEP_HANDOFF;
	if (wrong(r->out, STEP_HANDOFF, write(chan, "r", 1) == 1, FAULT_TEST) ||
	    !readable(r->out, STEP_HANDOFF, chan, -1))
		return -1;
	return wrong(r->out, STEP_HANDOFF,
		     (r->h->refresh ? read(chan, &c, 1) : recv(chan, &c, 1, 0))
		     == 1 && c == 'g', FAULT_PEER_STOPPED) ? -1 : 0;
}

/* The caller's side of await_replace(): 0, or why it could not. */
static int replace_for(const struct handoff *h, int chan)
{
	struct pollfd pfd = { .fd = chan, .events = POLLIN };
	char c = 0;
	int ret;

	/* The creator stopped before its first op: nothing to replace. */
	if (poll(&pfd, 1, EXIT_TIMEOUT_MS) != 1 || read(chan, &c, 1) != 1 ||
	    c != 'r')
		return 0;
	ret = h->replace(h->arg);
	if (!ret && write(chan, "g", 1) != 1)
		ret = -errno;
	return ret;
}

/*
 * A connected pair whose end 1 is bound to a path, and end 0 too for
 * HSHAPE_BOUND.  Otherwise a dgram end 0 autobinds (an abstract name), so
 * that end 1 can connect back to it; a stream end 0 stays unnamed.
 * HSHAPE_FROM_BOUND: end 0 on path[0], end 1 on the abstract name path[1];
 * HSHAPE_ABSTRACT: both names abstract.
 */
static int bound_pair(struct run *r, int sv[2])
{
	const struct handoff *h = r->h;
	bool conn = h->type != SOCK_DGRAM;
	bool abs = h->shape == HSHAPE_ABSTRACT;
	bool from = h->shape == HSHAPE_FROM_BOUND || abs;
	struct sockaddr_un a0, a1;
	socklen_t l0, l1;
	int lfd;

	l0 = unix_addr(&a0, h->shape == HSHAPE_BOUND || from ? h->path[0] :
			    NULL, abs);
	l1 = unix_addr(&a1, h->path[1], from);
	sv[0] = socket(AF_UNIX, h->type, 0);
	lfd = socket(AF_UNIX, h->type, 0);
	if (failed(r->out, STEP_CREATE, sv[0]) || failed(r->out, STEP_CREATE, lfd))
		return -1;
	if ((h->shape == HSHAPE_BOUND || from || !conn) &&
	    failed(r->out, STEP_CREATE, bind(sv[0], (struct sockaddr *)&a0, l0)))
		return -1;
	if (failed(r->out, STEP_CREATE, bind(lfd, (struct sockaddr *)&a1, l1)))
		return -1;
	if (!conn) {
		sv[1] = lfd;
		l0 = sizeof(a0);
		return failed(r->out, STEP_CREATE,
			      connect(sv[0], (struct sockaddr *)&a1, l1)) ||
		       failed(r->out, STEP_CREATE,
			      getsockname(sv[0], (struct sockaddr *)&a0, &l0)) ||
		       failed(r->out, STEP_CREATE,
			      connect(sv[1], (struct sockaddr *)&a0, l0)) ? -1 : 0;
	}
	if (failed(r->out, STEP_CREATE, listen(lfd, 1)) ||
	    failed(r->out, STEP_CREATE, connect(sv[0], (struct sockaddr *)&a1, l1)))
		return -1;
	sv[1] = accept(lfd, NULL, NULL);
	close(lfd);
	return failed(r->out, STEP_CREATE, sv[1]) ? -1 : 0;
}

/* End 0 listening on a path or an abstract name, end 1 connected to it. */
static int listener_pair(struct run *r, int sv[2])
{
	const struct handoff *h = r->h;
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, h->path[0],
				  h->shape == HSHAPE_ABSTRACT_LISTENER);

	sv[0] = socket(AF_UNIX, h->type, 0);
	sv[1] = socket(AF_UNIX, h->type, 0);
	if (failed(r->out, STEP_CREATE, sv[0]) || failed(r->out, STEP_CREATE, sv[1]))
		return -1;
	return failed(r->out, STEP_CREATE, bind(sv[0], (struct sockaddr *)&addr, len)) ||
	       failed(r->out, STEP_CREATE, listen(sv[0], 1)) ||
	       failed(r->out, STEP_CREATE,
		      connect(sv[1], (struct sockaddr *)&addr, len)) ? -1 : 0;
}

/* HOP_CONNECT: end 1 listening on an abstract name, end 0 not connected. */
static int connect_pair(struct run *r, int sv[2])
{
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->h->path[1], true);

	sv[0] = socket(AF_UNIX, r->h->type, 0);
	sv[1] = socket(AF_UNIX, r->h->type, 0);
	return failed(r->out, STEP_CREATE, sv[0]) ||
	       failed(r->out, STEP_CREATE, sv[1]) ||
	       failed(r->out, STEP_CREATE,
		      bind(sv[1], (struct sockaddr *)&addr, len)) ||
	       failed(r->out, STEP_CREATE, listen(sv[1], 1)) ? -1 : 0;
}

static int make_pair(struct run *r, int sv[2])
{
	r->out->step = STEP_CREATE;
	if (r->h->op == HOP_CONNECT)
		return connect_pair(r, sv);
	if (handoff_shape_listens(r->h->shape))
		return listener_pair(r, sv);
	if (r->h->shape != HSHAPE_PAIR)
		return bound_pair(r, sv);
	return failed(r->out, STEP_CREATE, socketpair(AF_UNIX, r->h->type, 0, sv)) ?
	       -1 : 0;
}

/*
 * Puts @user on the calling task, now or, for @exec, at its next
 * execve(): alone, or stacked on the task's label, which then is @label.
 */
static int put_on(const struct handoff *h, struct outcome *out,
		  const char *user, const char *label, bool exec)
{
	char amp[LABEL_MAX];
	const char *to = h->onto == ONTO_NAMED ? label : amp;
	int ret = 0;

	if (h->onto == ONTO_PROFILE && !exec)
		return confine(out, STEP_CONFINE_USER, user, false, h->complain);
	at(out, STEP_CONFINE_USER);
	snprintf(amp, sizeof(amp), "&%s", user);
	if (h->onto == ONTO_STACK)
		ret = exec ? aa_stack_exec(user) : aa_stack(user);
	else if (h->onto == ONTO_PROFILE)
		ret = aa_confine_onexec(user);
	else if (h->onto != ONTO_RULE)
		ret = exec ? aa_confine_onexec(to) : aa_confine(to);
	if (ret) {
		out->err = -ret;
		return -1;
	}
	/* The exec'd image checks its label itself. */
	return !exec && wrong(out, STEP_CONFINE_USER,
			      !aa_check_label(label, false), FAULT_LABEL) ?
	       -1 : 0;
}

/* The user's label, from the creator's (or handoff.mid's). */
static int become_user(const struct handoff *h, struct outcome *out,
		       bool exec)
{
	return put_on(h, out, h->user, h->label, exec);
}

/*
 * The file ops of @w (handoff.warm), once each on end 0 under the task's
 * label, the other end moving the message: the socket then caches it.
 */
static int warm_ops(struct run *r, enum step at, int sv[2], unsigned int w)
{
	enum handoff_op op;
	int ret = 0;

	for (op = HOP_WRITE; op < HOP_COUNT && !ret; op++) {
		if (!(w & HANDOFF_WARM(op)) || !op_file(op))
			continue;
		if (op_locks(op)) {
			ret = lock_at(r, at, sv[0], op);
			continue;
		}
		if (ring_open(r, at, op))
			return -1;
		if (op_reads(op))
			ret = send_msg(r, at, sv[1], HOP_SENDMSG) ||
			      recv_msg(r, at, sv[0], op) ? -1 : 0;
		else
			ret = send_msg(r, at, sv[0], op) ||
			      recv_msg(r, at, sv[1], HOP_RECVMSG) ? -1 : 0;
		ring_close(r, op);
	}
	return ret;
}

/* handoff.mid, then its ops on end 0: the socket caches the stack. */
static int stack_mid(struct run *r, int sv[2])
{
	if (!r->h->mid)
		return 0;
	return put_on(r->h, r->out, r->h->mid, r->h->mid_label, false) ||
	       warm_ops(r, STEP_HANDOFF, sv, r->h->mid_warm) ? -1 : 0;
}

/* The user's process of HANDOFF_PASS: it receives end 0 and uses it. */
static void pass_user(struct run *r, int chan)
{
	int fd;

	/* A stack goes onto the creator's label, as for the other ways. */
	if ((r->h->onto != ONTO_PROFILE &&
	     confine(r->out, STEP_CONFINE_USER, r->h->creator, false, false)) ||
	    (r->h->mid &&
	     put_on(r->h, r->out, r->h->mid, r->h->mid_label, false)) ||
	    become_user(r->h, r->out, false))
		return;
	fd = recv_fd(r->out, chan);
	if (fd < 0)
		return;
	if (!use(r, fd))
		r->out->step = STEP_DONE;
}

#define EXEC_ARG "--handoff-exec"

/*
 * HANDOFF_EXEC: a child execs this program into the user's profile
 * (change_onexec), holding end 0; the exec'd image uses it and writes
 * its outcome to a pipe, since the shared memory does not survive exec.
 */
static int exec_user(struct run *r, struct run *user, int sv[2])
{
	char self[PATH_MAX], args[4][16];
	int res[2];
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (failed(r->out, STEP_HANDOFF, n) ||
	    failed(r->out, STEP_HANDOFF, pipe2(res, O_CLOEXEC)))
		return -1;
	self[n] = '\0';
	r->out->step = STEP_HANDOFF;
	pid = fork();
	if (failed(r->out, STEP_HANDOFF, pid))
		return -1;
	if (!pid) {
		if (stack_mid(user, sv))
			_exit(0);
		close(sv[1]);
		close(res[0]);
		snprintf(args[0], sizeof(args[0]), "%d", r->h->op);
		snprintf(args[1], sizeof(args[1]), "%d", r->h->type);
		snprintf(args[2], sizeof(args[2]), "%d", sv[0]);
		snprintf(args[3], sizeof(args[3]), "%d", res[1]);
		if (become_user(r->h, user->out, true) ||
		    failed(user->out, STEP_EXEC, fcntl(res[1], F_SETFD, 0)))
			_exit(0);
		at(user->out, STEP_EXEC);
		execl(r->h->exec_path ?: self, self, EXEC_ARG, args[0], args[1],
		      args[2], args[3], r->h->label ?: r->h->user, (char *)NULL);
		failed(user->out, STEP_EXEC, -1);
		_exit(0);
	}
	close(sv[0]);
	close(res[1]);
	/* Nothing comes back from an image that never ran. */
	if (child_answers(user->out, res[0], pid)) {
		n = read(res[0], user->out, sizeof(*user->out));
		reap(user->out, pid);
	}
	close(res[0]);
	return user->out->step == STEP_DONE && !user->out->fault ? 0 : -1;
}

int handoff_exec_main(int argc, char **argv)
{
	struct outcome out = { .step = STEP_EXEC };
	struct handoff h = { .how = HANDOFF_EXEC };
	struct run r = { .h = &h, .out = &out };
	struct stat st;
	int fd, res;

	if (argc != 7 || strcmp(argv[1], EXEC_ARG))
		return -1;
	h.op = atoi(argv[2]);
	h.type = atoi(argv[3]);
	fd = atoi(argv[4]);
	res = atoi(argv[5]);
	h.user = argv[6];
	/* Revoked at exec: a descriptor the label may not have (in either mode). */
	if (!wrong(&out, STEP_CONFINE_USER, !aa_check_label(h.user, false) ||
		   !aa_check_label(h.user, true), FAULT_LABEL) &&
	    !wrong(&out, STEP_EXEC, !fstat(fd, &st) && S_ISSOCK(st.st_mode),
		   FAULT_NOT_INSTALLED) &&
	    !use(&r, fd))
		out.step = STEP_DONE;
	return write(res, &out, sizeof(out)) == sizeof(out) ? 0 : 1;
}

/* The creator's event on the peer's end, end 1 (handoff.peer). */
static int peer_event(struct run *r, int sv[2], int chan)
{
	const struct handoff *h = r->h;
	enum handoff_op op;

	switch (h->peer) {
	case HPEER_USE:
		if ((h->peer_warm & HANDOFF_WARM(HOP_WRITE)) &&
		    send_msg(r, STEP_HANDOFF, sv[1], HOP_WRITE))
			return -1;
		for (op = HOP_FLOCK_SH; op <= HOP_FLOCK_EX; op++)
			if ((h->peer_warm & HANDOFF_WARM(op)) &&
			    lock_at(r, STEP_HANDOFF, sv[1], op))
				return -1;
		return 0;
	case HPEER_CHANGE:
		return confine(r->out, STEP_HANDOFF, h->peer_label, false,
			       false);
	case HPEER_REPLACE:
		return await_replace(r, chan);
	default:
		return 0;
	}
}

/*
 * HANDOFF_FORK: the child puts the user's label on and uses end 0.  The
 * creator's peer event comes after the fork in either order: before the
 * child's label change, or for peer_after between it and the child's op;
 * pipes order them, which AppArmor does not mediate.
 */
static int fork_user(struct run *r, struct run *user, int sv[2], int chan)
{
	bool peer = r->h->peer != HPEER_NONE, after = r->h->peer_after;
	int go[2] = { -1, -1 }, done[2] = { -1, -1 };
	bool ok;
	char c = 0;
	pid_t pid;

	if (peer && (failed(r->out, STEP_HANDOFF, pipe2(go, O_CLOEXEC)) ||
		     failed(r->out, STEP_HANDOFF, pipe2(done, O_CLOEXEC))))
		return -1;
	r->out->step = STEP_HANDOFF;
	pid = fork();
	if (failed(r->out, STEP_HANDOFF, pid))
		return -1;
	if (!pid) {
		ok = !stack_mid(user, sv);
		close(sv[1]);
		ok = ok && !(after && become_user(r->h, user->out, false));
		if (peer) {
			close(go[1]);
			close(done[0]);
			ok = ok && write(done[1], "u", 1) == 1 &&
			     read(go[0], &c, 1) == 1 && c == 'g';
		}
		ok = ok && !(!after && become_user(r->h, user->out, false));
		if (ok && !use(user, sv[0]))
			user->out->step = STEP_DONE;
		_exit(0);
	}
	close(sv[0]);
	if (peer) {
		close(done[1]);
		close(go[0]);
		/* The child stopped on its way: no event. */
		if (!child_answers(user->out, done[0], pid))
			pid = -1;
		else if (read(done[0], &c, 1) == 1 &&
			 !peer_event(r, sv, chan) && write(go[1], "g", 1) != 1)
			failed(r->out, STEP_HANDOFF, -1);
		close(go[1]);
		close(done[0]);
	}
	if (pid > 0)
		reap(user->out, pid);
	if (r->out->err || r->out->fault)
		return -1;
	return user->out->step == STEP_DONE && !user->out->fault ? 0 : -1;
}

/* Where the user's end goes after seeding; the creator keeps end 1. */
static int hand_off(struct run *r, struct run *user, int sv[2], int chan)
{
	switch (r->h->how) {
	case HANDOFF_CHANGE:
		if (become_user(r->h, user->out, false) || use(user, sv[0]))
			return -1;
		user->out->step = STEP_DONE;
		return 0;
	case HANDOFF_FORK:
		return fork_user(r, user, sv, chan);
	case HANDOFF_EXEC:
		return exec_user(r, user, sv);
	case HANDOFF_REPLACE:
		/* The pair is in use before the profile is replaced. */
		if (r->h->op != HOP_CONNECT &&
		    (use_at(r, STEP_BEFORE, sv[0]) ||
		     check_at(r, STEP_BEFORE, sv[1])))
			return -1;
		if (await_replace(r, chan) || use(user, sv[0]))
			return -1;
		user->out->step = STEP_DONE;
		return 0;
	default:
		if (send_fd(r->out, chan, sv[0]))
			return -1;
		close(sv[0]);
		return 0;
	}
}

/*
 * The creator: confined, it makes the pair, queues a message for a read
 * op, hands end 0 over and checks on end 1 what the user wrote.
 */
static void creator(struct run *r, struct run *user, int chan)
{
	enum handoff_op seed = r->h->creator_file_ops ? HOP_WRITE : HOP_SENDMSG;
	int sv[2];

	if (confine(r->out, STEP_CONFINE, r->h->creator, false, false))
		return;
	if (make_pair(r, sv))
		return;
	/* Read ops read twice (retry()). */
	if (op_reads(r->h->op) &&
	    (send_msg(r, STEP_SEED, sv[1], seed) ||
	     send_msg(r, STEP_SEED, sv[1], seed)))
		return;
	if (r->h->how != HANDOFF_REPLACE &&
	    warm_ops(r, STEP_BEFORE, sv, r->h->warm))
		return;
	/* Fork and exec: the child holds both ends until it has its label. */
	if ((r->h->how == HANDOFF_CHANGE || r->h->how == HANDOFF_PASS) &&
	    stack_mid(r, sv))
		return;
	if (hand_off(r, user, sv, chan))
		return;
	/* SCM_RIGHTS: the user says when it has used its end, or stops. */
	if (r->h->how == HANDOFF_PASS && !readable(r->out, STEP_CHECK, chan, -1))
		return;
	if (r->h->how == HANDOFF_PASS && user->out->step != STEP_DONE)
		return;
	r->out->step = STEP_CHECK;
	if (!check(r, sv[1]))
		r->out->step = STEP_DONE;
}

static bool stopped(const struct outcome *o)
{
	return o->err || o->fault;
}

/*
 * The creator stops on its own only before the hand-off or at the check,
 * and quietly when the user stopped: the first failure is the result,
 * and a success the user's (whose pid the records of its op name).
 */
static struct outcome merge(const struct outcome o[WHO_COUNT])
{
	struct outcome m = o[CREATOR];

	if (stopped(&o[CREATOR]))
		return o[CREATOR];
	if (stopped(&o[USER]) || o[USER].step != STEP_DONE)
		return o[USER];
	m.pid = o[USER].pid;
	return m;
}

static void creator_main(void *arg)
{
	struct run *r = arg;

	if (r->chan_other >= 0)
		close(r->chan_other);
	creator(r, r->user, r->chan);
}

static void user_main(void *arg)
{
	struct run *r = arg;

	close(r->chan_other);
	pass_user(r, r->chan);
	/* Tells the creator the end has been used, or not. */
	if (write(r->chan, "u", 1) != 1)
		_exit(1);
}

int handoff_run(const struct handoff *h, struct outcome *out)
{
	static void (*const main_of[WHO_COUNT])(void *) = {
		[CREATOR] = creator_main,
		[USER] = user_main,
	};
	struct outcome *sh;
	struct run r[WHO_COUNT];
	int chan[2] = { -1, -1 }, ret = 0;
	pid_t pid[WHO_COUNT] = { 0, 0 };
	enum who w;

	sh = shared_alloc(WHO_COUNT * sizeof(*sh));
	if (!sh)
		return -errno;
	/*
	 * The channel is created unconfined: passing on it is not checked,
	 * nor are the messages of a replacement.
	 */
	if ((h->how == HANDOFF_PASS || h->how == HANDOFF_REPLACE ||
	     h->peer == HPEER_REPLACE) &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan)) {
		ret = -errno;
		goto out;
	}
	for (w = CREATOR; w < WHO_COUNT; w++) {
		sh[w] = (struct outcome){ .step = STEP_NOT_RUN };
		r[w] = (struct run){
			.h = h,
			.out = &sh[w],
			.user = &r[USER],
			.chan = chan[w],
			.chan_other = chan[!w],
		};
	}
	for (w = CREATOR; w < WHO_COUNT; w++) {
		if (w == USER && h->how != HANDOFF_PASS)
			break;
		pid[w] = spawn(main_of[w], &r[w]);
		if (pid[w] < 0) {
			ret = pid[w];
			break;
		}
	}
	if ((h->how == HANDOFF_REPLACE || h->peer == HPEER_REPLACE) &&
	    pid[CREATOR] > 0) {
		ret = replace_for(h, chan[1]);
		if (ret)
			kill(pid[CREATOR], SIGKILL);
	}
	if (chan[0] >= 0) {
		close(chan[0]);
		close(chan[1]);
	}
	for (w = CREATOR; w < WHO_COUNT; w++) {
		if (pid[w] > 0)
			reap(r[w].out, pid[w]);
		else if (pid[w] < 0 && w == USER && pid[CREATOR] > 0)
			kill(pid[CREATOR], SIGKILL);
	}
	*out = merge(sh);
out:
	shared_free(sh, WHO_COUNT * sizeof(*sh));
	return ret;
}

int handoff_uring_probe(void)
{
#ifdef HAVE_LIBURING
	struct io_uring ring;
	int ret = io_uring_queue_init(2, &ring, 0);

	if (!ret)
		io_uring_queue_exit(&ring);
	return ret;
#else
	return -EOPNOTSUPP;
#endif
}
