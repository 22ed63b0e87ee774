// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX conversation between two processes with their own AppArmor labels.
 *
 * Each side stops at its first failing operation and records it in memory
 * shared with the caller, so a test can assert exactly where mediation
 * stepped in, with which errno, and where the other side then stopped.
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
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "unix_scenario.h"

#define NMSG 3
/* How many connections a listener queues: one client connects. */
#define BACKLOG 1

/* What the server writes on its stop pipe: bound and listening, stopped. */
#define SIG_READY 'r'
#define SIG_STOPPED 's'

struct shared {
	struct outcome res[SIDE_COUNT];
	struct sockaddr_un addr;
	socklen_t addrlen;
};

/* One side's view: its outcome, and the pipes to and from the other. */
struct party {
	const struct scenario *sc;
	struct shared *sh;
	struct outcome *out;
	enum side side;
	int to_peer;		/* write end of our stop pipe, -1 if none */
	int from_peer;		/* read end of the other side's, -1 if none */
	int others[2];		/* the pipe ends only the other side may hold */
};

static bool connection_oriented(int type)
{
	return type != SOCK_DGRAM;
}

static void make_msg(char *buf, int i)
{
	memset(buf, 0, MSG_LEN);
	snprintf(buf, MSG_LEN, "aa_unix_mediation message %d", i);
}

static int confine_side(struct party *s, enum side side)
{
	const struct scenario *sc = s->sc;

	return confine(s->out, STEP_CONFINE, sc->profile[side],
		       sc->by_stack[side], sc->complain[side]);
}

/* The label a stack put onto the unconfined task shows (confine()). */
static const char *label_of(const struct scenario *sc, enum side who,
			    char *buf, size_t len)
{
	if (!sc->by_stack[who] || !sc->profile[who])
		return sc->profile[who];
	snprintf(buf, len, "%s//&unconfined", sc->profile[who]);
	return buf;
}

static int sock_setup(struct party *s, int fd, int type)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };
	socklen_t len = sizeof(int);
	int val = 0;

	if (failed(s->out, STEP_SETOPT,
		   setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))))
		return -1;
	if (failed(s->out, STEP_GETOPT, getsockopt(fd, SOL_SOCKET, SO_TYPE, &val, &len)))
		return -1;
	if (wrong(s->out, STEP_GETOPT, val == type, FAULT_SOCK_TYPE))
		return -1;
	return 0;
}

static int check_peer_label(struct party *s, int fd, enum side peer)
{
	char label[LABEL_MAX];
	int ret;

	if (!s->sc->peer_labels)
		return 0;
	at(s->out, STEP_PEERLABEL);
	ret = aa_check_peer_label(fd, label_of(s->sc, peer, label, sizeof(label)),
				  s->sc->complain[peer]);
	/* Without libapparmor the label cannot be read: not a failure. */
	if (!ret || ret == -EOPNOTSUPP)
		return 0;
	if (ret == -EPERM)
		s->out->fault = FAULT_LABEL;
	else
		s->out->err = -ret;
	return -1;
}

static struct iovec msg_iov(char buf[MSG_LEN], int i)
{
	make_msg(buf, i);
	return (struct iovec){ .iov_base = buf, .iov_len = MSG_LEN };
}

/* Message 0: sendto(), with an address when not connected. */
static int send_first(struct party *s, int fd, const struct sockaddr_un *addr,
		      socklen_t addrlen)
{
	char buf[MSG_LEN];
	ssize_t n;

	make_msg(buf, 0);
	n = sendto(fd, buf, MSG_LEN, 0, (const struct sockaddr *)addr, addrlen);
	if (failed(s->out, STEP_SENDTO, n))
		return -1;
	if (wrong(s->out, STEP_SENDTO, n == MSG_LEN, FAULT_SHORT))
		return -1;
	return 0;
}

/* Messages 1 and 2: sendmsg() and sendmmsg() on a connected socket. */
static int send_rest(struct party *s, int fd)
{
	char buf[2][MSG_LEN];
	struct iovec iov[2] = { msg_iov(buf[0], 1), msg_iov(buf[1], 2) };
	struct msghdr msg = { .msg_iov = &iov[0], .msg_iovlen = 1 };
	struct mmsghdr mm = {
		.msg_hdr = { .msg_iov = &iov[1], .msg_iovlen = 1 },
	};
	ssize_t n;

	n = sendmsg(fd, &msg, 0);
	if (failed(s->out, STEP_SENDMSG, n))
		return -1;
	if (wrong(s->out, STEP_SENDMSG, n == MSG_LEN, FAULT_SHORT))
		return -1;
	if (failed(s->out, STEP_SENDMMSG, sendmmsg(fd, &mm, 1, 0)))
		return -1;
	if (wrong(s->out, STEP_SENDMMSG, mm.msg_len == MSG_LEN, FAULT_SHORT))
		return -1;
	return 0;
}

