/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sends af_unix_send_perf times, a batch at a time by sendmmsg(),
 * io_uring SEND or send() on a socketpair of each type, and the machine
 * they are timed on.
 */
#ifndef _SELFTESTS_APPARMOR_SEND_WORKLOAD_H
#define _SELFTESTS_APPARMOR_SEND_WORKLOAD_H

#include <stdbool.h>
#include <linux/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "common.h"
#include "perf_baseline.h"

#define WL_MIN_SIZE	8	/* room for the sequence number */
#define WL_MAX_SIZE	65536
/* Messages per send batch: part of a baseline's settings. */
#define WL_BATCH	32

enum { WL_SENDMMSG, WL_IOURING, WL_SEND, NR_WL };
enum { S_DGRAM, S_SEQPACKET, NR_S };

extern const char * const wl_names[NR_WL];
extern const char * const s_names[NR_S];
extern const int s_types[NR_S];

struct wl_count {
	unsigned long long validated, failures;
};

struct sock_ctx {
	int sv[2];		/* sv[0] sends, sv[1] receives */
	int workload;
	unsigned int size;
	char *buf;		/* WL_BATCH messages, sent, then received */
	struct iovec iov[WL_BATCH];
	struct mmsghdr msg[WL_BATCH];
	__u64 seq;
	bool have_ring;
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
};

/*
 * A pair of @type whose send buffer fits a batch; -1 with the reason, and
 * @skip set when it is something missing (io_uring) rather than a failure.
 */
int wl_init(struct sock_ctx *c, int type, int workload, unsigned int size,
	    char *reason, size_t rlen, bool *skip);
void wl_free(struct sock_ctx *c);
/*
 * Sends @msgs messages, checking each batch after it; the time in the send
 * calls per message in @ns_per_msg.  -1 with the reason when a send fails.
 */
int wl_round(struct sock_ctx *c, unsigned int msgs, struct wl_count *cnt,
	     double *ns_per_msg, char *reason, size_t rlen);
/* The kernel command line word vmtest.sh --icount adds. */
#define ICOUNT_WORD	"vmtest.icount=1"

struct wl_env {
	struct utsname uts;
	char label[256];
	struct aa_env aa;
	bool unconfined, icount, machine_slow;
	struct perf_identity id;
	struct perf_system sys;
	char cmdline[4096], clocksource[64], preempt[128];
	char time[32];		/* UTC, ISO 8601 */
};

/* Fills @env; a debug kernel SKIPs the program (ksft_exit_skip()). */
void wl_env_probe(struct wl_env *env);
double wl_now_ns(void);
/* Pins to @cpu, CPU_SETSIZE: the highest allowed; exits when it cannot. */
unsigned int wl_pin_cpu(unsigned int cpu);

#endif /* _SELFTESTS_APPARMOR_SEND_WORKLOAD_H */
