// SPDX-License-Identifier: GPL-2.0
/*
 * unix_fixes_test: the peer label a socket notes, and its reference
 * (6d25e7b47616, 4483efe4f215, the open update_sk_ctx() leak).  Included
 * by unix_fixes_test.c, after the reproducers' processes and write_msg().
 */

/*
 * A removed profile is freed once the last reference to its label is
 * put.  A reference taken and never put keeps it for good, and nothing
 * user space can read about a profile shows that: kmemleak does not
 * either, as AppArmor's secid map points to every label alive.  What
 * does show is memory: the profile is made big, one file rule whose
 * DFA has 2^WILDCARDS states, and the kernel memory its DFA took
 * (kvmalloc(): SUnreclaim and VmallocUsed) must come back once it is
 * removed.  ROUNDS profiles leaked so take ROUNDS times that; the
 * verdict is drawn at a quarter of it, far from both answers.
 */
#define NOTED_WILDCARDS 13
#define NOTED_BLOB "peer_noted.bin"
#define NOTED_ROUNDS 4
/* How long a removed profile may take to be freed (RCU, a work item). */
#define NOTED_FREE_MS 3000

/* Kernel memory in KiB: SUnreclaim + VmallocUsed, or -errno. */
static long kernel_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long v, kib = 0;
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &v) == 1 ||
		    sscanf(line, "VmallocUsed: %ld kB", &v) == 1) {
			kib += v;
			found++;
		}
	fclose(f);
	return found == 2 ? kib : -ENOENT;
}

/* How a reproducer of the peer label's reference ends. */
enum noted_end {
	NOTED_CLOSE,		/* end 1 used under the user's profile, closed */
	NOTED_READ_BACK,	/* then end 0 read under the noted one */
};

struct noted {
	enum noted_end end;
	const char *profile[2];	/* the noted profile, the user's */
	int sv[2];
	struct outcome *out;	/* [CREATOR], [USER]: shared */
};

/* Writes on end 1 under the user's profile. */
static void noted_user(void *arg)
{
	struct noted *n = arg;
	struct outcome *out = &n->out[USER];

	close(n->sv[0]);
	if (!confine(out, STEP_CONFINE_USER, n->profile[1], false, false) &&
	    !write_msg(out, n->sv[1]))
		at(out, STEP_DONE);
}

/*
 * Under the noted profile: a socket pair, whose end 0 notes that
 * profile's label, with a reference, as the last peer label it checked
 * (unix_connect_peers()); end 1 notes none.  End 1 is used under the
 * user's profile, which revalidates it against end 0's label, notes that
 * label on end 1 (6d25e7b47616: with a reference), and merges the user's
 * label into both sockets' labels.  NOTED_READ_BACK: end 0 read under
 * the noted profile is then revalidated against that merged label, and
 * notes it in place of the first.
 */
static void noted_creator(void *arg)
{
	struct noted *n = arg;
	struct outcome *out = &n->out[CREATOR];
	char buf[MSG_LEN];
	ssize_t len;
	pid_t pid;

	if (confine(out, STEP_CONFINE, n->profile[0], false, false) ||
	    failed(out, STEP_CREATE, socketpair(AF_UNIX, SOCK_STREAM, 0,
						n->sv)))
		return;
	pid = spawn(noted_user, n);
	if (failed(out, STEP_HANDOFF, pid))
		return;
	close(n->sv[1]);
	reap(&n->out[USER], pid);
	if (n->out[USER].step != STEP_DONE)
		return;
	if (n->end == NOTED_READ_BACK) {
		at(out, STEP_CHECK);
		len = read(n->sv[0], buf, sizeof(buf));
		if (failed(out, STEP_CHECK, len) ||
		    wrong(out, STEP_CHECK, len == MSG_LEN, FAULT_SHORT))
			return;
	}
	at(out, STEP_DONE);
}

/* One reproducer, its sockets closed when it returns. */
static void noted_run(struct __test_metadata *_metadata, struct noted *n)
{
	char g[128];
	pid_t pid;
	int i;

	for (i = CREATOR; i < PROC_COUNT; i++)
		n->out[i] = (struct outcome){ .step = STEP_NOT_RUN };
	pid = spawn(noted_creator, n);
	ASSERT_LT(0, pid);
	reap(&n->out[CREATOR], pid);
	for (i = CREATOR; i < PROC_COUNT; i++)
		EXPECT_TRUE(n->out[i].step == STEP_DONE && !n->out[i].err &&
			    !n->out[i].fault) {
			TH_LOG("%s (%s): %s",
			       i == CREATOR ? "under the noted profile" :
			       "under the user's profile", FIX_ALLOWED,
			       outcome_str(&n->out[i], g, sizeof(g)));
		}
}

static void noted_profiles(struct ctx *c, const char *const name[2],
			   const char *label[2])
{
	struct prof p;
	int i;

	for (i = 0; i < 2; i++) {
		p = (struct prof){ .name = name[i] };
		label[i] = fix_profile(c, &p,
				       "  unix,\n  file,\n  change_profile,\n");
	}
}

