// SPDX-License-Identifier: GPL-2.0
/*
 * The timed sends of af_unix_send_perf and what they run on.  Only the
 * send calls are timed, a batch at a time; filling, draining and checking
 * happen between batches, and draining after each keeps the receive queue
 * short, so that no send ever waits for buffer space.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "send_workload.h"

const char * const wl_names[NR_WL] = { "sendmmsg", "io_uring", "send" };
const char * const s_names[NR_S] = { "dgram", "seqpacket" };
const int s_types[NR_S] = { SOCK_DGRAM, SOCK_SEQPACKET };

void wl_free(struct sock_ctx *c)
{
#ifdef HAVE_LIBURING
	if (c->have_ring)
		io_uring_queue_exit(&c->ring);
#endif
	for (int i = 0; i < 2; i++)
		if (c->sv[i] >= 0)
			close(c->sv[i]);
	free(c->buf);
	*c = (struct sock_ctx){ .sv = { -1, -1 } };
}

static void read_or(const char *path, char *buf, size_t len, const char *dflt)
{
	if (aa_read_line(path, buf, len) || !buf[0])
		snprintf(buf, len, "%s", dflt);
}

static __u8 pattern(__u64 seq, unsigned int i)
{
	return (__u8)(seq * 131 + i);
}

static void fill_batch(struct sock_ctx *c, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		__u8 *p = c->iov[i].iov_base;
		__u64 seq = c->seq + i;

		memcpy(p, &seq, sizeof(seq));
		for (j = sizeof(seq); j < c->size; j++)
			p[j] = pattern(seq, j);
	}
}

/* The timed part.  MSG_DONTWAIT: a full send buffer fails, never hangs. */
static int send_batch(struct sock_ctx *c, unsigned int n)
{
	unsigned int i;

	switch (c->workload) {
	case WL_SENDMMSG:
		return sendmmsg(c->sv[0], c->msg, n, MSG_DONTWAIT);
	case WL_SEND:
		for (i = 0; i < n; i++)
			if (send(c->sv[0], c->iov[i].iov_base, c->size,
				 MSG_DONTWAIT) != (ssize_t)c->size)
				return i ? (int)i : -1;
		return i;
#ifdef HAVE_LIBURING
	case WL_IOURING:
		return io_uring_submit_and_wait(&c->ring, n);
#endif
	}
	errno = EINVAL;
	return -1;
}

/*
 * io_uring: the sends are queued before the timed submission, and each
 * reports its result in a completion; returns the sends that failed.
 */
static unsigned int ring_batch(struct sock_ctx *c, unsigned int n, bool reap)
{
	unsigned int bad = 0;
#ifdef HAVE_LIBURING
	struct io_uring_cqe *cqe;
	unsigned int i;

	for (i = 0; c->workload == WL_IOURING && i < n; i++) {
		if (!reap) {
			io_uring_prep_send(io_uring_get_sqe(&c->ring), c->sv[0],
					   c->iov[i].iov_base, c->size,
					   MSG_DONTWAIT);
			continue;
		}
		if (io_uring_wait_cqe(&c->ring, &cqe))
			return bad + n - i;
		bad += cqe->res != (int)c->size;
		io_uring_cqe_seen(&c->ring, cqe);
	}
#else
	(void)c, (void)n, (void)reap;
#endif
	return bad;
}

static bool msg_ok(struct sock_ctx *c, unsigned int i, __u64 seq)
{
	const __u8 *p = c->iov[i].iov_base;
	__u64 got;
	unsigned int j;

	if (c->msg[i].msg_len != c->size ||
	    (c->msg[i].msg_hdr.msg_flags & MSG_TRUNC))
		return false;
	memcpy(&got, p, sizeof(got));
	if (got != seq)
		return false;
	for (j = sizeof(got); j < c->size; j++)
		if (p[j] != pattern(seq, j))
			return false;
	return true;
}

static void drain_batch(struct sock_ctx *c, unsigned int n,
			struct wl_count *cnt)
{
	unsigned int got = 0, i;
	int r;