/* Receives messages @first .. @first + @nmsg - 1 and checks every byte. */
static int recv_msgs(struct party *s, int fd, enum step step, int first,
		     int nmsg)
{
	char want[MSG_LEN], got[NMSG * MSG_LEN];
	size_t total = 0, len = nmsg * MSG_LEN;
	ssize_t n;
	int i;

	at(s->out, step);
	while (total < len) {
		if (!readable(s->out, step, fd, s->from_peer))
			return -1;
		n = recv(fd, got + total, len - total, 0);
		if (failed(s->out, step, n))
			return -1;
		if (wrong(s->out, step, n > 0, FAULT_EOF))
			return -1;
		/* Datagrams and records must keep their boundaries. */
		if (wrong(s->out, step, s->sc->type == SOCK_STREAM || n == MSG_LEN,
			  FAULT_SHORT))
			return -1;
		total += n;
	}
	for (i = 0; i < nmsg; i++) {
		make_msg(want, first + i);
		if (wrong(s->out, step, !memcmp(want, got + i * MSG_LEN, MSG_LEN),
			  FAULT_PAYLOAD))
			return -1;
	}
	return 0;
}

static int send_reply(struct party *s, int fd)
{
	char buf[MSG_LEN];
	ssize_t n;

	make_msg(buf, NMSG);
	n = send(fd, buf, MSG_LEN, 0);
	if (failed(s->out, STEP_REPLY, n))
		return -1;
	if (wrong(s->out, STEP_REPLY, n == MSG_LEN, FAULT_SHORT))
		return -1;
	return 0;
}

static socklen_t build_addr(const struct scenario *sc, struct sockaddr_un *addr)
{
	char path[sizeof(addr->sun_path)];

	switch (sc->kind) {
	case KIND_PATHNAME:
		snprintf(path, sizeof(path), "%s/%s", sc->dir, sc->name);
		return unix_addr(addr, path, false);
	case KIND_ABSTRACT:
		return unix_addr(addr, sc->name, true);
	default:
		return unix_addr(addr, NULL, false);
	}
}

static int signal_peer(struct party *s, char what)
{
	if (s->to_peer < 0 || write(s->to_peer, &what, 1) == 1)
		return 0;
	s->out->fault = FAULT_TEST;
	s->out->detail = errno;
	return -1;
}

/*
 * The server's socket file given to sc->owner, after making it writable by
 * all: the client, root, then needs no CAP_DAC_OVERRIDE to connect or send
 * to it (its profile grants no capability), and only AppArmor's owner
 * condition tells the owners apart.  The server's profile must allow
 * "capability chown" and "w" on the path.
 */
static int give_socket_file(struct party *s, const struct sockaddr_un *addr)
{
	const char *path = addr->sun_path;

	if (!s->sc->owner || s->sc->kind != KIND_PATHNAME)
		return 0;
	if (wrong(s->out, STEP_BIND, !chmod(path, 0777), FAULT_TEST))
		return -1;
	return wrong(s->out, STEP_BIND, !chown(path, s->sc->owner, -1),
		     FAULT_TEST) ? -1 : 0;
}

static int server(struct party *s)
{
	const struct scenario *sc = s->sc;
	struct shared *sh = s->sh;
	struct sockaddr_un addr, peer;
	socklen_t len;
	int fd, conn;

	if (confine_side(s, SERVER))
		return -1;
	fd = socket(AF_UNIX, sc->type, 0);
	if (failed(s->out, STEP_CREATE, fd))
		return -1;
	if (sock_setup(s, fd, sc->type))
		return -1;
	len = build_addr(sc, &addr);
	if (failed(s->out, STEP_BIND, bind(fd, (struct sockaddr *)&addr, len)))
		return -1;
	if (give_socket_file(s, &addr))
		return -1;
	if (connection_oriented(sc->type) &&
	    failed(s->out, STEP_LISTEN, listen(fd, BACKLOG)))
		return -1;
	sh->addrlen = sizeof(sh->addr);
	if (failed(s->out, STEP_GETSOCKNAME,
		   getsockname(fd, (struct sockaddr *)&sh->addr, &sh->addrlen)))
		return -1;
	/* Autobind picks the name: the bound one must be non-empty. */
	if (wrong(s->out, STEP_GETSOCKNAME, sh->addrlen > sizeof(sa_family_t), FAULT_ADDR))
		return -1;
	if (signal_peer(s, SIG_READY))
		return -1;

	if (!connection_oriented(sc->type)) {
		if (recv_msgs(s, fd, STEP_RECV, 0, NMSG))
			return -1;
		if (failed(s->out, STEP_SHUTDOWN, shutdown(fd, SHUT_RDWR)))
			return -1;
		return 0;
	}
	if (!readable(s->out, STEP_ACCEPT, fd, s->from_peer))
		return -1;
	conn = accept(fd, NULL, NULL);
	if (failed(s->out, STEP_ACCEPT, conn))
		return -1;
	len = sizeof(peer);
	if (failed(s->out, STEP_GETPEERNAME,
		   getpeername(conn, (struct sockaddr *)&peer, &len)))
		return -1;
	if (check_peer_label(s, conn, CLIENT))
		return -1;
	if (recv_msgs(s, conn, STEP_RECV, 0, NMSG) || send_reply(s, conn))
		return -1;
	if (failed(s->out, STEP_SHUTDOWN, shutdown(conn, SHUT_RDWR)))
		return -1;
	return 0;
}

