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
 * whether A did it first.  Each row runs read(), write(), a shared and
 * an exclusive flock(), each after A did nothing on the end, did that
 * operation, or did them all.  readv() and writev(), splice() and
 * sendfile(), io_uring's READ and WRITE and fcntl() locks reach
 * aa_file_perm() too, and are not run here.  Refused in place is EACCES; at an exec the
 * kernel revokes the inherited end instead, and drops a received one.
 */

#include "unix_handoff.h"
#include "unix_test.h"

/* What B is. */
enum stack_b {
	B_NO_UNIX,	/* no unix rule: A's file access only */
	B_NO_LOCK,	/* no unix rule, and no k in the run directory */
	B_ALL,		/* every unix permission, as A */
	B_SAME,		/* A itself: the label stays A */
};

struct stack_row {
	enum handoff_shape shape;
	enum stack_b b;
	const char *desc;
	/* HANDOFF_WARM() of each operation refused, by ABI. */
	unsigned int refused[AA_ABI_COUNT];
	const char *why[AA_ABI_COUNT];
};

#define OLD(r, reason) .refused[AA_ABI_OLD] = (r), .why[AA_ABI_OLD] = (reason)
#define NEW(r, reason) .refused[AA_ABI_NEW] = (r), .why[AA_ABI_NEW] = (reason)
#define W HANDOFF_WARM(HOP_WRITE)
#define R HANDOFF_WARM(HOP_READ)
#define SH HANDOFF_WARM(HOP_FLOCK_SH)
#define EX HANDOFF_WARM(HOP_FLOCK_EX)
#define ALLOWED 0

