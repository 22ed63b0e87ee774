// SPDX-License-Identifier: GPL-2.0
/*
 * af_unix_send_perf --senders: AF_UNIX datagram sends from N processes at
 * once, each pinned to its own CPU, for each N asked for.  Two patterns,
 * one KTAP result for each N:
 *
 *  - pairs: every sender has its own dgram and seqpacket socketpairs and
 *    runs the paired rounds af_unix_send_perf runs on one CPU (sendmmsg,
 *    send_workload.c), so the dgram/seqpacket ratio is the cost of the
 *    hook with the rest of the path as its control.
 *  - shared: the syslog pattern.  N senders, each with an unbound
 *    SOCK_DGRAM socket connect()ed to one receiver process bound to an
 *    abstract name, so the hook runs under the receiver's lock.  The
 *    receiver drains with recvmmsg() and checks that each sender's
 *    messages arrive whole and in order.  Sends block: when the receiver's
 *    queue is full (net.unix.max_dgram_qlen) a sender sleeps inside
 *    sendmmsg() and that wait is timed, because waiting on a shared
 *    receiver is part of what this pattern costs.  There is no seqpacket
 *    control: a SOCK_SEQPACKET listener gives each client its own socket.
 *
 * Per-message cost is the time spent in the send calls over the messages
 * sent; scaling is that cost at N over the cost at N=1 in the same run.
 *
 * The senders are pinned to distinct CPUs, the highest allowed first (CPU
 * 0 tends to take more interrupts), so that N of them really run at once
 * and no migration lands inside a timed batch; the receiver gets the
 * lowest allowed CPU when one is left.  Every child sets up, then waits on
 * a pipe barrier: no sender is set up while another is timed, and none is
 * timed alone.  Only the start is synchronised: a sender that finishes
 * early leaves the others a short tail with fewer competitors.
 *
 * This does not judge speed: there is no baseline, no verdict and no JSON
 * (--json, --baseline, --record and the verdict options are ignored, and
 * only the first --sizes value is used).  A result passes when every
 * message arrived whole and in order; the ns/msg and scaling figures are
 * for a human to read.  The cost this is meant to show, such as contention
 * on the reference count of the unconfined label all these senders share,
 * needs a many-core machine with AppArmor enabled; without AppArmor there
 * is no hook and the figures are the rest of the send path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "common.h"
#include "perf_env.h"
#include "send_scale.h"
#include "send_workload.h"

#define TAG_SHIFT	48	/* a message's tag: sender, then sequence */
#define SLOW_FACTOR	10	/* time limit multiplier, KSFT_MACHINE_SLOW */

enum { P_PAIRS, P_SHARED, NR_P };
static const char * const p_names[NR_P] = { "pairs", "shared" };

/* One child's result, in memory shared with the parent. */
struct slot {
	int status;		/* KSFT_PASS when it ran to the end */
	int cpu;		/* -1: not pinned */
	pid_t pid;		/* 0 once reaped */
	char reason[200];
	double ns[NR_S];	/* ns/msg, mean over the measured rounds */
	double ratio;		/* mean of the rounds' dgram/seqpacket ratios */
	struct wl_count cnt;
};

/* One (pattern, N) run. */
struct job {
	const struct perf_run *run;
	int pattern;
	unsigned int n;		/* senders; slots[n] is the receiver */
	unsigned int size;
	const int *cpus;	/* allowed CPUs, highest first */
	unsigned int nr_cpus;
	double limit_s;		/* then the children are killed */
	struct sockaddr_un addr;
	socklen_t alen;
	int ready[2];		/* children close theirs once set up */
	int go[2];		/* the parent closes it to start them */
	struct slot *slots;
	char why[320];		/* the first failure */
};

/* The N=1 result of a pattern, to scale against. */
struct ref {
	bool have;
	double ns;
	double ratio;
};

