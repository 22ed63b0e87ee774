// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX datagram send cost under AppArmor.
 *
 * Kernel commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix
 * sockets when using old abi") dropped the early return for unconfined
 * labels in aa_unix_peer_perm(), so every unconfined SOCK_DGRAM send runs
 * unix_peer_perm() twice.  SOCK_SEQPACKET sends go through the same
 * unix_dgram_sendmsg() but skip security_unix_may_send(), so the
 * dgram/seqpacket ratio measured in one run, with interleaved rounds, is the
 * cost of the hook with the rest of the path as its own control.
 *
 * Only the send calls are timed: every batch is bracketed by two
 * clock_gettime(CLOCK_MONOTONIC) calls and the intervals are summed.
 * Filling, draining and validating the payload happen between batches,
 * outside the timed region; draining after every batch also keeps the
 * receive queue short, so no send ever waits for buffer space.
 *
 * Exit status follows kselftest; bad options exit KSFT_FAIL (1) with a
 * message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "kselftest.h"
#include "common.h"
#include "policy.h"
#include "perf_stats.h"

#define BASELINE_DIR	"/var/lib/apparmor-selftests"
#define ICOUNT_WORD	"vmtest.icount=1"
#define MIN_SIZE	8	/* room for the sequence number */
#define MAX_SIZE	65536
#define MAX_BATCH	1024
#define MAX_SIZES	16

enum { WL_SENDMMSG, WL_IOURING, WL_SEND, NR_WL };
/* send(), a syscall per message, is opt-in to keep the default run short */
#define WL_DEFAULT	((1U << WL_SENDMMSG) | (1U << WL_IOURING))
enum { V_UNCONFINED, V_OLD, V_NEW, NR_V };
enum { S_DGRAM, S_SEQPACKET, NR_S };

static const char * const wl_names[NR_WL] = { "sendmmsg", "io_uring", "send" };
static const char * const v_names[NR_V] = { "unconfined", "old-abi", "new-abi" };
static const char * const s_names[NR_S] = { "dgram", "seqpacket" };
static const int s_types[NR_S] = { SOCK_DGRAM, SOCK_SEQPACKET };

struct opts {
	unsigned int sizes[MAX_SIZES];
	size_t nr_sizes;
	unsigned int batch;
	unsigned int rounds;
	unsigned int warmup;
	unsigned int msgs;
	int cpu;
	unsigned int wl_mask;
	unsigned int v_mask;
	const char *json;
	char baseline[4096];
	double tol;
	bool record;
};

struct sock_ctx {
	int sv[2];
	unsigned int size;
	unsigned int batch;
	char *sbuf;
	char *rbuf;
	struct iovec *siov;
	struct iovec *riov;
	struct mmsghdr *smsg;
	struct mmsghdr *rmsg;
	uint64_t seq;
	bool have_ring;
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
};

struct series {
	double ns[PERF_MAX_ROUNDS];
	unsigned long long validated;
	unsigned long long failures;
};

/* Shared with a confined child through MAP_SHARED memory. */
struct result {
	int status;		/* KSFT_PASS, KSFT_FAIL or KSFT_SKIP */
	char reason[256];
	struct series s[NR_S];
};

struct env {
	struct utsname uts;
	char label[256];
	struct aa_env aa;
	bool unconfined;
	bool icount;
	struct perf_identity id;
	char clocksource[64];
	char preempt[128];
	double clock_ns;
};

static struct opts o = {
	.sizes = { 128 }, .nr_sizes = 1, .batch = 32, .rounds = 15,
	.warmup = 3, .msgs = 65536, .cpu = -1,
	.wl_mask = WL_DEFAULT, .v_mask = (1U << NR_V) - 1, .tol = 0.05,
};

static struct env env;

/* --- option parsing ----------------------------------------------------- */

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: af_unix_send_perf [options]\n"
		"  --sizes LIST       message sizes in bytes, %d..%d (default 128)\n"
		"  --batch N          messages per send batch, 1..%d (default 32)\n"
		"  --rounds N         measured rounds, 2..%d (default 15)\n"
		"  --warmup N         warm-up rounds, 0..1000 (default 3)\n"
		"  --msgs N           messages per round, 1..%u (default 65536)\n"
		"  --cpu N            CPU to pin to (default: highest allowed)\n"
		"  --workloads LIST   sendmmsg,io_uring,send (default sendmmsg,io_uring)\n"
		"  --variants LIST    unconfined,old-abi,new-abi (default all)\n"
		"  --json PATH        write machine-readable results to PATH\n"
		"  --baseline PATH    baseline file (default %s/af_unix_send_perf.<machine-id>.baseline)\n"
		"  --tolerance PCT    allowed ratio excess over baseline, (0,100] (default 5)\n"
		"  --record           store this run's ratios as the baseline\n"
		"Bad options exit 1 (KSFT_FAIL).\n",
		MIN_SIZE, MAX_SIZE, MAX_BATCH, PERF_MAX_ROUNDS, 1U << 30,
		BASELINE_DIR);
}