/* Until the server is bound: false if it stopped before. */
static bool server_ready(struct party *s)
{
	ssize_t n;
	char c;

	if (!readable(s->out, STEP_WAIT_SERVER, s->from_peer, s->from_peer))
		return false;
	n = read(s->from_peer, &c, 1);
	if (wrong(s->out, STEP_WAIT_SERVER, n >= 0, FAULT_TEST))
		return false;
	/* End of file: the server exited without a word. */
	return !wrong(s->out, STEP_WAIT_SERVER, n == 1 && c == SIG_READY, FAULT_PEER_STOPPED);
}

/* A client bound to a path is its own sender address. */
static int bind_client(struct party *s, int fd)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	if (!s->sc->client_path)
		return 0;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s",
		 s->sc->client_path);
	return failed(s->out, STEP_BIND, bind(fd, (struct sockaddr *)&addr,
					 sizeof(addr))) ? -1 : 0;
}

static int client(struct party *s)
{
	const struct scenario *sc = s->sc;
	struct shared *sh = s->sh;
	struct sockaddr_un name;
	socklen_t len;
	int fd;

	if (confine_side(s, CLIENT))
		return -1;
	fd = socket(AF_UNIX, sc->type, 0);
	if (failed(s->out, STEP_CREATE, fd))
		return -1;
	if (sock_setup(s, fd, sc->type) || bind_client(s, fd) ||
	    !server_ready(s))
		return -1;

	if (!connection_oriented(sc->type) &&
	    send_first(s, fd, &sh->addr, sh->addrlen))
		return -1;
	if (failed(s->out, STEP_CONNECT,
		   connect(fd, (struct sockaddr *)&sh->addr, sh->addrlen)))
		return -1;
	len = sizeof(name);
	if (failed(s->out, STEP_GETPEERNAME,
		   getpeername(fd, (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) &&
	    (check_peer_label(s, fd, SERVER) ||
	     send_first(s, fd, NULL, 0)))
		return -1;
	if (send_rest(s, fd))
		return -1;
	len = sizeof(name);
	if (failed(s->out, STEP_GETSOCKNAME,
		   getsockname(fd, (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) &&
	    recv_msgs(s, fd, STEP_RECV_REPLY, NMSG, 1))
		return -1;
	if (failed(s->out, STEP_SHUTDOWN, shutdown(fd, SHUT_RDWR)))
		return -1;
	return 0;
}

/* socketpair(): one process, one label, both ends. */
static int unnamed(struct party *s)
{
	const struct scenario *sc = s->sc;
	struct sockaddr_un name;
	socklen_t len;
	int sv[2];

	if (confine_side(s, CLIENT))
		return -1;
	if (failed(s->out, STEP_CREATE, socketpair(AF_UNIX, sc->type, 0, sv)))
		return -1;
	if (sock_setup(s, sv[0], sc->type) || sock_setup(s, sv[1], sc->type))
		return -1;
	len = sizeof(name);
	if (failed(s->out, STEP_GETSOCKNAME,
		   getsockname(sv[0], (struct sockaddr *)&name, &len)))
		return -1;
	if (wrong(s->out, STEP_GETSOCKNAME, len == sizeof(sa_family_t), FAULT_ADDR))
		return -1;
	len = sizeof(name);
	if (failed(s->out, STEP_GETPEERNAME,
		   getpeername(sv[0], (struct sockaddr *)&name, &len)))
		return -1;
	if (connection_oriented(sc->type) &&
	    check_peer_label(s, sv[1], CLIENT))
		return -1;
	if (send_first(s, sv[0], NULL, 0) || send_rest(s, sv[0]) ||
	    recv_msgs(s, sv[1], STEP_RECV, 0, NMSG) || send_reply(s, sv[1]) ||
	    recv_msgs(s, sv[0], STEP_RECV_REPLY, NMSG, 1))
		return -1;
	if (failed(s->out, STEP_SHUTDOWN, shutdown(sv[0], SHUT_RDWR)))
		return -1;
	return 0;
}

/* Keeps the sockets open until the other side has stopped as well. */
static void await_peer_stop(struct party *s)
{
	struct pollfd pfd = { .fd = s->from_peer, .events = POLLIN };
	char c = 0;

	while (s->from_peer >= 0 && c != SIG_STOPPED &&
	       poll(&pfd, 1, EXIT_TIMEOUT_MS) == 1 &&
	       read(s->from_peer, &c, 1) == 1)
		;
}

/* The side's process: runs it, records how it ended, then exits. */
static void side_main(void *arg)
{
	struct party *s = arg;
	int ret;

	if (s->others[0] >= 0) {
		close(s->others[0]);
		close(s->others[1]);
	}
	if (s->side == SERVER)
		ret = server(s);
	else if (s->sc->kind == KIND_UNNAMED)
		ret = unnamed(s);
	else
		ret = client(s);
	if (!ret)
		s->out->step = STEP_DONE;
	signal_peer(s, SIG_STOPPED);
	await_peer_stop(s);
}

int scenario_run(const struct scenario *sc, struct outcome res[SIDE_COUNT])
{
	pid_t pid[SIDE_COUNT] = { 0, 0 };
	int stop[SIDE_COUNT][2] = { { -1, -1 }, { -1, -1 } };
	bool alone = sc->kind == KIND_UNNAMED;
	struct party party[SIDE_COUNT];
	struct shared *sh;
	int side, ret = 0;

	sh = shared_alloc(sizeof(*sh));
	if (!sh)
		return -errno;
	for (side = 0; side < SIDE_COUNT; side++) {
		sh->res[side] = (struct outcome){ .step = STEP_NOT_RUN };
		if (pipe2(stop[side], O_CLOEXEC)) {
			ret = -errno;
			goto out;
		}
	}
	for (side = 0; side < SIDE_COUNT; side++) {
		int other = !side;

		party[side] = (struct party){
			.sc = sc,
			.sh = sh,
			.out = &sh->res[side],
			.side = side,
			.to_peer = alone ? -1 : stop[side][1],
			.from_peer = alone ? -1 : stop[other][0],
			.others = { stop[side][0], stop[other][1] },
		};
	}
	if (!alone) {
		pid[SERVER] = spawn(side_main, &party[SERVER]);
		if (pid[SERVER] < 0) {
			ret = pid[SERVER];
			goto out;
		}
	}
	pid[CLIENT] = spawn(side_main, &party[CLIENT]);
	if (pid[CLIENT] < 0) {
		ret = pid[CLIENT];
		/* Without a client the server would wait for nothing. */
		if (pid[SERVER] > 0)
			kill(pid[SERVER], SIGKILL);
	}
	for (side = 0; side < SIDE_COUNT; side++) {
		close(stop[side][0]);
		close(stop[side][1]);
		stop[side][0] = -1;
		stop[side][1] = -1;
	}
	for (side = 0; side < SIDE_COUNT; side++)
		if (pid[side] > 0)
			reap(&sh->res[side], pid[side]);
	memcpy(res, sh->res, sizeof(sh->res));
out:
	for (side = 0; side < SIDE_COUNT; side++) {
		if (stop[side][0] >= 0)
			close(stop[side][0]);
		if (stop[side][1] >= 0)
			close(stop[side][1]);
	}
	shared_free(sh, sizeof(*sh));
	return ret;
}

/* The client's steps after its last send. */
static bool client_sent_all(enum step step)
{
	return step == STEP_GETSOCKNAME || step == STEP_RECV_REPLY ||
	       step == STEP_SHUTDOWN || step == STEP_DONE;
}

/* The server's steps before it signals that it is bound. */
static bool server_before_ready(enum step step)
{
	return step <= STEP_LISTEN || step == STEP_GETSOCKNAME;
}

struct outcome scenario_other_side(const struct scenario *sc, enum side who,
				   enum step step)
{
	const struct outcome done = { .step = STEP_DONE };
	struct outcome waits = { .fault = FAULT_PEER_STOPPED };
	bool conn = connection_oriented(sc->type);

	if (who == CLIENT) {
		/* The server waits for a connection, then three messages. */
		if (client_sent_all(step))
			return done;
		waits.step = conn && step <= STEP_CONNECT ? STEP_ACCEPT :
							    STEP_RECV;
		return waits;
	}
	if (server_before_ready(step)) {
		waits.step = STEP_WAIT_SERVER;
		return waits;
	}
	/* Sends are queued on the bound or accepted socket; then a reply. */
	if (!conn || step == STEP_SHUTDOWN || step == STEP_DONE)
		return done;
	waits.step = STEP_RECV_REPLY;
	return waits;
}