static void failed(struct slot *s, const char *what, int err)
{
	snprintf(s->reason, sizeof(s->reason), "%s: %s", what, strerror(err));
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The child's side of the barrier: set up, then wait for the start. */
static void barrier(struct job *j)
{
	char b;

	close_fd(&j->ready[1]);
	while (read(j->go[0], &b, 1) < 0 && errno == EINTR)
		;
	close_fd(&j->go[0]);
}

static void pairs_child(struct job *j, struct slot *s)
{
	struct sock_ctx c[NR_S] = { { .sv = { -1, -1 } }, { .sv = { -1, -1 } } };
	const struct perf_run *run = j->run;
	unsigned int round, k, st;
	double ns[NR_S];
	bool skip;

	for (st = 0; st < NR_S; st++)
		if (wl_init(&c[st], s_types[st], WL_SENDMMSG, j->size, run->batch,
			    s->reason, sizeof(s->reason), &skip))
			goto out;
	barrier(j);
	for (round = 0; round < run->warmup + run->rounds; round++) {
		for (k = 0; k < NR_S; k++) {	/* order swapped every round */
			st = (round + k) % NR_S;
			if (wl_round(&c[st], run->msgs, &s->cnt, &ns[st],
				     s->reason, sizeof(s->reason)))
				goto out;
		}
		if (round < run->warmup)
			continue;
		if (ns[S_SEQPACKET] <= 0) {
			snprintf(s->reason, sizeof(s->reason), "seqpacket round took no time");
			goto out;
		}
		s->ns[S_DGRAM] += ns[S_DGRAM] / run->rounds;
		s->ns[S_SEQPACKET] += ns[S_SEQPACKET] / run->rounds;
		s->ratio += ns[S_DGRAM] / ns[S_SEQPACKET] / run->rounds;
	}
	s->status = KSFT_PASS;
out:
	for (st = 0; st < NR_S; st++)
		wl_free(&c[st]);
}

/* @batch messages of @size bytes, each with a buffer of its own. */
static struct mmsghdr *msgs_new(unsigned int batch, unsigned int size)
{
	struct mmsghdr *m = calloc(batch, sizeof(*m) + sizeof(struct iovec) + size);
	struct iovec *iov;
	unsigned int i;

	if (!m)
		return NULL;
	iov = (struct iovec *)(m + batch);
	for (i = 0; i < batch; i++) {
		iov[i].iov_base = (char *)(iov + batch) + (size_t)i * size;
		iov[i].iov_len = size;
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	return m;
}

/* One round of a shared sender; only the sendmmsg() calls are timed. */
static int shared_round(struct job *j, int fd, struct mmsghdr *m,
			unsigned long long *tag, double *ns, struct slot *s)
{
	unsigned int left = j->run->msgs, n, i, sent;
	double total = 0, t0;
	int r = 0, err;

	for (; left; left -= n) {
		n = left < j->run->batch ? left : j->run->batch;
		for (i = 0; i < n; i++)
			wl_fill_msg(m[i].msg_hdr.msg_iov->iov_base, j->size, (*tag)++);
		for (sent = 0; sent < n; sent += r) {
			t0 = perf_now_ns();
			r = sendmmsg(fd, m + sent, n - sent, 0);
			err = errno;
			total += perf_now_ns() - t0;
			if (r <= 0) {
				snprintf(s->reason, sizeof(s->reason),
					 "sendmmsg sent %d of %u messages: %s", r,
					 n - sent, r ? strerror(err) : "nothing sent");
				return -1;
			}
		}
	}
	*ns = total / j->run->msgs;
	return 0;
}

static void shared_sender(struct job *j, unsigned int idx, struct slot *s)
{
	struct mmsghdr *m = msgs_new(j->run->batch, j->size);
	unsigned long long tag = (unsigned long long)idx << TAG_SHIFT;
	unsigned int round;
	int fd = -1;
	double ns;

	if (!m) {
		failed(s, "calloc", ENOMEM);
		return;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&j->addr, j->alen)) {
		failed(s, fd < 0 ? "socket" : "connect", errno);
		goto out;
	}
	barrier(j);
	for (round = 0; round < j->run->warmup + j->run->rounds; round++) {
		if (shared_round(j, fd, m, &tag, &ns, s))
			goto out;
		if (round >= j->run->warmup)
			s->ns[S_DGRAM] += ns / j->run->rounds;
	}
	s->status = KSFT_PASS;
out:
	close_fd(&fd);
	free(m);
}

/* Whole, from one of the senders, and the next in that sender's order. */
static void check_msg(const struct job *j, const struct mmsghdr *m,
		      unsigned long long *next, struct wl_count *cnt)
{
	unsigned long long tag, idx, seq;

	if ((m->msg_hdr.msg_flags & MSG_TRUNC) ||
	    !wl_check_msg(m->msg_hdr.msg_iov->iov_base, m->msg_len, j->size, &tag)) {
		cnt->failures++;
		return;
	}
	idx = tag >> TAG_SHIFT;
	seq = tag & ((1ULL << TAG_SHIFT) - 1);
	if (idx < j->n && seq == next[idx])
		cnt->validated++;
	else
		cnt->failures++;
	if (idx < j->n)
		next[idx] = seq + 1;
}

/* Drains until every message the senders send has arrived. */
static void receiver(struct job *j, int fd, struct slot *s)
{
	unsigned long long want = (unsigned long long)j->n * j->run->msgs *
		(j->run->warmup + j->run->rounds);
	struct mmsghdr *m = msgs_new(j->run->batch, j->size);
	unsigned long long *next = calloc(j->n, sizeof(*next));
	int r, i;

	if (!m || !next) {
		failed(s, "calloc", ENOMEM);
		goto out;
	}
	barrier(j);
	while (s->cnt.validated + s->cnt.failures < want) {
		r = recvmmsg(fd, m, j->run->batch, MSG_WAITFORONE, NULL);
		if (r < 0 && errno != EINTR) {
			failed(s, "recvmmsg", errno);
			goto out;
		}
		for (i = 0; i < r; i++)
			check_msg(j, &m[i], next, &s->cnt);
	}
	s->status = KSFT_PASS;
out:
	free(next);
	free(m);
}

static pid_t spawn(struct job *j, unsigned int idx, int rfd)
{
	struct slot *s = &j->slots[idx];
	cpu_set_t set;
	pid_t pid;

	s->status = KSFT_FAIL;
	snprintf(s->reason, sizeof(s->reason), "gave no result");
	s->cpu = idx < j->n ? j->cpus[idx] :
		j->n < j->nr_cpus ? j->cpus[j->nr_cpus - 1] : -1;
	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	close_fd(&j->ready[0]);
	close_fd(&j->go[1]);
	CPU_ZERO(&set);
	if (s->cpu >= 0)
		CPU_SET(s->cpu, &set);
	if (s->cpu >= 0 && sched_setaffinity(0, sizeof(set), &set))
		failed(s, "sched_setaffinity", errno);
	else if (j->pattern == P_PAIRS)
		pairs_child(j, s);
	else if (idx == j->n)
		receiver(j, rfd, s);
	else
		shared_sender(j, idx, s);
	_exit(s->status == KSFT_PASS ? 0 : 1);
}

/* Records the first failure, naming the child. */
static void set_why(struct job *j, unsigned int idx, const char *what)
{
	const struct slot *s = &j->slots[idx];
	char name[24] = "receiver";

	if (idx < j->n)
		snprintf(name, sizeof(name), "sender %u", idx);
	if (!j->why[0])
		snprintf(j->why, sizeof(j->why), "%s (CPU %d, pid %d): %s", name,
			 s->cpu, s->pid, what);
}

/* At the time limit: which children are still running. */
static void name_late(struct job *j, unsigned int nr)
{
	size_t len = sizeof(j->why), at;
	unsigned int i;

	snprintf(j->why, len, "still running after %.0f s, killed:", j->limit_s);
	for (i = 0; i < nr; i++) {
		at = strlen(j->why);
		if (j->slots[i].pid && i == j->n)
			snprintf(j->why + at, len - at, " receiver");
		else if (j->slots[i].pid)
			snprintf(j->why + at, len - at, " sender %u", i);
	}
}

/*
 * Waits for @nr children, the receiver first: the first failure, or the
 * time limit, kills them all.  SIGCHLD is blocked and waited for, not
 * polled for: a parent waking up often slows the sender on its CPU.
 */
static void reap(struct job *j, unsigned int nr, double t0,
		 const sigset_t *chld)
{
	const struct timespec tick = { 1, 0 };
	unsigned int i, left = nr;
	struct slot *s;
	char what[240];
	pid_t r;
	int st;

	while (left) {
		for (i = 0; i < nr; i++) {
			s = &j->slots[(i + j->n) % nr];
			if (!s->pid)
				continue;
			if (!j->why[0] && perf_now_ns() - t0 > j->limit_s * 1e9)
				name_late(j, nr);
			if (j->why[0])
				kill(s->pid, SIGKILL);
			r = waitpid(s->pid, &st, j->why[0] ? 0 : WNOHANG);
			if (!r || (r < 0 && errno == EINTR))
				continue;
			if (r < 0)
				snprintf(what, sizeof(what), "waitpid: %s", strerror(errno));
			else if (WIFSIGNALED(st))
				snprintf(what, sizeof(what), "killed by signal %d (%s)",
					 WTERMSIG(st), strsignal(WTERMSIG(st)));
			else if (WEXITSTATUS(st) > 1)
				snprintf(what, sizeof(what), "exit status %d",
					 WEXITSTATUS(st));
			else
				snprintf(what, sizeof(what), "%s", s->reason);
			if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				set_why(j, s - j->slots, what);
			s->pid = 0;
			left--;
		}
		if (left)
			sigtimedwait(chld, NULL, &tick);
	}
}

/* The shared receiver's socket, bound to an abstract name of its own. */
static int bind_receiver(struct job *j)
{
	unsigned int rnd;
	int fd;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (unsigned int)(unsigned long long)perf_now_ns();
	memset(&j->addr, 0, sizeof(j->addr));
	j->addr.sun_family = AF_UNIX;
	snprintf(j->addr.sun_path + 1, sizeof(j->addr.sun_path) - 1,
		 "af_unix_send_perf.%d.%08x", getpid(), rnd);
	j->alen = offsetof(struct sockaddr_un, sun_path) + 1 +
		strlen(j->addr.sun_path + 1);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&j->addr, j->alen)) {
		snprintf(j->why, sizeof(j->why), "%s: %s",
			 fd < 0 ? "socket" : "bind", strerror(errno));
		close_fd(&fd);
	}
	return fd;
}