	/* what was sent is wiped, so that only what arrives can pass */
	memset(c->buf, 0, (size_t)n * c->size);
	while (got < n) {
		for (i = got; i < n; i++)
			c->msg[i].msg_hdr.msg_flags = 0;
		r = recvmmsg(c->sv[1], c->msg + got, n - got, MSG_DONTWAIT, NULL);
		if (r <= 0)
			break;
		for (i = got; i < got + (unsigned int)r; i++) {
			if (msg_ok(c, i, c->seq + i))
				cnt->validated++;
			else
				cnt->failures++;
		}
		got += r;
	}
	cnt->failures += n - got;
	c->seq += n;
}

/*
 * What a message costs the send buffer depends on the kernel (truesize,
 * page rounding), so whole batches are sent, untimed, growing the buffer
 * until one fits; they are received and checked like any other.
 */
static int fit_batch(struct sock_ctx *c, char *reason, size_t rlen)
{
	struct wl_count cnt = { 0 };
	int ask = WL_BATCH * (c->size + 1024), r, err = 0, have;
	socklen_t len = sizeof(have);
	char wmem[32];

	for (; ask <= (1 << 29); ask *= 2) {
		getsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUF, &have, &len);
		if (have < ask && setsockopt(c->sv[0], SOL_SOCKET,
					     SO_SNDBUFFORCE, &ask, sizeof(ask)))
			setsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUF, &ask,
				   sizeof(ask));
		fill_batch(c, WL_BATCH);
		r = sendmmsg(c->sv[0], c->msg, WL_BATCH, MSG_DONTWAIT);
		err = r < 0 ? errno : 0;
		drain_batch(c, r > 0 ? r : 0, &cnt);
		if (cnt.failures) {
			snprintf(reason, rlen, "probe batch arrived damaged");
			return -1;
		}
		if (r == (int)WL_BATCH)
			return 0;
		if (err && err != EAGAIN && err != EMSGSIZE && err != ENOBUFS)
			break;
	}
	getsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUF, &have, &len);
	read_or("/proc/sys/net/core/wmem_max", wmem, sizeof(wmem), "?");
	snprintf(reason, rlen,
		 "a batch of %u x %u B does not fit in the send buffer (SO_SNDBUF %d, net.core.wmem_max %s; SO_SNDBUFFORCE needs CAP_NET_ADMIN): %s",
		 WL_BATCH, c->size, have, wmem, err ? strerror(err) : "short send");
	return -1;
}

