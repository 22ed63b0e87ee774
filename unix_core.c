// SPDX-License-Identifier: GPL-2.0
/*
 * What every AF_UNIX run shares: outcomes, bounded waits, confinement,
 * addresses and the processes that run them.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "unix_core.h"

static const char *const step_names[] = {
	[STEP_NOT_RUN] = "not run",
	[STEP_CONFINE] = "confine",
	[STEP_CREATE] = "create",
	[STEP_SETOPT] = "setsockopt",
	[STEP_GETOPT] = "getsockopt",
	[STEP_BIND] = "bind",
	[STEP_LISTEN] = "listen",
	[STEP_WAIT_SERVER] = "wait for the server",
	[STEP_CONNECT] = "connect",
	[STEP_ACCEPT] = "accept",
	[STEP_GETSOCKNAME] = "getsockname",
	[STEP_GETPEERNAME] = "getpeername",
	[STEP_PEERLABEL] = "peer label",
	[STEP_SENDTO] = "sendto",
	[STEP_SENDMSG] = "sendmsg",
	[STEP_SENDMMSG] = "sendmmsg",
	[STEP_RECV] = "receive",
	[STEP_REPLY] = "reply",
	[STEP_RECV_REPLY] = "receive reply",
	[STEP_SHUTDOWN] = "shutdown",
	[STEP_SEED] = "seed",
	[STEP_BEFORE] = "op before the replacement",
	[STEP_HANDOFF] = "hand off",
	[STEP_CONFINE_USER] = "confine the user",
	[STEP_RECV_FD] = "receive fd",
	[STEP_EXEC] = "exec",
	[STEP_OPEN] = "open",
	[STEP_OP] = "op",
	[STEP_RETRY] = "retry",
	[STEP_CHECK] = "check the other end",
	[STEP_DONE] = "done",
};

static const char *const fault_names[] = {
	[FAULT_NONE] = "no fault",
	[FAULT_PEER_STOPPED] = "the other side had stopped",
	[FAULT_EOF] = "connection closed",
	[FAULT_SHORT] = "message cut or merged",
	[FAULT_PAYLOAD] = "payload differs from what was sent",
	[FAULT_SOCK_TYPE] = "SO_TYPE differs from the type created",
	[FAULT_ADDR] = "wrong bound address",
	[FAULT_LABEL] = "label differs from the profile",
	[FAULT_NOT_INSTALLED] = "descriptor dropped or revoked",
	[FAULT_TIMEOUT] = "timed out waiting",
	[FAULT_RETRY] = "decided otherwise on retry",
	[FAULT_TEST] = "the test's own call failed",
	[FAULT_HUNG] = "did not exit: killed",
	[FAULT_CRASHED] = "killed by signal",
	[FAULT_EXIT] = "exited with status",
};

const char *step_name(enum step step)
{
	return step <= STEP_DONE ? step_names[step] : "?";
}

const char *type_name(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return "stream";
	case SOCK_DGRAM:
		return "dgram";
	case SOCK_SEQPACKET:
		return "seqpacket";
	}
	return "?";
}

static const char *errno_or_allowed(int err)
{
	return !err ? "allowed" : strerrorname_np(err) ?: "?";
}

const char *outcome_str(const struct outcome *o, char *buf, size_t len)
{
	const char *fault = o->fault < FAULT_COUNT ? fault_names[o->fault] : "?";

	if (o->step == STEP_DONE && !o->err && !o->fault)
		snprintf(buf, len, "done");
	else if (o->fault == FAULT_NONE)
		snprintf(buf, len, "%s: %s (%s)", step_name(o->step),
			 strerrorname_np(o->err) ?: "no errno",
			 strerror(o->err));
	else if (o->fault == FAULT_TEST)
		snprintf(buf, len, "%s: %s: %s (test)", step_name(o->step),
			 fault, strerror(o->detail));
	else if (o->fault >= FAULT_CRASHED)
		snprintf(buf, len, "%s: %s %d (test)", step_name(o->step),
			 fault, o->detail);
	else if (o->fault == FAULT_RETRY)
		snprintf(buf, len, "%s: %s, %s then %s", step_name(o->step),
			 fault, errno_or_allowed(o->err),
			 errno_or_allowed(o->detail));
	else
		snprintf(buf, len, "%s: %s (test)", step_name(o->step), fault);
	return buf;
}

bool outcome_eq(const struct outcome *a, const struct outcome *b)
{
	/* A retry decided otherwise: which way, too. */
	return a->step == b->step && a->err == b->err &&
	       a->fault == b->fault &&
	       (a->fault != FAULT_RETRY || a->detail == b->detail);
}