/* Until every child has closed its end of the ready pipe, or the limit. */
static void wait_ready(struct job *j, double t0)
{
	struct pollfd p = { .fd = j->ready[0], .events = POLLIN };
	double left_ms;
	char b;

	do {
		left_ms = j->limit_s * 1e3 - (perf_now_ns() - t0) / 1e6;
	} while (left_ms > 0 && poll(&p, 1, (int)left_ms) > 0 &&
		 read(j->ready[0], &b, 1) > 0);
}

/* Forks the children (the receiver first), starts them at once, reaps. */
static void run_job(struct job *j)
{
	unsigned int nr = j->n + (j->pattern == P_SHARED), i, idx;
	double t0 = perf_now_ns();
	sigset_t chld, old;
	int rfd = -1;
	pid_t pid;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	j->why[0] = '\0';
	memset(j->ready, -1, sizeof(j->ready));
	memset(j->go, -1, sizeof(j->go));
	if (pipe2(j->ready, O_CLOEXEC) || pipe2(j->go, O_CLOEXEC))
		snprintf(j->why, sizeof(j->why), "pipe2: %s", strerror(errno));
	else if (j->pattern == P_SHARED)
		rfd = bind_receiver(j);
	for (i = 0; i < nr && !j->why[0]; i++) {
		idx = (i + j->n) % nr;
		pid = spawn(j, idx, rfd);
		if (pid < 0)
			snprintf(j->why, sizeof(j->why), "fork: %s", strerror(errno));
		else
			j->slots[idx].pid = pid;
		if (idx == j->n)
			close_fd(&rfd);	/* the receiver's alone */
	}
	close_fd(&rfd);
	close_fd(&j->ready[1]);
	if (!j->why[0])
		wait_ready(j, t0);
	close_fd(&j->go[1]);
	reap(j, nr, t0, &chld);
	close_fd(&j->ready[0]);
	close_fd(&j->go[0]);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void figures(const struct job *j, const double *ns, double ratio,
		    char *buf, size_t len)
{
	if (j->pattern == P_SHARED)
		snprintf(buf, len, "dgram %.1f ns/msg", ns[S_DGRAM]);
	else
		snprintf(buf, len, "dgram %.1f seqpacket %.1f ns/msg, ratio %.3f",
			 ns[S_DGRAM], ns[S_SEQPACKET], ratio);
}

/* Means over the senders; scaling against the pattern's N=1 result. */
static void report(const struct job *j, const char *tag, struct ref *ref)
{
	const struct slot *s, *rx = &j->slots[j->n];
	struct wl_count cnt = { 0 };
	double ns[NR_S] = { 0 }, ratio = 0;
	char fig[96], scale[96];
	unsigned int i;

	for (i = 0; i < j->n && !j->why[0]; i++) {
		s = &j->slots[i];
		figures(j, s->ns, s->ratio, fig, sizeof(fig));
		ksft_print_msg("%s sender %u CPU %d: %s\n", tag, i, s->cpu, fig);
		ns[S_DGRAM] += s->ns[S_DGRAM] / j->n;
		ns[S_SEQPACKET] += s->ns[S_SEQPACKET] / j->n;
		ratio += s->ratio / j->n;
		cnt.validated += s->cnt.validated;
		cnt.failures += s->cnt.failures;
	}
	if (j->why[0]) {
		ksft_test_result_fail("%s: %s\n", tag, j->why);
		return;
	}
	if (j->pattern == P_SHARED) {
		cnt = rx->cnt;
		ksft_print_msg("%s receiver CPU %d%s: %llu messages in order, %llu not\n",
			       tag, rx->cpu, rx->cpu < 0 ? " (unpinned, on the senders' CPUs)" : "",
			       cnt.validated, cnt.failures);
	}
	if (cnt.failures) {
		ksft_test_result_fail("%s: %llu validation failures (%llu messages ok)\n",
				      tag, cnt.failures, cnt.validated);
		return;
	}
	if (j->n == 1)
		*ref = (struct ref){ true, ns[S_DGRAM], ratio };
	figures(j, ns, ratio, fig, sizeof(fig));
	if (!ref->have)
		snprintf(scale, sizeof(scale), "no N=1 result to scale against");
	else
		snprintf(scale, sizeof(scale), "x%.2f of N=1 (dgram), x%.2f (ratio)",
			 ns[S_DGRAM] / ref->ns, ratio / ref->ratio);
	if (j->pattern == P_SHARED)
		scale[strcspn(scale, ",")] = '\0';
	ksft_test_result_pass("%s: %s, %s, %llu messages validated\n", tag, fig,
			      scale, cnt.validated);
}

static void run_one(struct job *j, bool slow, struct ref *ref)
{
	double msgs = (double)(j->run->warmup + j->run->rounds) * j->run->msgs;
	size_t len = (j->n + 1) * sizeof(*j->slots);
	char tag[64];

	snprintf(tag, sizeof(tag), "scale %s N=%u %uB", p_names[j->pattern],
		 j->n, j->size);
	if (j->n > j->nr_cpus) {
		ksft_test_result_skip("%s: needs %u CPUs, this task may run on %u\n",
				      tag, j->n, j->nr_cpus);
		return;
	}
	/* generous: 100 us for each message through the slowest point */
	msgs *= j->pattern == P_PAIRS ? NR_S : j->n;
	j->limit_s = (60 + msgs / 1e4) * (slow ? SLOW_FACTOR : 1);
	j->slots = mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j->slots == MAP_FAILED) {
		ksft_test_result_fail("%s: mmap: %s\n", tag, strerror(errno));
		return;
	}
	run_job(j);
	report(j, tag, ref);
	munmap(j->slots, len);
}

