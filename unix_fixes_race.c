// SPDX-License-Identifier: GPL-2.0
/*
 * unix_fixes_test: b1aea2c19607, the peer's path used while the peer
 * closes.  Included by unix_fixes_test.c, after the reproducers' helpers.
 *
 * aa_unix_file_perm() revalidates a socket that is not on a path, but
 * whose peer is, against the peer's path (unix_fs_perm()).  Before the
 * fix it copied that path with neither the peer's lock nor a reference:
 * the peer's unix_release_sock() may clear it and put the dentry's last
 * reference (its file unlinked) while the copy is in use.  d_inode is
 * then NULL, and once an RCU grace period has passed, the dentry is
 * freed: an oops, or a use-after-free that KASAN reports.
 *
 * The window is microseconds of the reader's revalidation, at the
 * receipt of the socket with SCM_RIGHTS; a grace period takes
 * milliseconds.  So the reader must lose its CPU inside the window, and
 * not get it back before the dentry is freed.  Both processes share one
 * CPU.  The closer, real-time, sends the socket and sleeps until a tick
 * boundary, giving the reader a lead it adjusts from round to round
 * (shorter when the reader was done with recvmsg(), longer when it had
 * not begun), so that it wakes near the end of recvmsg(), where the
 * revalidation is.  Awake, it preempts the reader wherever it is (a fair
 * task would only set the lazy resched flag) and closes the peer.  When
 * the reader was in recvmsg(), the closer spins for several grace
 * periods as a fair task: RCU's kthreads share the CPU with it, but the
 * reader, SCHED_IDLE, waits.  A fixed kernel holds a reference across
 * the window: the dentry outlives it.
 */

#include <sched.h>
#include <time.h>

/*
 * A time limit, within reap()'s: a slow kernel runs fewer rounds.  The
 * debug kernel without the fix, under TCG, reports about once in a
 * second and a quarter (4 in 5 s, twice).
 */
#define RACE_ROUNDS 400
#define RACE_TIME_MS 8000
/* The reader's lead is adjusted by this much a round, up to 4 ticks. */
#define RACE_STEP_NS 20000
#define RACE_LEAD_TICKS 4
/* More spins than a tick takes anywhere: a clock that stands still. */
#define RACE_SPIN_MAX 10000000
/* Grace periods at HZ=250 under TCG (20 ms was too short, 40 enough). */
#define RACE_HOLD_MS 40

enum race_proc {
	CLOSER,		/* binds the peer, passes a socket connected to it */
	READER,		/* receives that socket: revalidates it */
	RACE_PROCS,
};

static const char *const race_name[] = {
	[CLOSER] = "closer",
	[READER] = "reader",
};

/* Where the reader is, for the closer to see when it wakes. */
enum race_phase {
	BEFORE,		/* waiting for the socket */
	INSIDE,		/* in recvmsg() */
	AFTER,		/* done with it */
};

/* In shared memory. */
struct race {
	const char *profile[RACE_PROCS];
	char path[PATH_MAX];		/* the peer's, unlinked each round */
	int cpu;			/* the one both run on */
	int chan[2];			/* closer -> reader, SCM_RIGHTS */
	int done[2];			/* reader -> closer: a byte a round */
	enum race_phase phase;
	int rounds, inside;		/* rounds run, reader found inside */
	long long spt;			/* race_spin()s the last tick took */
	long long ms;			/* how long they took */
	struct outcome out[RACE_PROCS];
};

static long long race_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Pins the caller to the race's CPU, with @policy. */
static int race_sched(struct race *r, struct outcome *out, int policy)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	at(out, STEP_CONFINE);
	if (failed(out, STEP_CONFINE, sched_setaffinity(0, sizeof(set), &set)))
		return -1;
	return failed(out, STEP_CONFINE, sched_setscheduler(0, policy, &sp)) ?
	       -1 : 0;
}