static void __noreturn bad_opt(const char *name, const char *val,
			       const char *why)
{
	fprintf(stderr, "af_unix_send_perf: invalid --%s '%s': %s\n", name,
		val, why);
	exit(KSFT_FAIL);
}

static unsigned int opt_uint(const char *name, const char *val,
			     unsigned long long min, unsigned long long max)
{
	unsigned long long v;
	char why[64];

	if (perf_parse_uint(val, min, max, &v)) {
		snprintf(why, sizeof(why), "expected an integer %llu..%llu",
			 min, max);
		bad_opt(name, val, why);
	}
	return v;
}

static unsigned int opt_names(const char *name, const char *val,
			      const char * const *names, int nr)
{
	char buf[256], *tok, *save;
	unsigned int mask = 0;
	int i;

	if (!*val || strlen(val) >= sizeof(buf) || val[0] == ',' ||
	    val[strlen(val) - 1] == ',' || strstr(val, ",,"))
		bad_opt(name, val, "expected a comma separated list");
	memcpy(buf, val, strlen(val) + 1);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr && strcmp(tok, names[i]); i++)
			;
		if (i == nr)
			bad_opt(name, val, "unknown name in list");
		mask |= 1U << i;
	}
	return mask;
}

static void parse_opts(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "msgs", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "workloads", required_argument, NULL, 'W' },
		{ "variants", required_argument, NULL, 'V' },
		{ "json", required_argument, NULL, 'j' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "record", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (perf_parse_uint_list(optarg, MIN_SIZE, MAX_SIZE,
						 o.sizes, MAX_SIZES, &o.nr_sizes))
				bad_opt("sizes", optarg,
					"expected up to 16 sizes 8..65536, comma separated");
			break;
		case 'b':
			o.batch = opt_uint("batch", optarg, 1, MAX_BATCH);
			break;
		case 'r':
			o.rounds = opt_uint("rounds", optarg, 2, PERF_MAX_ROUNDS);
			break;
		case 'w':
			o.warmup = opt_uint("warmup", optarg, 0, 1000);
			break;
		case 'm':
			o.msgs = opt_uint("msgs", optarg, 1, 1U << 30);
			break;
		case 'c':
			o.cpu = opt_uint("cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'W':
			o.wl_mask = opt_names("workloads", optarg, wl_names, NR_WL);
			break;
		case 'V':
			o.v_mask = opt_names("variants", optarg, v_names, NR_V);
			break;
		case 'j':
			if (!*optarg)
				bad_opt("json", optarg, "empty path");
			o.json = optarg;
			break;
		case 'B':
			if (!*optarg || strlen(optarg) >= sizeof(o.baseline))
				bad_opt("baseline", optarg, "empty or too long");
			memcpy(o.baseline, optarg, strlen(optarg) + 1);
			break;
		case 't':
			if (perf_parse_double(optarg, 1e-9, 100, &o.tol))
				bad_opt("tolerance", optarg,
					"expected a percentage in (0,100]");
			o.tol /= 100;
			break;
		case 'R':
			o.record = true;
			break;
		case 'h':
			print_usage(stdout);
			exit(KSFT_PASS);
		default:
			print_usage(stderr);
			exit(KSFT_FAIL);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "af_unix_send_perf: unexpected argument '%s'\n",
			argv[optind]);
		exit(KSFT_FAIL);
	}
	if (o.record && !(o.v_mask & (1U << V_UNCONFINED))) {
		fprintf(stderr, "af_unix_send_perf: --record needs the unconfined variant\n");
		exit(KSFT_FAIL);
	}
}

/* --- environment -------------------------------------------------------- */

static void cpu_model(char *buf, size_t len)
{
	char line[512], *p;
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (p) {
			p += strspn(p + 1, " \t") + 1;
			p[strcspn(p, "\n")] = '\0';
			if (*p)
				snprintf(buf, len, "%s", p);
		}
		break;
	}
	fclose(f);
}