int scale_main(const struct perf_env *env, const struct perf_run *run,
	       const unsigned int *senders, size_t nr, unsigned int size)
{
	struct job j = { .run = run, .size = size };
	struct ref ref[NR_P] = { { false } };
	int cpus[CPU_SETSIZE], cpu;
	char qlen[32];
	cpu_set_t set;
	size_t i;

	ksft_set_plan(nr * NR_P);
	perf_env_print(env);
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set) && j.nr_cpus < env->nr_cpus)
			cpus[j.nr_cpus++] = cpu;
	j.cpus = cpus;
	if (aa_read_line("/proc/sys/net/unix/max_dgram_qlen", qlen, sizeof(qlen)))
		snprintf(qlen, sizeof(qlen), "unreadable");
	ksft_print_msg("scale: %uB, batch %u, %u msgs/round, %u warm-up + %u rounds/sender\n",
		       size, run->batch, run->msgs, run->warmup, run->rounds);
	ksft_print_msg("scale: %u CPUs allowed, senders pinned highest first\n",
		       j.nr_cpus);
	ksft_print_msg("scale: net.unix.max_dgram_qlen %s, a full queue blocks senders\n",
		       qlen);
	ksft_print_msg("scale: no baseline, no verdict, no JSON: figures for a human\n");
	for (j.pattern = 0; j.pattern < NR_P; j.pattern++)
		for (i = 0; i < nr; i++) {
			j.n = senders[i];
			run_one(&j, env->machine_slow, &ref[j.pattern]);
		}
	ksft_print_cnts();
	if (ksft_get_fail_cnt() || ksft_test_num() != nr * NR_P)
		return KSFT_FAIL;
	return ksft_get_pass_cnt() ? KSFT_PASS : KSFT_SKIP;
}
