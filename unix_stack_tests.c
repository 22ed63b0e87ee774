// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX sockets carried onto a stack: a socketpair made and
 * used under profile A, then used under A//&B, the label a confined
 * manager gives what it starts (a container's profile stacked onto the
 * runtime's, aa-exec -p 'A//&B', nested containers).  B is put on by
 * aa_stack_profile(), by change_profile to "&B", or at an exec into the
 * stack (aa_stack_onexec()); or a task under the stack receives the
 * socket with SCM_RIGHTS; or the peer's process stacks it.
 *
 * The rule: a stack only adds profiles, and every profile of a label must
 * allow an operation, so under A//&B whatever B refuses is refused, what
 * A allowed before included.  aa_file_perm() may skip revalidating a file
 * only when the task's label is a subset of the label cached on it
 * (__aa_subj_label_is_cached(label, flabel)): A//&B is not a subset of A.
 * For a unix socket __unix_needs_revalidation() asks it the other way
 * round, whether the socket's label is a subset of the task's, and A
 * always is a subset of A//&B, so B is never asked: on 7.2 and 7.3 every
 * file operation the socket already allowed under A (a read, a stream or
 * seqpacket write, a lock taken once) goes on under A//&B unchecked and
 * unaudited.  A dgram write is still refused: unix_may_send() asks every
 * profile of the task's label.  6.12 has no network_v9/af_unix: these
 * tests SKIP there.
 *
 * The other subset tests on these paths (7.2's file.c and af_unix.c):
 * - aa_file_perm()'s test for every file, __file_path_perm() and
 *   __file_sock_perm() ask the task's label against the file's: right.
 * - update_sk_ctx() merges the task's label into the socket's unless the
 *   task's is a subset of it: right; the stacked rows below reach it
 *   (B allowing everything: the socket then caches A//&B).
 * - aa_unix_file_perm(), after revalidating a socket whose peer is not
 *   on a path, merges the task's label into the peer's ctx->peer unless
 *   the *peer's* label is a subset of the *task's*, the same shape as the
 *   bug: a peer labelled A is not told that the task is now A//&B.  That
 *   changes what SO_PEERSEC reports to the peer, and whether the peer's
 *   next operation is revalidated (ctx->peer against peer_lastupdate),
 *   which would ask the pair of labels the task's revalidation has just
 *   allowed both ways (xcheck()): no decision can differ, so no row here
 *   can fail on it.  The report of the bug asks about it.
 * - update_sk_ctx()'s peer test (plabel against ctx->peer) compares two
 *   peer labels, not the task's: a stack of the task does not enter it.
 *
 * The rows: what the user of end 0 is refused under the stack, by the
 * socket's kind (a socketpair, or both ends on paths, which the NEW ABI
 * leaves to file rules) and by what B is, whatever the operation and
 * whether A did it first.  B may have no unix rule, or unix rules none
 * of which is for this peer; or the stack may be of two steps, A//&B
 * where B allows everything and the end is used, then A//&B//&C: the
 * socket then caches a stack, A//&B, not the label it was made under.
 * Each row runs read(), write(), a shared and an exclusive flock(), each
 * after A did nothing on the end, did that operation, or did them all
 * (two steps: A nothing, A//&B them all).
 * The socketpair rows of B without unix rules and of B allowing all also
 * run readv() and writev(), splice() from and to a pipe, and (test
 * io_uring) io_uring's WRITE and READ.  sendfile() into a socket and
 * fcntl() locks reach aa_file_perm() too, and are not run here.  Refused
 * in place is EACCES; at an exec the kernel revokes the inherited end
 * instead, and drops a received one.
 */

#include "unix_handoff.h"
#include "unix_test.h"

/* What B is. */
enum stack_b {
	B_NO_UNIX,	/* no unix rule: A's file access only */
	B_NO_LOCK,	/* no unix rule, and no k in the run directory */
	B_ALL,		/* every unix permission, as A */
	B_SAME,		/* A itself: the label stays A */
	/*
	 * Unix rules, none for this peer: the NEW ABI's name another peer
	 * label, the OLD ABI's (which names no peer) the other socket types.
	 */
	B_OTHER_PEER,
	/*
	 * A's rules under another name (a B that may stack C), the end used
	 * under A//&B, then C: B_NO_UNIX's rules.
	 */
	B_ALL_THEN_C,
};

struct stack_row {
	enum handoff_shape shape;
	enum stack_b b;
	const char *desc;
	bool more_ops;		/* also runs stack_more_ops[] */
	/*
	 * HANDOFF_WARM() of each operation refused, by ABI, with the clauses
	 * of SEMANTICS that say so; on an open question, what the kernel is
	 * known to refuse instead (expect_policy()).
	 */
	struct handoff_expect e;
};

#define OLD(r, reason) .e.refused[AA_ABI_OLD] = (r), .e.why[AA_ABI_OLD] = (reason)
#define NEW(r, reason) .e.refused[AA_ABI_NEW] = (r), .e.why[AA_ABI_NEW] = (reason)
#define OLDQ(r, reason, q, k) OLD(r, reason), .e.question[AA_ABI_OLD] = (q), \
	.e.known[AA_ABI_OLD] = (k)
/* Every write and every read: each is asked as write() or read() is. */
#define W (HANDOFF_WARM(HOP_WRITE) | HANDOFF_WARM(HOP_WRITEV) | \
	   HANDOFF_WARM(HOP_SPLICE_TO) | HANDOFF_WARM(HOP_URING_WRITE))
#define R (HANDOFF_WARM(HOP_READ) | HANDOFF_WARM(HOP_READV) | \
	   HANDOFF_WARM(HOP_SPLICE_FROM) | HANDOFF_WARM(HOP_URING_READ))
#define SH HANDOFF_WARM(HOP_FLOCK_SH)
#define EX HANDOFF_WARM(HOP_FLOCK_EX)
#define ALLOWED 0

/* clang-format off */
static const struct stack_row stack_rows[] = {
	/* socketpair(): neither end on a path. */
	{ HSHAPE_PAIR, B_NO_UNIX, "B without unix rules", .more_ops = true,
	  OLD(W | R | SH | EX, "[label] [old]: B has no network unix"),
	  NEW(W | R | SH | EX, "[label] [perm]: B allows no unix op") },
	{ HSHAPE_PAIR, B_ALL, "B allowing every unix op", .more_ops = true,
	  OLD(ALLOWED, "[label]: A and B both allow it"),
	  NEW(ALLOWED, "[label]: A and B both allow it") },
	/*
	 * B has unix rules, but none allows talking to end 1's label, A: a
	 * profile that mediates unix at all is asked as one without rules.
	 */
	{ HSHAPE_PAIR, B_OTHER_PEER, "B's unix rules for another peer",
	  OLD(W | R | SH | EX, "[label] [old]: B's network unix rules are for other types"),
	  NEW(W | R | SH | EX, "[label] [peer]: B's unix rules name another peer label") },
	/*
	 * Two stacks: what A//&B was allowed, and cached on the socket, is
	 * allowed by A and B alone; C, stacked on top, must be asked too.
	 */
	{ HSHAPE_PAIR, B_ALL_THEN_C, "B allowing all and used so, then C without unix rules",
	  OLD(W | R | SH | EX, "[label] [old]: C has no network unix, whatever A//&B did"),
	  NEW(W | R | SH | EX, "[label] [perm]: C allows no unix op, whatever A//&B did") },
	{ HSHAPE_PAIR, B_SAME, "A stacked onto A",
	  OLD(ALLOWED, "[label]: A//&A is A"),
	  NEW(ALLOWED, "[label]: A//&A is A") },

	/* Both ends bound to paths in the run directory, connected. */
	{ HSHAPE_BOUND, B_NO_UNIX, "B without unix rules",
	  /*
	   * The kernel asks B's network rule of an end on a path too, but a
	   * shared lock asks a lock alone, which no network permission
	   * stands for: nothing of B's is asked, where a socketpair's end is
	   * refused it (Q3).
	   */
	  OLDQ(W | R | SH | EX, "[label] [old]: B has no network unix; no path is seen",
	       "Q3", W | R | EX),
	  NEW(ALLOWED, "[path]: B's file rules allow the run directory") },
	/* The same without k: whether the file rule k decides a lock. */
	{ HSHAPE_BOUND, B_NO_LOCK, "B without unix rules or k",
	  OLDQ(W | R | SH | EX, "[label] [old]: B has no network unix; no path is seen",
	       "Q3", W | R | EX),
	  NEW(SH | EX, "[path] [file]: B's file rules allow rw but no k") },
	{ HSHAPE_BOUND, B_ALL, "B allowing every unix op",
	  OLD(ALLOWED, "[label]: A and B both allow it"),
	  NEW(ALLOWED, "[label]: A and B both allow it") },
};

/* clang-format on */

/* What A did on end 0 before the stack. */
static const struct {
	const char *desc;
	bool op;		/* the operation the user then does */
	unsigned int also;	/* more ops, as HANDOFF_WARM() bits */
} stack_warm[] = {
	{ "unused under A", false, 0 },
	{ "used so under A", true, 0 },
	{ "used every way under A", true,
	  HANDOFF_WARM(HOP_WRITE) | HANDOFF_WARM(HOP_READ) |
	  HANDOFF_WARM(HOP_FLOCK_SH) | HANDOFF_WARM(HOP_FLOCK_EX) },
};

static const enum handoff_op stack_ops[] = {
	HOP_WRITE, HOP_READ, HOP_FLOCK_SH, HOP_FLOCK_EX,
};

/*
 * The other ways to read and write a socket, each through rw_verify_area()
 * to aa_file_perm() as read() and write() are.  They run on the rows
 * marked more_ops, one refusing and one allowing, once: after A used the
 * end every way and by the op itself, so that the socket's cache is all
 * that can spare the check, however the end reaches the stack.  That
 * keeps the collection, which CI runs eight times under TCG, from growing
 * by the whole matrix.  io_uring's have a test of their own, which SKIPs
 * without liburing or io_uring.
 */
static const enum handoff_op stack_more_ops[] = {
	HOP_WRITEV, HOP_READV, HOP_SPLICE_TO, HOP_SPLICE_FROM,
};

static const enum handoff_op stack_uring_ops[] = {
	HOP_URING_WRITE, HOP_URING_READ,
};

/* What A does on end 0 before the stack, for those ops: stack_warm[]. */
#define STACK_MORE_WARM 2

/* How the test under way gets onto the stack; the profiles are shared. */
static struct {
	enum handoff_how how;
	enum handoff_onto onto;
	bool uring;		/* only io_uring's ops, on more_ops rows */
} stack_params;

static const char *stack_way_name(enum handoff_how how, enum handoff_onto onto)
{
	if (how == HANDOFF_EXEC)
		return "an exec into the stack (aa_stack_onexec)";
	if (how == HANDOFF_FORK)
		return "the peer's process stacking it";
	if (how == HANDOFF_PASS)
		return "SCM_RIGHTS to a task under the stack";
	return onto == ONTO_STACK ? "aa_stack_profile" : "change_profile to &B";
}

static struct outcome stack_want(unsigned int refused,
				 const struct handoff *h)
{
	bool moved = h->how == HANDOFF_EXEC || h->how == HANDOFF_PASS;

	/*
	 * Inherited or received, the end is asked for read and write: an
	 * inherited end B may not have is revoked, a received one dropped
	 * (MSG_CTRUNC), not refused.
	 */
	if (moved && (refused & (W | R)))
		return (struct outcome){
			.step = h->how == HANDOFF_EXEC ? STEP_EXEC : STEP_RECV_FD,
			.fault = FAULT_NOT_INSTALLED };
	if (!(refused & HANDOFF_WARM(h->op)))
		return (struct outcome){ .step = STEP_DONE };
	return (struct outcome){ .step = STEP_OP, .err = EACCES };
}

/* The table's shorthands: the next area included may want the names. */
#undef OLD
#undef NEW
#undef OLDQ
#undef W
#undef R
#undef SH
#undef EX
#undef ALLOWED

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The label "A//&B//&C" of @p's three profiles, registered, or NULL. */
static const char *stack3_of(struct ctx *c, const struct prof *const p[3],
			     char *buf, size_t len)
{
	const char *n[3];
	size_t i;

	for (i = 0; i < 3; i++) {
		n[i] = registered(c, p[i]);
		if (!n[i])
			return NULL;
	}
	qsort(n, 3, sizeof(n[0]), name_cmp);
	snprintf(buf, len, "%s//&%s//&%s", n[0], n[1], n[2]);
	return buf;
}

/* One run of @h, @op after stack_warm[@w], asserted. */
static void stack_op(struct ctx *c, const struct stack_row *row,
		     struct handoff *h, size_t w, enum handoff_op op)
{
	struct __test_metadata *_metadata = c->metadata;
	enum aa_abi abi = c->v->abi;
	struct outcome got;
	char desc[512];
	int ret;

	h->op = op;
	h->warm = stack_warm[w].also | (stack_warm[w].op ? HANDOFF_WARM(op) : 0);
	ret = handoff_run(h, &got);
	unlink(h->path[0]);
	unlink(h->path[1]);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: cannot run: %s", row->desc, strerror(-ret));
	}
	snprintf(desc, sizeof(desc), "%s, %s, %s %s, by %s (%s)",
		 handoff_shape_name(h->shape), row->desc, handoff_op_name(op),
		 stack_warm[w].desc, stack_way_name(h->how, h->onto),
		 row->e.why[abi]);
	expect_policy(_metadata, desc, "the user",
		      stack_want(row->e.refused[abi], h), row->e.question[abi],
		      stack_want(row->e.known[abi], h), &got);
}