/* clang-format off */
static const struct stack_row stack_rows[] = {
	/* socketpair(): neither end on a path. */
	{ HSHAPE_PAIR, B_NO_UNIX, "B without unix rules",
	  OLD(W | R | SH | EX, "every profile of A//&B must allow it: B has no network unix"),
	  NEW(W | R | SH | EX, "every profile of A//&B must allow it: B allows no unix op") },
	{ HSHAPE_PAIR, B_ALL, "B allowing every unix op",
	  OLD(ALLOWED, "A and B both allow it: revalidated and allowed"),
	  NEW(ALLOWED, "A and B both allow it: revalidated and allowed") },
	{ HSHAPE_PAIR, B_SAME, "A stacked onto A",
	  OLD(ALLOWED, "the label stays A, cached on the socket"),
	  NEW(ALLOWED, "the label stays A, cached on the socket") },

	/* Both ends bound to paths in the run directory, connected. */
	{ HSHAPE_BOUND, B_NO_UNIX, "B without unix rules",
	  /*
	   * The OLD ABI asks aa_profile_af_sk_perm() of an end on a path too,
	   * no file rule: a shared lock asks a lock alone, which no network
	   * permission stands for, so nothing of B's is asked.
	   */
	  OLD(W | R | EX, "no network unix in B, which decides read, write and an exclusive lock"),
	  NEW(ALLOWED, "an end on a path is decided by file rules: B's allow the run directory") },
	/* The same without k: whether the file rule k decides a lock. */
	{ HSHAPE_BOUND, B_NO_LOCK, "B without unix rules or k",
	  OLD(W | R | EX, "no network unix in B; no file rule is asked of an end, k or not"),
	  NEW(SH | EX, "an end on a path is decided by file rules: B's allow rw but no lock") },
	{ HSHAPE_BOUND, B_ALL, "B allowing every unix op",
	  OLD(ALLOWED, "A and B both allow it: revalidated and allowed"),
	  NEW(ALLOWED, "A and B both allow it: revalidated and allowed") },
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

/* How the test under way gets onto the stack; the profiles are shared. */
static struct {
	enum handoff_how how;
	enum handoff_onto onto;
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

static struct outcome stack_want(const struct stack_row *row,
				 const struct handoff *h, enum aa_abi abi)
{
	unsigned int refused = row->refused[abi];
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
#undef W
#undef R
#undef SH
#undef EX
#undef ALLOWED

static void stack_sub(struct ctx *c, const struct stack_row *row,
		      const struct prof *a, const struct prof *b)
{
	struct __test_metadata *_metadata = c->metadata;
	char label[2 * NAME_MAX_LEN + 4], desc[512], path[2][PATH_MAX];
	char names[2][NAME_MAX_LEN];
	struct handoff h = {
		.how = stack_params.how,
		.onto = stack_params.onto,
		.shape = row->shape,
		.path = { path[0], path[1] },
		.type = c->v->type,
		.creator = registered(c, a),
		.user = registered(c, b),
		.label = row->b == B_SAME ? registered(c, a) :
			 stack_of(c, a, b, label, sizeof(label)),
		/* The peer stacks: its creator talks on with file ops. */
		.creator_file_ops = stack_params.how == HANDOFF_FORK,
	};
	struct outcome want, got;
	size_t w, o;
	int ret;

	if (c->collect) {
		if (!h.creator || !h.user)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_FALSE(!h.creator || !h.user || !h.label);
	c->subs++;
	run_name(names[0], sizeof(names[0]), "end0");
	run_name(names[1], sizeof(names[1]), "end1");
	for (w = 0; w < 2; w++)
		snprintf(path[w], sizeof(path[w]), "%s/%s",
			 aa_policy_dir(policy), names[w]);
	for (w = 0; w < ARRAY_SIZE(stack_warm); w++) {
		for (o = 0; o < ARRAY_SIZE(stack_ops); o++) {
			h.op = stack_ops[o];
			h.warm = stack_warm[w].also |
				 (stack_warm[w].op ? HANDOFF_WARM(h.op) : 0);
			ret = handoff_run(&h, &got);
			unlink(path[0]);
			unlink(path[1]);
			ASSERT_EQ(0, ret) {
				TH_LOG("%s: cannot run: %s", row->desc,
				       strerror(-ret));
			}
			want = stack_want(row, &h, c->v->abi);
			snprintf(desc, sizeof(desc), "%s, %s, %s %s, by %s (%s)",
				 handoff_shape_name(h.shape), row->desc,
				 handoff_op_name(h.op), stack_warm[w].desc,
				 stack_way_name(h.how, h.onto),
				 row->why[c->v->abi]);
			expect_outcome(_metadata, desc, "the user", want, &got);
		}
	}
}

static void check_stack(struct ctx *c)
{
	struct prof a = { }, no_unix = { }, no_lock = { }, all = { };
	size_t i;

	/*
	 * A changes profile, writing its attr file, and an exec keeps it
	 * (ix) under the stack; every profile of a stack maps this program
	 * and may lock in the run directory, where the ends on paths are.
	 */
	lacking(&a, c->v->abi, NULL);
	prof_add(&a, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	prof_add(&a, "  /** rmix,\n  %s/* k,\n", aa_policy_dir(policy));
	rules(&no_unix, "  /** rm,\n  %s/* k,\n", aa_policy_dir(policy));
	rules(&no_lock, "  /** rm,\n");
	lacking(&all, c->v->abi, NULL);
	prof_add(&all, "  /** rm,\n  %s/* k,\n", aa_policy_dir(policy));
	for (i = 0; i < ARRAY_SIZE(stack_rows); i++)
		stack_sub(c, &stack_rows[i], &a,
			  stack_rows[i].b == B_NO_UNIX ? &no_unix :
			  stack_rows[i].b == B_NO_LOCK ? &no_lock :
			  stack_rows[i].b == B_ALL ? &all : &a);
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
		      enum aa_abi abi)
{
	struct variant v = {
		.abi = abi,
		.kind = KIND_UNNAMED,
		.type = type,
	};

	/* Older kernels revalidate unix sockets as other sockets. */
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): the unix socket revalidation these cases expect");
	stack_params.how = how;
	stack_params.onto = onto;
	run_variant(_metadata, &v, true, check_stack);
}

TEST_F_TIMEOUT(stack_handoff, old_abi, HANDOFF_TEST_TIMEOUT)
{
	run_stack(_metadata, variant->how, variant->onto, variant->type,
		  AA_ABI_OLD);
}

TEST_F_TIMEOUT(stack_handoff, new_abi, HANDOFF_TEST_TIMEOUT)
{
	run_stack(_metadata, variant->how, variant->onto, variant->type,
		  AA_ABI_NEW);
}

static check_fn *const stack_checks_of_abi[] = {
	check_stack,
};

/* What the stack area registers and runs, by ABI. */
static const struct checks stack_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { stack_checks_of_abi, ARRAY_SIZE(stack_checks_of_abi) },
	[AA_ABI_NEW] = { stack_checks_of_abi, ARRAY_SIZE(stack_checks_of_abi) },
};
