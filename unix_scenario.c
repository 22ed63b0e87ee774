// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX conversation between two processes with their own AppArmor labels.
 *
 * Each side stops at its first failing operation and records it in memory
 * shared with the caller, so a test can assert exactly where mediation
 * stepped in and with which errno.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "unix_scenario.h"

#define NMSG 3
#define MSG_LEN 64
/* Bounds every blocking call, so a denied peer cannot hang the test. */
#define IO_TIMEOUT_SEC 5
#define WAIT_TIMEOUT_MS 10000

struct shared {
	struct outcome res[SIDE_COUNT];
	struct sockaddr_un addr;
	socklen_t addrlen;
};

static const char *const step_names[] = {
	[STEP_CONFINE] = "confine",
	[STEP_CREATE] = "create",
	[STEP_SETOPT] = "setsockopt",
	[STEP_GETOPT] = "getsockopt",
	[STEP_BIND] = "bind",
	[STEP_LISTEN] = "listen",
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
	[STEP_DONE] = "done",
	[STEP_NOT_RUN] = "not run",
};

const char *step_name(enum step step)
{
	return step <= STEP_NOT_RUN ? step_names[step] : "?";
}

const char *kind_name(enum sock_kind kind)
{
	static const char *const names[] = {
		[KIND_PATHNAME] = "pathname",
		[KIND_ABSTRACT] = "abstract",
		[KIND_UNNAMED] = "unnamed",
		[KIND_AUTOBIND] = "autobind",
	};

	return kind < KIND_COUNT ? names[kind] : "?";
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

static bool connection_oriented(int type)
{
	return type != SOCK_DGRAM;
}

/* Records the failed step; the side's process then exits. */
static int fail(struct outcome *out, enum step step, int err)
{
	out->step = step;
	out->err = err;
	return -1;
}

/* True, with the step recorded, when a call returned an error. */
static bool failed(struct outcome *out, enum step step, long ret)
{
	if (ret >= 0)
		return false;
	fail(out, step, errno);
	return true;
}

/* True, with the step recorded, when a result is not what was sent. */
static bool wrong(struct outcome *out, enum step step, bool ok, int err)
{
	if (ok)
		return false;
	fail(out, step, err);
	return true;
}

static void make_msg(char *buf, int i)
{
	memset(buf, 0, MSG_LEN);
	snprintf(buf, MSG_LEN, "aa_unix_mediation message %d", i);
}

static int confine(struct outcome *out, const char *profile)
{
	int ret;

	if (!profile)
		return 0;
	ret = aa_confine(profile);
	if (!ret)
		ret = aa_check_label(profile);
	if (wrong(out, STEP_CONFINE, !ret, -ret))
		return -1;
	return 0;
}

static int sock_setup(struct outcome *out, int fd, int type)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_SEC };
	socklen_t len = sizeof(int);
	int val = 0;

	if (failed(out, STEP_SETOPT,
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))))
		return -1;
	if (failed(out, STEP_GETOPT, getsockopt(fd, SOL_SOCKET, SO_TYPE, &val, &len)))
		return -1;
	if (wrong(out, STEP_GETOPT, val == type, EPROTOTYPE))
		return -1;
	return 0;
}

static int check_peer_label(const struct scenario *sc, struct outcome *out,
			    int fd, const char *profile)
{
	int ret;

	if (!sc->peer_labels)
		return 0;
	ret = aa_check_peer_label(fd, profile);
	/* Without libapparmor the label cannot be read: not a failure. */
	if (wrong(out, STEP_PEERLABEL, !ret || ret == -EOPNOTSUPP, -ret))
		return -1;
	return 0;
}

static struct iovec msg_iov(char buf[MSG_LEN], int i)
{
	make_msg(buf, i);
	return (struct iovec){ .iov_base = buf, .iov_len = MSG_LEN };
}

/* Message 0: sendto(), with an address when not connected. */
static int send_first(struct outcome *out, int fd,
		      const struct sockaddr_un *addr, socklen_t addrlen)
{
	char buf[MSG_LEN];

	make_msg(buf, 0);
	if (failed(out, STEP_SENDTO, sendto(fd, buf, MSG_LEN, 0,
				     (const struct sockaddr *)addr, addrlen)))
		return -1;
	return 0;
}

/* Messages 1 and 2: sendmsg() and sendmmsg() on a connected socket. */
static int send_rest(struct outcome *out, int fd)
{
	char buf[2][MSG_LEN];
	struct iovec iov[2] = { msg_iov(buf[0], 1), msg_iov(buf[1], 2) };
	struct msghdr msg = { .msg_iov = &iov[0], .msg_iovlen = 1 };
	struct mmsghdr mm = {
		.msg_hdr = { .msg_iov = &iov[1], .msg_iovlen = 1 },
	};

	if (failed(out, STEP_SENDMSG, sendmsg(fd, &msg, 0)))
		return -1;
	if (failed(out, STEP_SENDMMSG, sendmmsg(fd, &mm, 1, 0)))
		return -1;
	if (wrong(out, STEP_SENDMMSG, mm.msg_len == MSG_LEN, EMSGSIZE))
		return -1;
	return 0;
}