int wl_init(struct sock_ctx *c, int type, int workload, unsigned int size,
	    char *reason, size_t rlen, bool *skip)
{
	char buf[16];
	unsigned int i;
	int ret = 0;

	*c = (struct sock_ctx){ .sv = { -1, -1 }, .workload = workload,
				.size = size };
	*skip = false;
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, c->sv)) {
		snprintf(reason, rlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	/* a batch is received where it was sent from */
	c->buf = calloc(WL_BATCH, size);
	if (!c->buf) {
		snprintf(reason, rlen, "out of memory");
		return -1;
	}
	for (i = 0; i < WL_BATCH; i++) {
		c->iov[i] = (struct iovec){ c->buf + (size_t)i * size, size };
		c->msg[i].msg_hdr.msg_iov = &c->iov[i];
		c->msg[i].msg_hdr.msg_iovlen = 1;
	}
	if (fit_batch(c, reason, rlen))
		return -1;
	if (workload != WL_IOURING)
		return 0;
	/* io_uring may be compiled out, disabled by sysctl, or denied: SKIP */
#ifdef HAVE_LIBURING
	ret = io_uring_queue_init(WL_BATCH, &c->ring, 0);
	c->have_ring = !ret;
	if (!ret)
		return 0;
#endif
	read_or("/proc/sys/kernel/io_uring_disabled", buf, sizeof(buf), "?");
	if (ret)
		snprintf(reason, rlen, "io_uring_queue_init: %s (kernel.io_uring_disabled=%s)",
			 strerror(-ret), buf);
	else
		snprintf(reason, rlen, "built without liburing");
	*skip = true;
	return -1;
}

double wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int wl_round(struct sock_ctx *c, unsigned int msgs, struct wl_count *cnt,
	     double *ns_per_msg, char *reason, size_t rlen)
{
	unsigned int left = msgs, n;
	double t0, total = 0;
	int ret, err;
	char b;

	for (; left; left -= n) {
		n = left < WL_BATCH ? left : WL_BATCH;
		fill_batch(c, n);
		ring_batch(c, n, false);
		t0 = wl_now_ns();
		ret = send_batch(c, n);
		err = errno;	/* a vDSO clock_gettime() leaves it alone */
		total += wl_now_ns() - t0;
		if (ret != (int)n) {
			/* io_uring returns -errno; a short count sets nothing */
			if (c->workload == WL_IOURING && ret < 0)
				err = -ret;
			snprintf(reason, rlen, "%s sent %d of %u messages: %s",
				 wl_names[c->workload], ret, n,
				 ret < 0 ? strerror(err) : "short send");
			return -1;
		}
		cnt->failures += ring_batch(c, n, true);
		drain_batch(c, n, cnt);
	}
	/* the receive queue must be empty at the end of a round */
	if (recv(c->sv[1], &b, 1, MSG_DONTWAIT) >= 0 || errno != EAGAIN)
		cnt->failures++;
	*ns_per_msg = total / msgs;
	return 0;
}

/*
 * Migrations must not land inside a timed batch; the highest allowed CPU
 * by default, as seccomp_benchmark does: CPU 0 takes more interrupts.
 */
unsigned int wl_pin_cpu(unsigned int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_getaffinity");
	if (cpu == CPU_SETSIZE) {
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
	} else if (!CPU_ISSET(cpu, &set)) {
		fprintf(stderr, "af_unix_send_perf: invalid --cpu '%u': not in the allowed set\n",
			cpu);
		exit(KSFT_FAIL);
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_setaffinity");
	return cpu;
}

static void cpu_model(char *buf, size_t len)
{
	char line[512], model[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %511[^\n]", model) == 1) {
			snprintf(buf, len, "%.*s", (int)len - 1, model);
			break;
		}
	if (f)
		fclose(f);
}

void wl_env_probe(struct wl_env *env)
{
	const char *slow = getenv("KSFT_MACHINE_SLOW"), *v, *w;
	size_t n = strlen(ICOUNT_WORD);
	time_t t = time(NULL);
	const char *debug = !access("/proc/lockdep", F_OK) ? "lockdep" :
		!access("/sys/kernel/debug/kmemleak", F_OK) ? "kmemleak" : NULL;

	/* they cost more than the send path's own work */
	if (debug)
		ksft_exit_skip("a debug kernel (%s): its timings are not the kernel's\n",
			       debug);
	uname(&env->uts);
	aa_env_probe(&env->aa);
	if (aa_task_label(env->label, sizeof(env->label)))
		snprintf(env->label, sizeof(env->label), "none (no AppArmor label)");
	env->unconfined = !strcmp(env->label, "unconfined");
	read_or("/proc/cmdline", env->cmdline, sizeof(env->cmdline), "");
	for (w = env->cmdline; (w = strstr(w, ICOUNT_WORD)); w++)
		if ((w == env->cmdline || w[-1] == ' ') && (!w[n] || w[n] == ' '))
			env->icount = true;
	env->machine_slow = slow && !strcmp(slow, "yes");
	read_or("/etc/machine-id", env->id.machine_id,
		sizeof(env->id.machine_id), "none");
	cpu_model(env->id.cpu_model, sizeof(env->id.cpu_model));
	snprintf(env->sys.kernel, sizeof(env->sys.kernel), "%s", env->uts.release);
	read_or("/sys/kernel/security/lsm", env->sys.lsm, sizeof(env->sys.lsm),
		"unreadable");
	env->sys.apparmor = env->aa.enabled;
	read_or("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		env->clocksource, sizeof(env->clocksource), "unknown");
	/* debugfs has the dynamic model; else what the build says */
	v = env->uts.version;
	read_or("/sys/kernel/debug/sched/preempt", env->preempt,
		sizeof(env->preempt), strstr(v, "PREEMPT_RT") ? "PREEMPT_RT" :
		strstr(v, "PREEMPT_DYNAMIC") ? "PREEMPT_DYNAMIC (model not readable)" :
		strstr(v, "PREEMPT") ? "PREEMPT" : "none or voluntary");
	strftime(env->time, sizeof(env->time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}