/*
 * @a's end used under @b; for B_ALL_THEN_C @b is C and the end is first
 * used under A//&@mid, every way.
 */
static void stack_sub(struct ctx *c, const struct stack_row *row,
		      const struct prof *a, const struct prof *b,
		      const struct prof *mid)
{
	struct __test_metadata *_metadata = c->metadata;
	char label[3 * NAME_MAX_LEN + 8], mid_label[2 * NAME_MAX_LEN + 4];
	char names[2][NAME_MAX_LEN], path[2][PATH_MAX];
	const struct prof *const three[3] = { a, mid, b };
	struct handoff h = {
		.how = stack_params.how,
		.onto = stack_params.onto,
		.shape = row->shape,
		.path = { path[0], path[1] },
		.type = c->v->type,
		.creator = registered(c, a),
		.user = registered(c, b),
		.label = row->b == B_SAME ? registered(c, a) :
			 mid ? stack3_of(c, three, label, sizeof(label)) :
			 stack_of(c, a, b, label, sizeof(label)),
		.mid = registered(c, mid),
		.mid_label = mid ? stack_of(c, a, mid, mid_label,
					    sizeof(mid_label)) : NULL,
		.mid_warm = HANDOFF_WARM(HOP_WRITE) | HANDOFF_WARM(HOP_READ) |
			    HANDOFF_WARM(HOP_FLOCK_SH) |
			    HANDOFF_WARM(HOP_FLOCK_EX),
		/* The peer stacks: its creator talks on with file ops. */
		.creator_file_ops = stack_params.how == HANDOFF_FORK,
	};
	size_t w, o;

	if (c->collect) {
		if (!h.creator || !h.user || (mid && !h.mid))
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_FALSE(!h.creator || !h.user || !h.label ||
		     (mid && !h.mid_label));
	c->subs++;
	run_name(names[0], sizeof(names[0]), "end0");
	run_name(names[1], sizeof(names[1]), "end1");
	for (w = 0; w < 2; w++)
		snprintf(path[w], sizeof(path[w]), "%s/%s",
			 aa_policy_dir(policy), names[w]);
	for (o = 0; stack_params.uring && o < ARRAY_SIZE(stack_uring_ops); o++)
		stack_op(c, row, &h, STACK_MORE_WARM, stack_uring_ops[o]);
	if (stack_params.uring)
		return;
	/*
	 * A stack of two steps uses the end every way under A//&B, which
	 * makes what A did before it moot: one pass, A not using it.
	 */
	for (w = 0; w < (mid ? 1 : ARRAY_SIZE(stack_warm)); w++)
		for (o = 0; o < ARRAY_SIZE(stack_ops); o++)
			stack_op(c, row, &h, w, stack_ops[o]);
	for (o = 0; row->more_ops && o < ARRAY_SIZE(stack_more_ops); o++)
		stack_op(c, row, &h, STACK_MORE_WARM, stack_more_ops[o]);
}

/* The OLD ABI's unix rules of B_OTHER_PEER: every type but @type. */
static void other_types(struct prof *p, int type)
{
	static const struct {
		int type;
		const char *name;
	} types[] = {
		{ SOCK_STREAM, "stream" },
		{ SOCK_DGRAM, "dgram" },
		{ SOCK_SEQPACKET, "seqpacket" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].type != type)
			prof_add(p, "  network unix %s,\n", types[i].name);
}

static void check_stack(struct ctx *c)
{
	struct prof a = { }, no_unix = { }, no_lock = { }, all = { };
	/* Named (so not A), once for each ABI's policy. */
	struct prof other_peer = { }, mid = {
		.name = c->v->abi == AA_ABI_NEW ? "stack_mid_new" : "stack_mid_old",
	};
	const struct prof *b;
	char peer[NAME_MAX_LEN];
	size_t i;

	/*
	 * A changes profile, writing its attr file, and an exec keeps it
	 * (ix) under the stack; every profile of a stack maps this program
	 * and may lock in the run directory, where the ends on paths are.
	 */
	lacking(&a, c->v->abi, NULL);
	prof_add(&a, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	prof_add(&a, "  /** rmix,\n  %s/* k,\n", aa_policy_dir(policy));
	/* The B of a stack of two steps: under A//&B, C is put on too. */
	lacking(&mid, c->v->abi, NULL);
	prof_add(&mid, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	prof_add(&mid, "  /** rmix,\n  %s/* k,\n", aa_policy_dir(policy));
	rules(&no_unix, "  /** rm,\n  %s/* k,\n", aa_policy_dir(policy));
	rules(&no_lock, "  /** rm,\n");
	lacking(&all, c->v->abi, NULL);
	prof_add(&all, "  /** rm,\n  %s/* k,\n", aa_policy_dir(policy));
	/* A peer label no process of the run has. */
	run_name(peer, sizeof(peer), "stack_peer");
	rules(&other_peer, "  /** rm,\n  %s/* k,\n", aa_policy_dir(policy));
	if (c->v->abi == AA_ABI_NEW)
		prof_add(&other_peer,
			 "%s  unix (connect, send, receive) peer=(label=%s),\n",
			 PEER_LOCAL_RULES, peer);
	else
		other_types(&other_peer, c->v->type);
	for (i = 0; i < ARRAY_SIZE(stack_rows); i++) {
		switch (stack_rows[i].b) {
		case B_NO_UNIX:
		case B_ALL_THEN_C:
			b = &no_unix;
			break;
		case B_NO_LOCK:
			b = &no_lock;
			break;
		case B_ALL:
			b = &all;
			break;
		case B_OTHER_PEER:
			b = &other_peer;
			break;
		default:
			b = &a;
		}
		if (stack_params.uring && !stack_rows[i].more_ops && !c->collect)
			continue;
		stack_sub(c, &stack_rows[i], &a, b,
			  stack_rows[i].b == B_ALL_THEN_C ? &mid : NULL);
	}
}

/* clang-format off */
FIXTURE(stack_handoff) {};

FIXTURE_VARIANT(stack_handoff) {
	enum handoff_how how;
	enum handoff_onto onto;
	int type;
};

FIXTURE_SETUP(stack_handoff) {}

FIXTURE_TEARDOWN(stack_handoff) {}

FIXTURE_VARIANT_ADD(stack_handoff, aa_stack_profile_stream) {
	.how = HANDOFF_CHANGE, .onto = ONTO_STACK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, aa_stack_profile_dgram) {
	.how = HANDOFF_CHANGE, .onto = ONTO_STACK, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, aa_stack_profile_seqpacket) {
	.how = HANDOFF_CHANGE, .onto = ONTO_STACK, .type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(stack_handoff, change_profile_stream) {
	.how = HANDOFF_CHANGE, .onto = ONTO_CHANGE_STACK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, change_profile_dgram) {
	.how = HANDOFF_CHANGE, .onto = ONTO_CHANGE_STACK, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, change_profile_seqpacket) {
	.how = HANDOFF_CHANGE, .onto = ONTO_CHANGE_STACK, .type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(stack_handoff, exec_stream) {
	.how = HANDOFF_EXEC, .onto = ONTO_STACK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, exec_dgram) {
	.how = HANDOFF_EXEC, .onto = ONTO_STACK, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, exec_seqpacket) {
	.how = HANDOFF_EXEC, .onto = ONTO_STACK, .type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(stack_handoff, scm_rights_stream) {
	.how = HANDOFF_PASS, .onto = ONTO_STACK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, scm_rights_dgram) {
	.how = HANDOFF_PASS, .onto = ONTO_STACK, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, scm_rights_seqpacket) {
	.how = HANDOFF_PASS, .onto = ONTO_STACK, .type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(stack_handoff, peer_stream) {
	.how = HANDOFF_FORK, .onto = ONTO_STACK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, peer_dgram) {
	.how = HANDOFF_FORK, .onto = ONTO_STACK, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(stack_handoff, peer_seqpacket) {
	.how = HANDOFF_FORK, .onto = ONTO_STACK, .type = SOCK_SEQPACKET,
};

/* clang-format on */

static void run_stack(struct __test_metadata *_metadata,
		      enum handoff_how how, enum handoff_onto onto, int type,
		      enum aa_abi abi, bool uring)
{
	stack_params.how = how;
	stack_params.onto = onto;
	stack_params.uring = uring;
	run_handed(_metadata, type, abi, uring, check_stack);
}

TEST_F_TIMEOUT(stack_handoff, old_abi, HANDOFF_TEST_TIMEOUT)
{
	run_stack(_metadata, variant->how, variant->onto, variant->type,
		  AA_ABI_OLD, false);
}

TEST_F_TIMEOUT(stack_handoff, new_abi, HANDOFF_TEST_TIMEOUT)
{
	run_stack(_metadata, variant->how, variant->onto, variant->type,
		  AA_ABI_NEW, false);
}

/*
 * io_uring's WRITE and READ, on the more_ops rows.  The NEW ABI's rules
 * only: the ABI changes what B's rules say, which read() and write() ask
 * under both, not the path these ops take to aa_file_perm().
 */
TEST_F_TIMEOUT(stack_handoff, io_uring, HANDOFF_TEST_TIMEOUT)
{
	run_stack(_metadata, variant->how, variant->onto, variant->type,
		  AA_ABI_NEW, true);
}

static check_fn *const stack_checks_of_abi[] = {
	check_stack,
};

/* What the stack area registers and runs, by ABI. */
static const struct checks stack_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { stack_checks_of_abi, ARRAY_SIZE(stack_checks_of_abi) },
	[AA_ABI_NEW] = { stack_checks_of_abi, ARRAY_SIZE(stack_checks_of_abi) },
};