/* Receives the three messages and checks every byte. */
static int recv_three(struct outcome *out, int fd, enum step step, int type)
{
	char want[MSG_LEN], got[NMSG * MSG_LEN];
	size_t total = 0;
	ssize_t n;
	int i;

	while (total < sizeof(got)) {
		n = recv(fd, got + total, sizeof(got) - total, 0);
		if (failed(out, step, n))
			return -1;
		if (wrong(out, step, n > 0, ECONNRESET))
			return -1;
		/* Datagrams and records must keep their boundaries. */
		if (wrong(out, step, type == SOCK_STREAM || n == MSG_LEN, EMSGSIZE))
			return -1;
		total += n;
	}
	for (i = 0; i < NMSG; i++) {
		make_msg(want, i);
		if (wrong(out, step, !memcmp(want, got + i * MSG_LEN, MSG_LEN),
		      EBADMSG))
			return -1;
	}
	return 0;
}

static int reply_and_check(struct outcome *out, int from, int to)
{
	char buf[MSG_LEN], got[MSG_LEN];

	make_msg(buf, NMSG);

	if (failed(out, STEP_REPLY, send(from, buf, sizeof(buf), 0)))
		return -1;
	if (failed(out, STEP_RECV_REPLY, recv(to, got, sizeof(got), 0)))
		return -1;
	if (wrong(out, STEP_RECV_REPLY, !memcmp(buf, got, sizeof(buf)), EBADMSG))
		return -1;
	return 0;
}

static int recv_reply(struct outcome *out, int fd)
{
	char want[MSG_LEN], got[MSG_LEN];

	make_msg(want, NMSG);
	if (failed(out, STEP_RECV_REPLY, recv(fd, got, sizeof(got), MSG_WAITALL)))
		return -1;
	if (wrong(out, STEP_RECV_REPLY, !memcmp(want, got, sizeof(got)), EBADMSG))
		return -1;
	return 0;
}

static socklen_t build_addr(const struct scenario *sc, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	switch (sc->kind) {
	case KIND_PATHNAME:
		snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/%s",
			 sc->dir, sc->name);
		return offsetof(struct sockaddr_un, sun_path) +
		       strlen(addr->sun_path) + 1;
	case KIND_ABSTRACT:
		snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "%s",
			 sc->name);
		return offsetof(struct sockaddr_un, sun_path) + 1 +
		       strlen(sc->name);
	default:
		return sizeof(sa_family_t);
	}
}

static int server(const struct scenario *sc, struct shared *sh, int ready)
{
	struct outcome *out = &sh->res[SERVER];
	struct sockaddr_un addr, peer;
	char reply[MSG_LEN];
	socklen_t len;
	int fd, conn;

	if (confine(out, sc->profile[SERVER]))
		return -1;
	fd = socket(AF_UNIX, sc->type, 0);
	if (failed(out, STEP_CREATE, fd))
		return -1;
	if (sock_setup(out, fd, sc->type))
		return -1;
	len = build_addr(sc, &addr);
	if (failed(out, STEP_BIND, bind(fd, (struct sockaddr *)&addr, len)))
		return -1;
	if (connection_oriented(sc->type))
		if (failed(out, STEP_LISTEN, listen(fd, 4)))
			return -1;
	sh->addrlen = sizeof(sh->addr);
	if (failed(out, STEP_GETSOCKNAME,
	    getsockname(fd, (struct sockaddr *)&sh->addr, &sh->addrlen)))
		return -1;
	/* Autobind picks the name: the bound one must be non-empty. */
	if (wrong(out, STEP_GETSOCKNAME, sh->addrlen > sizeof(sa_family_t),
	      EADDRNOTAVAIL))
		return -1;
	if (failed(out, STEP_NOT_RUN, write(ready, "r", 1)))
		return -1;
	close(ready);

	if (!connection_oriented(sc->type)) {
		if (recv_three(out, fd, STEP_RECV, sc->type))
			return -1;
		if (failed(out, STEP_SHUTDOWN, shutdown(fd, SHUT_RDWR)))
			return -1;
		return 0;
	}
	conn = accept(fd, NULL, NULL);
	if (failed(out, STEP_ACCEPT, conn))
		return -1;
	len = sizeof(peer);
	if (failed(out, STEP_GETPEERNAME,
	    getpeername(conn, (struct sockaddr *)&peer, &len)))
		return -1;
	if (check_peer_label(sc, out, conn, sc->profile[CLIENT]))
		return -1;
	if (recv_three(out, conn, STEP_RECV, sc->type))
		return -1;
	make_msg(reply, NMSG);
	if (failed(out, STEP_REPLY, send(conn, reply, MSG_LEN, 0)))
		return -1;
	if (failed(out, STEP_SHUTDOWN, shutdown(conn, SHUT_RDWR)))
		return -1;
	return 0;
}