void at(struct outcome *out, enum step step)
{
	out->step = step;
}

bool failed(struct outcome *out, enum step where, long ret)
{
	if (ret >= 0)
		return false;
	out->step = where;
	out->err = errno;
	return true;
}

bool wrong(struct outcome *out, enum step where, bool ok, enum fault fault)
{
	if (ok)
		return false;
	out->step = where;
	out->fault = fault;
	out->detail = errno;
	return true;
}

bool readable(struct outcome *out, enum step where, int fd, int stop)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop, .events = POLLIN },
	};
	int n;

	n = poll(pfd, stop >= 0 && stop != fd ? 2 : 1, IO_TIMEOUT_MS);
	/*
	 * The other side stops after what it sends: once its stop is seen,
	 * what it sent is there.  poll() looks at the fds one after the
	 * other, so look at @fd again.
	 */
	if (n > 0 && !pfd[0].revents && poll(pfd, 1, 0) < 0)
		n = -1;
	if (wrong(out, where, n >= 0, FAULT_TEST))
		return false;
	if (pfd[0].revents)
		return true;
	return !wrong(out, where, false,
		      n ? FAULT_PEER_STOPPED : FAULT_TIMEOUT);
}

int confine(struct outcome *out, enum step where, const char *profile,
	    bool stack, bool complain)
{
	char label[LABEL_MAX];
	int ret;

	if (!profile)
		return 0;
	at(out, where);
	ret = stack ? aa_stack(profile) : aa_confine(profile);
	if (ret) {
		out->err = -ret;
		return -1;
	}
	/*
	 * A stack put onto the unconfined task keeps the unconfined profile
	 * in it, as a container manager's stack does.
	 */
	if (stack)
		snprintf(label, sizeof(label), "%s//&unconfined", profile);
	else
		snprintf(label, sizeof(label), "%s", profile);
	return wrong(out, where, !aa_check_label(label, complain),
		     FAULT_LABEL) ? -1 : 0;
}

socklen_t unix_addr(struct sockaddr_un *addr, const char *name, bool abstract)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (!name)
		return sizeof(sa_family_t);
	snprintf(addr->sun_path + abstract, sizeof(addr->sun_path) - abstract,
		 "%s", name);
	/* A path counts its NUL; an abstract name is exactly its bytes. */
	return offsetof(struct sockaddr_un, sun_path) + strlen(name) + 1;
}

int send_fd(struct outcome *out, int chan, int fd)
{
	char data = 'f', cbuf[CMSG_SPACE(sizeof(int))] = { };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return failed(out, STEP_HANDOFF, sendmsg(chan, &msg, 0)) ? -1 : 0;
}

/* The descriptor the creator passed, or -1 with the reason recorded. */

int recv_fd(struct outcome *out, int chan)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))] = { };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int fd;

	at(out, STEP_RECV_FD);
	if (!readable(out, STEP_RECV_FD, chan, -1))
		return -1;
	n = recvmsg(chan, &msg, MSG_CMSG_CLOEXEC);
	if (failed(out, STEP_RECV_FD, n) ||
	    wrong(out, STEP_RECV_FD, n == 1, FAULT_PEER_STOPPED))
		return -1;
	/* A descriptor the receiver may not have is dropped, not refused. */
	cm = CMSG_FIRSTHDR(&msg);
	if (wrong(out, STEP_RECV_FD, cm && cm->cmsg_type == SCM_RIGHTS &&
		  cm->cmsg_len == CMSG_LEN(sizeof(int)), FAULT_NOT_INSTALLED))
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

void *shared_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void shared_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

pid_t spawn(void (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

bool child_answers(struct outcome *out, int fd, pid_t pid)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, CHILD_TIMEOUT_MS) == 1)
		return true;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	out->fault = FAULT_TIMEOUT;
	return false;
}

void reap(struct outcome *out, pid_t pid)
{
	int status = aa_reap(pid, EXIT_TIMEOUT_MS);

	if (status < 0) {
		out->fault = FAULT_HUNG;
	} else if (WIFSIGNALED(status)) {
		out->fault = FAULT_CRASHED;
		out->detail = WTERMSIG(status);
	} else if (WEXITSTATUS(status)) {
		out->fault = FAULT_EXIT;
		out->detail = WEXITSTATUS(status);
	}
}