static void race_reader(void *arg)
{
	struct race *r = arg;
	struct outcome *out = &r->out[READER];
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;
	int fd;

	close(r->chan[0]);
	close(r->done[0]);
	if (race_sched(r, out, SCHED_IDLE) ||
	    confine(out, STEP_CONFINE_USER, r->profile[READER], false, false))
		return;
	for (;;) {
		at(out, STEP_RECV_FD);
		if (!readable(out, STEP_RECV_FD, r->chan[1], -1))
			return;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		__atomic_store_n(&r->phase, INSIDE, __ATOMIC_RELEASE);
		/* The receipt revalidates the socket: the race is here. */
		n = recvmsg(r->chan[1], &msg, MSG_CMSG_CLOEXEC);
		__atomic_store_n(&r->phase, AFTER, __ATOMIC_RELEASE);
		if (failed(out, STEP_RECV_FD, n))
			return;
		/* The closer's end of the channel, closed after the last round. */
		if (!n)
			break;
		cm = CMSG_FIRSTHDR(&msg);
		if (wrong(out, STEP_RECV_FD, cm && cm->cmsg_type == SCM_RIGHTS,
			  FAULT_NOT_INSTALLED))
			return;
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		close(fd);
		if (failed(out, STEP_REPLY, write(r->done[1], "d", 1)))
			return;
	}
	at(out, STEP_DONE);
}

/*
 * Spins until the coarse clock moves (a tick) or @max spins have passed;
 * returns how many it spun.  Within a tick, time is counted in these
 * spins: when the guest could not calibrate its TSC, the clock is the
 * tick itself (clocksource refined-jiffies), and CLOCK_MONOTONIC cannot
 * place the closer's sleep within one.
 */
static long long race_spin(long long max)
{
	long long coarse = race_now_ns(CLOCK_MONOTONIC_COARSE), n = 0;

	while (n < max && race_now_ns(CLOCK_MONOTONIC_COARSE) == coarse)
		n++;
	return n;
}

/*
 * Goes to sleep @lead_ns before a tick and sleeps until it: a kernel
 * without high resolution timers wakes a sleeper only at a tick.  The
 * tick before is spun whole, for the spins a tick takes now (*@spt): a
 * busy host slows the guest from one moment to the next.
 */
static void race_sleep(long long lead_ns, long long tick_ns, long long *spt)
{
	long long lead, coarse, wake;
	struct timespec ts;

	race_spin(RACE_SPIN_MAX);
	*spt = race_spin(RACE_SPIN_MAX) ?: 1;
	coarse = race_now_ns(CLOCK_MONOTONIC_COARSE);
	lead = lead_ns * *spt / tick_ns;
	race_spin(*spt - lead % *spt);
	/* A quarter tick before the tick: timers expire at the tick. */
	wake = coarse + (1 + lead / *spt) * tick_ns - tick_ns / 4;
	ts = (struct timespec){ wake / 1000000000LL, wake % 1000000000LL };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* One round: the socket sent, the peer closed; returns where the reader was. */
static int race_round(struct race *r, long long lead_ns, long long tick_ns)
{
	struct outcome *out = &r->out[CLOSER];
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->path, false);
	struct sched_param fair = { };
	enum race_phase phase;
	long long t;
	int peer, fd;
	char c;

	peer = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (failed(out, STEP_CREATE, peer) ||
	    failed(out, STEP_BIND, bind(peer, (struct sockaddr *)&addr, len)))
		return -1;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (failed(out, STEP_CREATE, fd) ||
	    failed(out, STEP_CONNECT,
		   connect(fd, (struct sockaddr *)&addr, len)) ||
	    /* The peer's close puts the dentry's last reference. */
	    failed(out, STEP_SHUTDOWN, unlink(r->path)) ||
	    race_sched(r, out, SCHED_FIFO))
		return -1;
	__atomic_store_n(&r->phase, BEFORE, __ATOMIC_RELEASE);
	if (send_fd(out, r->chan[0], fd))
		return -1;
	close(fd);
	race_sleep(lead_ns, tick_ns, &r->spt);
	phase = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
	close(peer);
	if (failed(out, STEP_CONFINE, sched_setscheduler(0, SCHED_OTHER,
							 &fair)))
		return -1;
	if (phase == INSIDE) {
		r->inside++;
		t = race_now_ns(CLOCK_MONOTONIC) + RACE_HOLD_MS * 1000000LL;
		while (race_now_ns(CLOCK_MONOTONIC) < t)
			;
	}
	at(out, STEP_RECV_REPLY);
	if (!readable(out, STEP_RECV_REPLY, r->done[0], -1) ||
	    failed(out, STEP_RECV_REPLY, read(r->done[0], &c, 1)))
		return -1;
	return phase;
}