static int client(const struct scenario *sc, struct shared *sh, int ready)
{
	struct outcome *out = &sh->res[CLIENT];
	struct sockaddr_un name;
	socklen_t len;
	char buf[MSG_LEN];
	int fd;

	if (confine(out, sc->profile[CLIENT]))
		return -1;
	fd = socket(AF_UNIX, sc->type, 0);
	if (failed(out, STEP_CREATE, fd))
		return -1;
	if (sock_setup(out, fd, sc->type))
		return -1;
	/* EOF: the server stopped before it could take connections. */
	if (wrong(out, STEP_NOT_RUN, read(ready, buf, 1) == 1, ECHILD))
		return -1;

	if (!connection_oriented(sc->type) &&
	    send_first(out, fd, &sh->addr, sh->addrlen))
		return -1;
	if (failed(out, STEP_CONNECT,
	    connect(fd, (struct sockaddr *)&sh->addr, sh->addrlen)))
		return -1;
	len = sizeof(name);
	if (failed(out, STEP_GETPEERNAME,
	    getpeername(fd, (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) &&
	    (check_peer_label(sc, out, fd, sc->profile[SERVER]) ||
	     send_first(out, fd, NULL, 0)))
		return -1;
	if (send_rest(out, fd))
		return -1;
	len = sizeof(name);
	if (failed(out, STEP_GETSOCKNAME,
	    getsockname(fd, (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) && recv_reply(out, fd))
		return -1;
	if (failed(out, STEP_SHUTDOWN, shutdown(fd, SHUT_RDWR)))
		return -1;
	return 0;
}

/* socketpair(): one process, one label, both ends. */
static int unnamed(const struct scenario *sc, struct shared *sh)
{
	struct outcome *out = &sh->res[CLIENT];
	struct sockaddr_un name;
	socklen_t len;
	int sv[2];

	if (confine(out, sc->profile[CLIENT]))
		return -1;
	if (failed(out, STEP_CREATE, socketpair(AF_UNIX, sc->type, 0, sv)))
		return -1;
	if (sock_setup(out, sv[0], sc->type) || sock_setup(out, sv[1], sc->type))
		return -1;
	len = sizeof(name);
	if (failed(out, STEP_GETSOCKNAME,
	    getsockname(sv[0], (struct sockaddr *)&name, &len)))
		return -1;
	if (wrong(out, STEP_GETSOCKNAME, len == sizeof(sa_family_t), EINVAL))
		return -1;
	len = sizeof(name);
	if (failed(out, STEP_GETPEERNAME,
	    getpeername(sv[0], (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) &&
	    check_peer_label(sc, out, sv[1], sc->profile[CLIENT]))
		return -1;
	if (send_first(out, sv[0], NULL, 0) || send_rest(out, sv[0]) ||
	    recv_three(out, sv[1], STEP_RECV, sc->type) ||
	    reply_and_check(out, sv[1], sv[0]))
		return -1;
	if (failed(out, STEP_SHUTDOWN, shutdown(sv[0], SHUT_RDWR)))
		return -1;
	return 0;
}

static pid_t spawn(const struct scenario *sc, struct shared *sh,
		   enum side side, int ready[2])
{
	pid_t pid = fork();
	int ret;

	if (pid)
		return pid;
	/* Keep only this side's end, so EOF tells the client "no server". */
	close(ready[side == SERVER ? 0 : 1]);
	if (side == SERVER)
		ret = server(sc, sh, ready[1]);
	else if (sc->kind == KIND_UNNAMED)
		ret = unnamed(sc, sh);
	else
		ret = client(sc, sh, ready[0]);
	if (!ret)
		sh->res[side].step = STEP_DONE;
	_exit(0);
}

static int wait_exit(pid_t pid, int timeout_ms)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int status;

	if (pidfd >= 0) {
		if (poll(&pfd, 1, timeout_ms) == 0)
			kill(pid, SIGKILL);
		close(pidfd);
	}
	return waitpid(pid, &status, 0) == pid ? 0 : -errno;
}

int scenario_run(const struct scenario *sc, struct outcome res[SIDE_COUNT])
{
	pid_t pid[SIDE_COUNT] = { 0, 0 };
	int ready[2], side, ret = 0;
	struct shared *sh;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -errno;
	for (side = 0; side < SIDE_COUNT; side++)
		sh->res[side] = (struct outcome){ STEP_NOT_RUN, 0 };
	if (pipe2(ready, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	if (sc->kind != KIND_UNNAMED)
		pid[SERVER] = spawn(sc, sh, SERVER, ready);
	pid[CLIENT] = spawn(sc, sh, CLIENT, ready);
	close(ready[0]);
	close(ready[1]);

	if (wait_exit(pid[CLIENT], WAIT_TIMEOUT_MS))
		ret = -ECHILD;
	if (pid[SERVER] > 0) {
		/* Once the client is done, the server may wait in vain. */
		if (!sc->wait_server)
			kill(pid[SERVER], SIGKILL);
		if (wait_exit(pid[SERVER], WAIT_TIMEOUT_MS) && !ret)
			ret = -ECHILD;
	}
	memcpy(res, sh->res, sizeof(sh->res));
out:
	munmap(sh, sizeof(*sh));
	return ret;
}
