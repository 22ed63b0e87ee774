// SPDX-License-Identifier: GPL-2.0
/*
 * The operations on one end of a handed-over pair, as unix_handoff.c's
 * processes do them: the message each system call moves, a lock, an
 * accept() or connect(), the retry of a revalidated operation, and the
 * check at the other end.  Each records where it stopped and why in its
 * run's outcome.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"
#include "unix_core.h"
#include "unix_handoff_ops.h"

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
int end_ring_open(struct run *r, enum step at, enum handoff_op op)
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

void end_ring_close(struct run *r, enum handoff_op op)
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

bool handoff_op_reads(enum handoff_op op)
{
	return op == HOP_READ || op == HOP_RECVMSG || op == HOP_URING_RECV ||
	       op == HOP_READV || op == HOP_SPLICE_FROM || op == HOP_URING_READ;
}

bool handoff_op_locks(enum handoff_op op)
{
	return op == HOP_FLOCK_SH || op == HOP_FLOCK_EX;
}

/* What aa_file_perm() revalidates: not the socket hooks' ops. */
bool handoff_op_file(enum handoff_op op)
{
	return op == HOP_WRITE || op == HOP_READ || op >= HOP_FLOCK_SH;
}

/* The lock of @op on @fd, and its release: nothing else waits on it. */
int end_lock(struct run *r, enum step where, int fd, enum handoff_op op)
{
	if (failed(r->out, where,
		   flock(fd, (op == HOP_FLOCK_EX ? LOCK_EX : LOCK_SH) | LOCK_NB)))
		return -1;
	return failed(r->out, where, flock(fd, LOCK_UN)) ? -1 : 0;
}

/* Receives the run's message on @fd by @via and checks every byte. */
int end_recv(struct run *r, enum step where, int fd, enum handoff_op via)
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

int end_send(struct run *r, enum step where, int fd, enum handoff_op via)
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
	ret = end_send(r, at, conn, HOP_SENDMSG);
	close(conn);
	return ret;
}

static int op_once(struct run *r, enum step at, int fd)
{
	if (handoff_op_locks(r->h->op))
		return end_lock(r, at, fd, r->h->op);
	if (handoff_op_reads(r->h->op))
		return end_recv(r, at, fd, r->h->op);
	return end_send(r, at, fd, r->h->op);
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
int end_use_at(struct run *r, enum step at, int fd)
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
	if (end_ring_open(r, at, op))
		return -1;
	ret = op_once(r, at, fd);
	if (at == STEP_OP && handoff_op_file(op))
		ret = retry(r, fd, ret);
	end_ring_close(r, op);
	return ret;
}

int end_use(struct run *r, int fd)
{
	return end_use_at(r, STEP_OP, fd);
}

/*
 * The creator's end receives what the user's end wrote, or accepts the
 * connection it made.
 */
int end_check_at(struct run *r, enum step at, int fd)
{
	int conn;

	/* Closed by the peer (HPEER_CLOSE), or nothing was sent to it. */
	if (fd < 0 || handoff_op_reads(r->h->op) || handoff_op_locks(r->h->op))
		return 0;
	if (r->h->op != HOP_CONNECT)
		return end_recv(r, at, fd, r->h->creator_file_ops ? HOP_READ :
				HOP_RECVMSG);
	if (!readable(r->out, at, fd, -1))
		return -1;
	conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (failed(r->out, at, conn))
		return -1;
	close(conn);
	return 0;
}

int end_check(struct run *r, int fd)
{
	return end_check_at(r, STEP_CHECK, fd);
}