/*
 * The noted profile, made big: with "file," an allow rule would add
 * nothing to the DFA; an audit one has accept states of its own.
 */
static void big_noted(struct __test_metadata *_metadata, const char *name)
{
	struct prof big = { };
	char err[4096];
	int ret;

	/* Compiled by the first test that uses it (aa_policy_compile()). */
	rules(&big, "  unix,\n  file,\n  change_profile,\n  audit /**a%.*s r,\n",
	      NOTED_WILDCARDS, "????????????????????????????????");
	ASSERT_FALSE(big.overflow);
	ret = aa_policy_compile(policy, env.parser, AA_ABI_NEW, name, big.text,
				NOTED_BLOB, err, sizeof(err));
	ASSERT_EQ(0, ret) TH_LOG("compiling %s: %s", NOTED_BLOB, err);
}

/*
 * ROUNDS times: the big noted profile loaded, a reproducer that ends as
 * @end, the profile removed.  Then the kernel memory must come back.
 */
static void noted_freed(struct ctx *c, enum noted_end end, const char *fix)
{
	static const char *const name[] = { "noted_peer", "noted_user" };
	struct __test_metadata *_metadata = c->metadata;
	struct noted n = { .end = end };
	long before, loaded = 0, left = 0;
	int r, ret, ms;

	noted_profiles(c, name, n.profile);
	if (c->collect)
		return;
	c->subs++;
	big_noted(_metadata, n.profile[0]);
	n.out = shared_alloc(PROC_COUNT * sizeof(*n.out));
	ASSERT_NE(NULL, n.out);
	/* Loaded small with the others, or removed by the last test. */
	ret = aa_policy_remove(policy, n.profile[0]);
	ASSERT_TRUE(!ret || ret == -ENOENT) {
		TH_LOG("removing %s: %s", n.profile[0], strerror(-ret));
	}
	before = kernel_kib();
	ASSERT_LE(0, before) TH_LOG("/proc/meminfo: %s", strerror(-before));
	for (r = 0; r < NOTED_ROUNDS; r++) {
		ret = aa_policy_replace(policy, NOTED_BLOB);
		ASSERT_EQ(0, ret) TH_LOG("loading %s: %s", NOTED_BLOB,
					 strerror(-ret));
		if (!r)
			loaded = kernel_kib() - before;
		noted_run(_metadata, &n);
		ret = aa_policy_remove(policy, n.profile[0]);
		ASSERT_EQ(0, ret) TH_LOG("removing %s: %s", n.profile[0],
					 strerror(-ret));
	}
	for (ms = 0; ms <= NOTED_FREE_MS; ms += 50) {
		left = kernel_kib() - before;
		if (left < NOTED_ROUNDS * loaded / 4)
			break;
		usleep(50 * 1000);
	}
	EXPECT_GT(NOTED_ROUNDS * loaded / 4, left) {
		TH_LOG("%d profiles of %ld KiB used and removed: %ld KiB left after %d ms",
		       NOTED_ROUNDS, loaded, left, NOTED_FREE_MS);
		TH_LOG("the kernel lacks %s", fix);
	}
	shared_free(n.out, PROC_COUNT * sizeof(*n.out));
}

static void check_noted_put(struct ctx *c)
{
	noted_freed(c, NOTED_CLOSE, "4483efe4f215");
}

static void check_noted_replaced(struct ctx *c)
{
	noted_freed(c, NOTED_READ_BACK,
		    "a put of the label update_sk_ctx() replaces (open)");
}

/*
 * 6d25e7b47616: update_sk_ctx() noted the peer label without a
 * reference of its own, and aa_sk_free_security() put it: a socket
 * closed after noting one put a reference too many.  The noted
 * profile's label reaches zero while the profile is still loaded; its
 * removal puts it once more (a refcount_t warning, KASAN: only a debug
 * kernel reports them).
 */
static void check_noted_refcount(struct ctx *c)
{
	static const char *const name[] = { "refcount_noted", "refcount_user" };
	struct __test_metadata *_metadata = c->metadata;
	struct noted n = { .end = NOTED_CLOSE };
	char splat[256];
	struct klog k;
	int ret, ms;

	noted_profiles(c, name, n.profile);
	if (c->collect)
		return;
	c->subs++;
	n.out = shared_alloc(PROC_COUNT * sizeof(*n.out));
	ASSERT_NE(NULL, n.out);
	klog_start(&k);
	noted_run(_metadata, &n);
	ret = aa_policy_remove(policy, n.profile[0]);
	EXPECT_EQ(0, ret) TH_LOG("removing %s: %s", n.profile[0],
				 strerror(-ret));
	/*
	 * The put that underflows may be the last one, made when the reaped
	 * processes' credentials are freed: an RCU callback, which could run
	 * after this test and be reported by the next.  It is waited for.
	 */
	for (ms = 0; ms < NOTED_FREE_MS &&
	     !klog_report(&k, splat, sizeof(splat)); ms += 50)
		usleep(50 * 1000);
	klog_stop(&k);
	shared_free(n.out, PROC_COUNT * sizeof(*n.out));
}