static void race_closer(void *arg)
{
	struct race *r = arg;
	struct outcome *out = &r->out[CLOSER];
	long long start, tick_ns, lead_ns = 0;
	struct timespec res;
	int phase;

	close(r->chan[1]);
	close(r->done[1]);
	/* A reader the kernel killed is its FAIL, not the closer's. */
	signal(SIGPIPE, SIG_IGN);
	if (race_sched(r, out, SCHED_OTHER) ||
	    confine(out, STEP_CONFINE, r->profile[CLOSER], false, false) ||
	    failed(out, STEP_CONFINE, clock_getres(CLOCK_MONOTONIC_COARSE,
						   &res)))
		return;
	tick_ns = res.tv_sec * 1000000000LL + res.tv_nsec;
	if (wrong(out, STEP_CONFINE, tick_ns > 0, FAULT_TEST))
		return;
	start = race_now_ns(CLOCK_MONOTONIC);
	while (r->rounds < RACE_ROUNDS &&
	       race_now_ns(CLOCK_MONOTONIC) < start + RACE_TIME_MS * 1000000LL) {
		phase = race_round(r, lead_ns, tick_ns);
		if (phase < 0)
			return;
		r->rounds++;
		r->ms = (race_now_ns(CLOCK_MONOTONIC) - start) / 1000000;
		/* Toward the end of recvmsg(): the revalidation is late in it. */
		if (phase == AFTER)
			lead_ns -= RACE_STEP_NS;
		else
			lead_ns += phase == BEFORE ? RACE_STEP_NS :
				   RACE_STEP_NS / 2;
		if (lead_ns < 0 || lead_ns > RACE_LEAD_TICKS * tick_ns)
			lead_ns = 0;
	}
	at(out, STEP_DONE);
}

static void check_peer_closed(struct ctx *c)
{
	static void (*const main_of[RACE_PROCS])(void *) = {
		[CLOSER] = race_closer,
		[READER] = race_reader,
	};
	/* The closer switches between SCHED_FIFO and SCHED_OTHER. */
	static const char *const rule[RACE_PROCS] = {
		[CLOSER] = "  unix,\n  file,\n  capability sys_nice,\n",
		[READER] = "  unix,\n  file,\n",
	};
	struct __test_metadata *_metadata = c->metadata;
	struct prof p[RACE_PROCS] = { { .name = "race_closer" },
				      { .name = "race_reader" } };
	const char *label[RACE_PROCS];
	pid_t pid[RACE_PROCS] = { };
	char name[NAME_MAX_LEN], g[128];
	struct race *r;
	cpu_set_t set;
	int i;

	for (i = 0; i < RACE_PROCS; i++)
		label[i] = fix_profile(c, &p[i], rule[i]);
	if (c->collect)
		return;
	c->subs++;
	r = shared_alloc(sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (r->cpu = 0; !CPU_ISSET(r->cpu, &set); r->cpu++)
		;
	for (i = 0; i < RACE_PROCS; i++)
		r->profile[i] = label[i];
	run_name(name, sizeof(name), "race");
	snprintf(r->path, sizeof(r->path), "%s/%s", aa_policy_dir(policy),
		 name);
	/* A stream: the reader sees the closer's end closed. */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				r->chan));
	ASSERT_EQ(0, pipe2(r->done, O_CLOEXEC));
	for (i = 0; i < RACE_PROCS; i++) {
		r->out[i] = (struct outcome){ .step = STEP_NOT_RUN };
		pid[i] = spawn(main_of[i], r);
	}
	close(r->chan[0]);
	close(r->chan[1]);
	close(r->done[0]);
	close(r->done[1]);
	for (i = 0; i < RACE_PROCS; i++) {
		if (pid[i] > 0)
			reap(&r->out[i], pid[i]);
		EXPECT_TRUE(r->out[i].step == STEP_DONE && !r->out[i].err &&
			    !r->out[i].fault) {
			TH_LOG("%s (%s), after %d rounds: %s%s", race_name[i],
			       FIX_ALLOWED, r->rounds,
			       outcome_str(&r->out[i], g, sizeof(g)),
			       r->out[i].fault == FAULT_CRASHED ?
			       ": the kernel lacks b1aea2c19607" : "");
		}
	}
	TH_LOG("%d rounds in %lld ms, the reader preempted in recvmsg() in %d (%lld spins a tick)",
	       r->rounds, r->ms, r->inside, r->spt);
	unlink(r->path);
	shared_free(r, sizeof(*r));
}