static bool cmdline_has(const char *word)
{
	char buf[4096], *tok, *save;

	if (aa_read_line("/proc/cmdline", buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Cost of one clock_gettime(); every batch interval contains about one. */
static double clock_overhead(void)
{
	struct timespec ts;
	double t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < 100000; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = now_ns();
	return (t1 - t0) / 100000;
}

static void probe_env(void)
{
	char buf[512];

	uname(&env.uts);
	aa_env_probe(&env.aa);
	if (aa_task_label(env.label, sizeof(env.label)))
		snprintf(env.label, sizeof(env.label), "none (no AppArmor label)");
	env.unconfined = !strcmp(env.label, "unconfined");
	env.icount = cmdline_has(ICOUNT_WORD);
	if (aa_read_line("/etc/machine-id", env.id.machine_id,
			   sizeof(env.id.machine_id)) || !env.id.machine_id[0])
		snprintf(env.id.machine_id, sizeof(env.id.machine_id), "none");
	cpu_model(env.id.cpu_model, sizeof(env.id.cpu_model));
	if (aa_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			   env.clocksource, sizeof(env.clocksource)))
		snprintf(env.clocksource, sizeof(env.clocksource), "unknown");
	if (aa_read_line("/sys/kernel/debug/sched/preempt", env.preempt,
			   sizeof(env.preempt)))
		snprintf(env.preempt, sizeof(env.preempt), "uname -v: %s",
			 env.uts.version);
	env.clock_ns = clock_overhead();

	ksft_print_msg("kernel: %s %s\n", env.uts.release, env.uts.version);
	ksft_print_msg("apparmor label: %s%s\n", env.label,
		       env.unconfined ? " (unconfined, as required)" : "");
	if (aa_read_line("/sys/kernel/security/lsm", buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "unreadable");
	ksft_print_msg("lsm: %s; apparmor %s\n", buf,
		       env.aa.enabled ? "enabled" : "not enabled");
	ksft_print_msg("cpu: %s; machine-id: %s\n", env.id.cpu_model,
		       env.id.machine_id);
	ksft_print_msg("clocksource: %s; preempt: %s\n", env.clocksource,
		       env.preempt);
	ksft_print_msg("icount: %s (kernel cmdline word %s)\n",
		       env.icount ? "yes" : "no", ICOUNT_WORD);
	if (!aa_read_line("/proc/sys/net/unix/max_dgram_qlen", buf, sizeof(buf)))
		ksft_print_msg(
			"net.unix.max_dgram_qlen: %s (not reached: a socketpair peer is exempt and each batch is drained)\n",
			       buf);
	ksft_print_msg(
		"clock_gettime: %.1f ns per call, about %.2f ns/msg at batch %u (reported, not subtracted)\n",
		       env.clock_ns, env.clock_ns / o.batch, o.batch);
	ksft_print_msg(
		"settings: batch %u, %u msgs/round, %u warm-up + %u measured rounds, tolerance %.2f%%\n",
		       o.batch, o.msgs, o.warmup, o.rounds, o.tol * 100);
}

/*
 * Pin to one CPU so that migrations do not land inside a timed batch; the
 * highest allowed CPU by default, as seccomp_benchmark does, because CPU 0
 * tends to take more interrupts.
 */
static void pin_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_getaffinity");
	if (o.cpu < 0) {
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
		o.cpu = cpu;
	} else if (!CPU_ISSET(o.cpu, &set)) {
		fprintf(stderr, "af_unix_send_perf: invalid --cpu '%d': not in the allowed set\n",
			o.cpu);
		exit(KSFT_FAIL);
	}
	CPU_ZERO(&set);
	CPU_SET(o.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_exit_fail_perror("sched_setaffinity");
	ksft_print_msg("pinned to CPU %d\n", o.cpu);
}

/* --- sockets and workloads --------------------------------------------- */

static void ctx_free(struct sock_ctx *c)
{
#ifdef HAVE_LIBURING
	if (c->have_ring)
		io_uring_queue_exit(&c->ring);
#endif
	if (c->sv[0] >= 0)
		close(c->sv[0]);
	if (c->sv[1] >= 0)
		close(c->sv[1]);
	free(c->sbuf);
	free(c->rbuf);
	free(c->siov);
	free(c->riov);
	free(c->smsg);
	free(c->rmsg);
	memset(c, 0, sizeof(*c));
	c->sv[0] = -1;
	c->sv[1] = -1;
}

/* Room for a whole batch in the send buffer, so no send has to wait. */
static void ctx_sndbuf(struct sock_ctx *c)
{
	int need = c->batch * (c->size + 1024), have;
	socklen_t len = sizeof(have);

	if (getsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUF, &have, &len) ||
	    have >= need)
		return;
	if (setsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &need, sizeof(need)))
		setsockopt(c->sv[0], SOL_SOCKET, SO_SNDBUF, &need, sizeof(need));
}

static int ctx_init(struct sock_ctx *c, int type, unsigned int size,
		    char *reason, size_t rlen)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->sv[0] = -1;
	c->sv[1] = -1;
	c->size = size;
	c->batch = o.batch;
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, c->sv)) {
		snprintf(reason, rlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	ctx_sndbuf(c);
	c->sbuf = calloc(o.batch, size);
	c->rbuf = calloc(o.batch, size);
	c->siov = calloc(o.batch, sizeof(*c->siov));
	c->riov = calloc(o.batch, sizeof(*c->riov));
	c->smsg = calloc(o.batch, sizeof(*c->smsg));
	c->rmsg = calloc(o.batch, sizeof(*c->rmsg));
	if (!c->sbuf || !c->rbuf || !c->siov || !c->riov || !c->smsg || !c->rmsg) {
		snprintf(reason, rlen, "out of memory");
		return -1;
	}
	for (i = 0; i < o.batch; i++) {
		c->siov[i].iov_base = c->sbuf + (size_t)i * size;
		c->siov[i].iov_len = size;
		c->riov[i].iov_base = c->rbuf + (size_t)i * size;
		c->riov[i].iov_len = size;
		c->smsg[i].msg_hdr.msg_iov = &c->siov[i];
		c->smsg[i].msg_hdr.msg_iovlen = 1;
		c->rmsg[i].msg_hdr.msg_iov = &c->riov[i];
		c->rmsg[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

/* io_uring may be compiled out, disabled by sysctl, or denied. */
static int ring_init(struct sock_ctx *c, char *reason, size_t rlen)
{
#ifdef HAVE_LIBURING
	char buf[16];
	int ret;

	ret = io_uring_queue_init(o.batch, &c->ring, 0);
	if (ret) {
		if (aa_read_line("/proc/sys/kernel/io_uring_disabled", buf,
				   sizeof(buf)))
			snprintf(buf, sizeof(buf), "?");
		snprintf(reason, rlen,
			 "io_uring_queue_init: %s (kernel.io_uring_disabled=%s)",
			 strerror(-ret), buf);
		return -1;
	}
	c->have_ring = true;
	return 0;
#else
	(void)c;
	snprintf(reason, rlen, "built without liburing");
	return -1;
#endif
}

static uint8_t pattern(uint64_t seq, unsigned int i)
{
	return (uint8_t)(seq * 131 + i);
}

/* Sequence number first, then a pattern that depends on it. */
static void fill_batch(struct sock_ctx *c, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		uint8_t *p = c->siov[i].iov_base;
		uint64_t seq = c->seq + i;

		memcpy(p, &seq, sizeof(seq));
		for (j = sizeof(seq); j < c->size; j++)
			p[j] = pattern(seq, j);
	}
}

static void prep_batch(struct sock_ctx *c, int wl, unsigned int n)
{
#ifdef HAVE_LIBURING
	struct io_uring_sqe *sqe;
	unsigned int i;

	if (wl != WL_IOURING)
		return;
	for (i = 0; i < n; i++) {
		sqe = io_uring_get_sqe(&c->ring);
		io_uring_prep_send(sqe, c->sv[0], c->siov[i].iov_base, c->size,
				   MSG_DONTWAIT);
	}
#else
	(void)c;
	(void)wl;
	(void)n;
#endif
}

/*
 * The timed part: nothing but the sends.  MSG_DONTWAIT makes a full
 * send buffer an error instead of a hang.
 */
static int send_batch(struct sock_ctx *c, int wl, unsigned int n)
{
	unsigned int i;

	switch (wl) {
	case WL_SENDMMSG:
		return sendmmsg(c->sv[0], c->smsg, n, MSG_DONTWAIT);
	case WL_SEND:
		for (i = 0; i < n; i++)
			if (send(c->sv[0], c->siov[i].iov_base, c->size,
				 MSG_DONTWAIT) != (ssize_t)c->size)
				break;
		return i;
#ifdef HAVE_LIBURING
	case WL_IOURING:
		return io_uring_submit_and_wait(&c->ring, n);
#endif
	}
	return -1;
}

/* io_uring reports each send's result in its completion. */
static unsigned int reap_batch(struct sock_ctx *c, int wl, unsigned int n)
{
	unsigned int bad = 0;
#ifdef HAVE_LIBURING
	struct io_uring_cqe *cqe;
	unsigned int i;

	if (wl != WL_IOURING)
		return 0;
	for (i = 0; i < n; i++) {
		if (io_uring_wait_cqe(&c->ring, &cqe)) {
			bad += n - i;
			break;
		}
		if (cqe->res != (int)c->size)
			bad++;
		io_uring_cqe_seen(&c->ring, cqe);
	}
#else
	(void)c;
	(void)wl;
	(void)n;
#endif
	return bad;
}

static bool msg_ok(struct sock_ctx *c, unsigned int i, uint64_t seq)
{
	const uint8_t *p = c->riov[i].iov_base;
	uint64_t got;
	unsigned int j;

	if (c->rmsg[i].msg_len != c->size ||
	    (c->rmsg[i].msg_hdr.msg_flags & MSG_TRUNC))
		return false;
	memcpy(&got, p, sizeof(got));
	if (got != seq)
		return false;
	for (j = sizeof(got); j < c->size; j++)
		if (p[j] != pattern(seq, j))
			return false;
	return true;
}

/* Receive one batch and check count, length, order and payload. */
static void drain_batch(struct sock_ctx *c, unsigned int n, struct series *s)
{
	unsigned int got = 0, i;
	int r;

	while (got < n) {
		for (i = got; i < n; i++)
			c->rmsg[i].msg_hdr.msg_flags = 0;
		r = recvmmsg(c->sv[1], c->rmsg + got, n - got, MSG_DONTWAIT, NULL);
		if (r <= 0)
			break;
		for (i = got; i < got + (unsigned int)r; i++) {
			if (msg_ok(c, i, c->seq + i))
				s->validated++;
			else
				s->failures++;
		}
		got += r;
	}
	s->failures += n - got;
	c->seq += n;
}

/* The receive queue must be empty at the end of a round. */
static void check_empty(struct sock_ctx *c, struct series *s)
{
	char b;

	if (recv(c->sv[1], &b, 1, MSG_DONTWAIT) >= 0 || errno != EAGAIN)
		s->failures++;
}

static int run_round(struct sock_ctx *c, int wl, struct series *s,
		     double *ns_per_msg, char *reason, size_t rlen)
{
	unsigned int left = o.msgs, n;
	struct timespec t0, t1;
	double total = 0;
	int ret, err;

	while (left) {
		n = left < o.batch ? left : o.batch;
		fill_batch(c, n);
		prep_batch(c, wl, n);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = send_batch(c, wl, n);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		err = errno;	/* a vDSO clock_gettime() leaves it alone */
		total += (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
		if (ret != (int)n) {
			/* io_uring returns -errno, the socket calls set errno */
			if (wl == WL_IOURING && ret < 0)
				err = -ret;
			snprintf(reason, rlen,
				 "%s sent %d of %u messages: %s (send buffer too small for --batch x --sizes?)",
				 wl_names[wl], ret, n, strerror(err));
			return -1;
		}
		s->failures += reap_batch(c, wl, n);
		drain_batch(c, n, s);
		left -= n;
	}
	check_empty(c, s);
	*ns_per_msg = total / o.msgs;
	return 0;
}

/*
 * Warm-up and measured rounds, dgram and seqpacket interleaved with the
 * order swapped every round, so slow drift lands on both sides.
 */
static void run_series(int wl, unsigned int size, struct result *r)
{
	unsigned int round, k, total = o.warmup + o.rounds;
	struct sock_ctx c[NR_S];
	struct series scratch;
	double ns, last[NR_S] = { 0 };
	int st;

	memset(r, 0, sizeof(*r));
	r->status = KSFT_FAIL;
	c[0].sv[0] = c[0].sv[1] = c[1].sv[0] = c[1].sv[1] = -1;
	c[0].have_ring = c[1].have_ring = false;
	c[0].sbuf = c[1].sbuf = NULL;
	for (st = 0; st < NR_S; st++)
		if (ctx_init(&c[st], s_types[st], size, r->reason, sizeof(r->reason)))
			goto out;
	if (wl == WL_IOURING)
		for (st = 0; st < NR_S; st++)
			if (ring_init(&c[st], r->reason, sizeof(r->reason))) {
				r->status = KSFT_SKIP;
				goto out;
			}
	for (round = 0; round < total; round++) {
		bool measured = round >= o.warmup;

		for (k = 0; k < NR_S; k++) {
			st = (round + k) % NR_S;
			memset(&scratch, 0, sizeof(scratch));
			if (run_round(&c[st], wl, measured ? &r->s[st] : &scratch,
				      &ns, r->reason, sizeof(r->reason)))
				goto out;
			last[st] = ns;
			if (measured)
				r->s[st].ns[round - o.warmup] = ns;
			else if (scratch.failures)
				r->s[st].failures += scratch.failures;
		}
		fprintf(stderr, "# %s %uB %s %u/%u: dgram %.1f seqpacket %.1f ns/msg\n",
			wl_names[wl], size, measured ? "round" : "warm-up",
			measured ? round - o.warmup + 1 : round + 1,
			measured ? o.rounds : o.warmup, last[S_DGRAM],
			last[S_SEQPACKET]);
	}
	r->status = KSFT_PASS;
out:
	for (st = 0; st < NR_S; st++)
		ctx_free(&c[st]);
}

/* --- statistics and reporting ------------------------------------------ */

struct stats {
	struct perf_summary sum[NR_S];
	double drop1[NR_S];		/* mean without the first round */
	double ratios[PERF_MAX_ROUNDS];
	struct perf_ci ratio;
	struct perf_ci ratio_drop1;
};

static void compute(const struct result *r, struct stats *st)
{
	struct perf_summary d;
	int s;

	for (s = 0; s < NR_S; s++) {
		perf_summarize(r->s[s].ns, o.rounds, &st->sum[s]);
		perf_summarize(r->s[s].ns + 1, o.rounds - 1, &d);
		st->drop1[s] = d.mean;
	}
	perf_ratios(r->s[S_DGRAM].ns, r->s[S_SEQPACKET].ns, o.rounds, st->ratios);
	perf_mean_ci(st->ratios, o.rounds, &st->ratio);
	if (o.rounds > 2)
		perf_mean_ci(st->ratios + 1, o.rounds - 1, &st->ratio_drop1);
	else
		st->ratio_drop1 = st->ratio;
}

static void print_stats(const char *tag, const struct stats *st)
{
	int s;

	for (s = 0; s < NR_S; s++)
		ksft_print_msg(
			"%s %s: mean %.2f median %.2f min %.2f stdev %.2f cv %.3f%% ns/msg; without round 1: mean %.2f\n",
			       tag, s_names[s], st->sum[s].mean, st->sum[s].median,
			       st->sum[s].min, st->sum[s].stdev,
			       st->sum[s].cv * 100, st->drop1[s]);
	ksft_print_msg(
		"%s dgram/seqpacket ratio %.4f, 95%% t-interval [%.4f, %.4f] over %zu interleaved pairs; without round 1: %.4f [%.4f, %.4f]\n",
		       tag, st->ratio.mean, st->ratio.lo, st->ratio.hi,
		       st->ratio.n, st->ratio_drop1.mean, st->ratio_drop1.lo,
		       st->ratio_drop1.hi);
}

/* Reports one measured series; returns true when it can be used. */
static bool report_series(int v, int wl, unsigned int size,
			  const struct result *r, struct stats *st)
{
	unsigned long long bad = r->s[0].failures + r->s[1].failures;
	char tag[96];

	snprintf(tag, sizeof(tag), "%s %s %uB", v_names[v], wl_names[wl], size);
	if (r->status == KSFT_SKIP) {
		ksft_test_result_skip("%s: %s\n", tag, r->reason);
		return false;
	}
	if (r->status != KSFT_PASS) {
		ksft_test_result_fail("%s: %s\n", tag, r->reason);
		return false;
	}
	compute(r, st);
	print_stats(tag, st);
	if (bad) {
		ksft_test_result_fail("%s: %llu validation failures (%llu messages ok)\n",
				      tag, bad, r->s[0].validated + r->s[1].validated);
		return false;
	}
	ksft_test_result_pass(
		"%s: %llu messages validated, dgram %.1f seqpacket %.1f ns/msg, ratio %.4f\n",
			      tag, r->s[0].validated + r->s[1].validated,
			      st->sum[S_DGRAM].mean, st->sum[S_SEQPACKET].mean,
			      st->ratio.mean);
	return true;
}

/* --- baseline ----------------------------------------------------------- */

static struct perf_baseline base;
static int base_err;		/* 0, -ENOENT or another -errno */
static bool record_failed;
static char base_msg[4096 + PERF_ERR_MAX + 8];

static struct perf_settings cur_settings(void)
{
	struct perf_settings s = {
		.batch = o.batch, .msgs_per_round = o.msgs, .rounds = o.rounds,
		.warmup = o.warmup, .icount = env.icount,
	};
	return s;
}

static void load_baseline(void)
{
	struct perf_settings set = cur_settings();
	char err[PERF_ERR_MAX];

	if (!o.baseline[0])
		snprintf(o.baseline, sizeof(o.baseline),
			 BASELINE_DIR "/af_unix_send_perf.%s.baseline",
			 env.id.machine_id);
	ksft_print_msg("baseline: %s\n", o.baseline);
	if (o.record) {
		memset(&base, 0, sizeof(base));
		base.id = env.id;
		base.set = set;
		snprintf(base.kernel, sizeof(base.kernel), "%s", env.uts.release);
		return;
	}
	base_err = perf_baseline_load(o.baseline, &base, base_msg,
				      sizeof(base_msg));
	if (!base_err &&
	    perf_baseline_match(&base, &env.id, &set, err, sizeof(err))) {
		base_err = -EINVAL;
		snprintf(base_msg, sizeof(base_msg), "%s: %s", o.baseline, err);
	}
}

static void record_entry(const char *tag, int wl, unsigned int size,
			 const struct stats *st)
{
	struct perf_entry e = {
		.msg_size = size, .ratio = st->ratio.mean,
		.dgram_ns = st->sum[S_DGRAM].mean,
		.seqpacket_ns = st->sum[S_SEQPACKET].mean,
	};

	snprintf(e.workload, sizeof(e.workload), "%s", wl_names[wl]);
	if (2 * st->ratio.half > o.tol * st->ratio.mean) {
		record_failed = true;
		ksft_test_result_fail(
			"%s record: too noisy (95%% CI width %.4f > tolerance %.4f), not recorded\n",
				      tag, 2 * st->ratio.half, o.tol * st->ratio.mean);
		return;
	}
	if (perf_baseline_put(&base, &e)) {
		record_failed = true;
		ksft_test_result_fail("%s record: baseline table full\n", tag);
		return;
	}
	ksft_test_result_pass("%s record: ratio %.4f [%.4f, %.4f]\n", tag,
			      st->ratio.mean, st->ratio.lo, st->ratio.hi);
}

static void check_baseline(int wl, unsigned int size, bool usable,
			   const struct stats *st)
{
	const struct perf_entry *e;
	enum perf_verdict v;
	double limit;
	char tag[96];

	snprintf(tag, sizeof(tag), "unconfined %s %uB vs baseline", wl_names[wl], size);
	if (!usable) {
		record_failed = true;
		ksft_test_result_skip("%s: no valid measurement\n", tag);
		return;
	}
	if (env.aa.enabled && !env.unconfined) {
		ksft_test_result_skip("%s: task is confined ('%s'), run it unconfined\n",
				      tag, env.label);
		return;
	}
	if (o.record) {
		record_entry(tag, wl, size, st);
		return;
	}
	if (base_err == -ENOENT) {
		ksft_test_result_skip(
			"%s: no baseline for this machine (%s); record one with ./run_perf.sh record\n",
				      tag, base_msg);
		return;
	}
	if (base_err) {
		ksft_test_result_fail("%s: bad baseline: %s\n", tag, base_msg);
		return;
	}
	e = perf_baseline_find(&base, wl_names[wl], size);
	if (!e) {
		ksft_test_result_skip(
			"%s: %s has no entry for it; record one with ./run_perf.sh record\n",
				      tag, o.baseline);
		return;
	}
	v = perf_judge(e->ratio, o.tol, &st->ratio, &limit);
	ksft_print_msg(
		"%s: ratio %.4f [%.4f, %.4f], baseline %.4f, limit %.4f; dgram %.1f ns/msg (baseline %.1f)\n",
		       tag, st->ratio.mean, st->ratio.lo, st->ratio.hi, e->ratio,
		       limit, st->sum[S_DGRAM].mean, e->dgram_ns);
	if (v == PERF_PASS)
		ksft_test_result_pass("%s: ratio %.4f within %.1f%% of %.4f\n", tag,
				      st->ratio.mean, o.tol * 100, e->ratio);
	else if (v == PERF_FAIL)
		ksft_test_result_fail(
			"%s: ratio %.4f (95%% CI low %.4f) exceeds baseline %.4f by more than %.1f%%\n",
				      tag, st->ratio.mean, st->ratio.lo, e->ratio,
				      o.tol * 100);
	else
		ksft_test_result_skip(
			"%s: too noisy to decide (ratio %.4f, 95%% CI [%.4f, %.4f], limit %.4f)\n",
				      tag, st->ratio.mean, st->ratio.lo,
				      st->ratio.hi, limit);
}

static void store_baseline(void)
{
	char err[PERF_ERR_MAX];

	if (!o.record)
		return;
	if (record_failed || !base.nr_entries) {
		ksft_print_msg("baseline NOT written: some entries could not be recorded\n");
		return;
	}
	mkdir(BASELINE_DIR, 0755);
	if (perf_baseline_store(o.baseline, &base, err, sizeof(err)))
		ksft_exit_fail_msg("storing the baseline failed: %s\n", err);
	ksft_print_msg("baseline with %zu entries written to %s\n",
		       base.nr_entries, o.baseline);
}

/* --- JSON --------------------------------------------------------------- */

static FILE *json;
static bool json_first = true;

static void json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_open(void)
{
	const struct {
		const char *key, *val;
	} str[] = {
		{ "kernel", env.uts.release },
		{ "kernel_version", env.uts.version },
		{ "label", env.label },
		{ "cpu_model", env.id.cpu_model },
		{ "machine_id", env.id.machine_id },
		{ "clocksource", env.clocksource },
	};
	size_t i;

	if (!o.json)
		return;
	json = fopen(o.json, "we");
	if (!json)
		ksft_exit_fail_msg("--json %s: %s\n", o.json, strerror(errno));
	fprintf(json, "{\n  \"format\": \"af_unix_send_perf/1\"");
	for (i = 0; i < ARRAY_SIZE(str); i++) {
		fprintf(json, ",\n  \"%s\": ", str[i].key);
		json_escape(json, str[i].val);
	}
	fprintf(json, ",\n  \"icount\": %s,\n  \"cpu\": %d,\n  \"batch\": %u,\n"
		"  \"msgs_per_round\": %u,\n  \"rounds\": %u,\n  \"warmup\": %u,\n"
		"  \"clock_gettime_ns\": %.2f,\n  \"series\": [\n",
		env.icount ? "true" : "false", o.cpu, o.batch, o.msgs, o.rounds,
		o.warmup, env.clock_ns);
}

/* One series per line: perf_json_find() in perf_stats.c reads them back. */
static void json_series(int v, int wl, unsigned int size,
			const struct result *r, const struct stats *st)
{
	unsigned int i;
	int s;

	if (!json || r->status != KSFT_PASS)
		return;
	for (s = 0; s < NR_S; s++) {
		fprintf(json,
			"%s    {\"variant\": \"%s\", \"workload\": \"%s\", \"sock\": \"%s\", \"msg_size\": %u, \"mean\": %.3f, \"median\": %.3f, \"min\": %.3f, \"stdev\": %.3f, \"cv\": %.6f, \"mean_drop_first\": %.3f, \"ratio\": %.6f, \"ratio_lo\": %.6f, \"ratio_hi\": %.6f, \"validated_msgs\": %llu, \"validation_failures\": %llu, \"ns_per_msg\": [",
			json_first ? "" : ",\n", v_names[v], wl_names[wl],
			s_names[s], size, st->sum[s].mean, st->sum[s].median,
			st->sum[s].min, st->sum[s].stdev, st->sum[s].cv,
			st->drop1[s], st->ratio.mean, st->ratio.lo, st->ratio.hi,
			r->s[s].validated, r->s[s].failures);
		for (i = 0; i < o.rounds; i++)
			fprintf(json, "%s%.3f", i ? ", " : "", r->s[s].ns[i]);
		fprintf(json, "]}");
		json_first = false;
	}
}

static void json_close(void)
{
	if (!json)
		return;
	fprintf(json, "\n  ]\n}\n");
	if (fclose(json))
		ksft_print_msg("--json %s: %s\n", o.json, strerror(errno));
	json = NULL;
}

/* --- confined variants -------------------------------------------------- */

#define PROFILE_PREFIX "af_unix_send_perf"

static struct aa_policy *policy;
static const char *profile;

static void variant_teardown(void)
{
	aa_policy_free(policy);
	policy = NULL;
	profile = NULL;
}

/* Loads the variant's profile; returns why it cannot run, or NULL. */
static const char *variant_setup(int v, char *reason, size_t rlen)
{
	static const char * const rules[NR_V] = {
		[V_OLD] = "  file,\n  network unix,\n",
		[V_NEW] = "  file,\n  unix,\n",
	};
	enum aa_abi abi = v == V_OLD ? AA_ABI_OLD : AA_ABI_NEW;
	bool abis[AA_ABI_COUNT] = { false };
	char err[PERF_ERR_MAX];

	if (env.aa.skip[abi][0])
		return env.aa.skip[abi];
#ifndef HAVE_LIBAPPARMOR
	return "built without libapparmor (pkg-config libapparmor): cannot change profile";
#endif
	aa_cleanup_stale(PROFILE_PREFIX);
	policy = aa_policy_new(PROFILE_PREFIX, err, sizeof(err));
	if (!policy) {
		snprintf(reason, rlen, "%s", err);
		return reason;
	}
	profile = aa_policy_add(policy, abi, v_names[v], rules[v]);
	abis[abi] = true;
	if (!profile || aa_policy_load(policy, env.aa.parser, abis, err,
				       sizeof(err))) {
		snprintf(reason, rlen, "loading the %s profile failed: %s",
			 v_names[v], profile ? err : "out of memory");
		variant_teardown();
		return reason;
	}
	return NULL;
}

static void run_confined(int wl, unsigned int size, struct result *shared)
{
	char label[256];
	pid_t pid;
	int status, ret;

	memset(shared, 0, sizeof(*shared));
	shared->status = KSFT_FAIL;
	snprintf(shared->reason, sizeof(shared->reason), "confined child gave no result");
	pid = fork();
	if (pid < 0) {
		shared->status = KSFT_FAIL;
		snprintf(shared->reason, sizeof(shared->reason), "fork: %s",
			 strerror(errno));
		return;
	}
	if (pid == 0) {
		ret = aa_confine(profile);
		if (ret) {
			shared->status = KSFT_FAIL;
			snprintf(shared->reason, sizeof(shared->reason),
				 "changeprofile %s: %s", profile, strerror(-ret));
			_exit(0);
		}
		/* the sockets must be created confined to carry the label */
		if (aa_check_label(profile)) {
			aa_task_label(label, sizeof(label));
			shared->status = KSFT_FAIL;
			snprintf(shared->reason, sizeof(shared->reason),
				 "label after changeprofile is '%.200s'", label);
			_exit(0);
		}
		run_series(wl, size, shared);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		shared->status = KSFT_FAIL;
		snprintf(shared->reason, sizeof(shared->reason),
			 "confined child died (status %#x)", (unsigned int)status);
	}
}

/* --- main --------------------------------------------------------------- */

static unsigned int count_bits(unsigned int m)
{
	return __builtin_popcount(m);
}

static void run_variant(int v, struct result *shared)
{
	const char *skip = NULL;
	char reason[512];
	struct stats st;
	unsigned int i;
	bool usable;
	int wl;

	if (v != V_UNCONFINED)
		skip = variant_setup(v, reason, sizeof(reason));
	for (i = 0; i < o.nr_sizes; i++) {
		for (wl = 0; wl < NR_WL; wl++) {
			if (!(o.wl_mask & (1U << wl)))
				continue;
			memset(&st, 0, sizeof(st));
			if (skip) {
				ksft_test_result_skip("%s %s %uB: %s\n", v_names[v],
						      wl_names[wl], o.sizes[i], skip);
				continue;
			}
			if (v == V_UNCONFINED)
				run_series(wl, o.sizes[i], shared);
			else
				run_confined(wl, o.sizes[i], shared);
			usable = report_series(v, wl, o.sizes[i], shared, &st);
			if (usable)
				json_series(v, wl, o.sizes[i], shared, &st);
			if (v == V_UNCONFINED)
				check_baseline(wl, o.sizes[i], usable, &st);
		}
	}
	if (v != V_UNCONFINED && !skip)
		variant_teardown();
}

int main(int argc, char **argv)
{
	unsigned int per = o.nr_sizes, plan;
	struct result *shared;
	double t0;
	int v;

	parse_opts(argc, argv);
	per = o.nr_sizes * count_bits(o.wl_mask);
	plan = per * count_bits(o.v_mask);
	if (o.v_mask & (1U << V_UNCONFINED))
		plan += per;
	ksft_print_header();
	ksft_set_plan(plan);
	pin_cpu();
	probe_env();
	load_baseline();
	json_open();
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	t0 = now_ns();
	for (v = 0; v < NR_V; v++)
		if (o.v_mask & (1U << v))
			run_variant(v, shared);
	json_close();
	store_baseline();
	ksft_print_msg("total run time %.1f s\n", (now_ns() - t0) / 1e9);
	munmap(shared, sizeof(*shared));
	ksft_finished();
}
