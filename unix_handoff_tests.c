// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX sockets that change hands: a socket created under one
 * profile and used under another after change_profile, across fork(),
 * received with SCM_RIGHTS, and through io_uring, as systemd hands a
 * socket to a daemon or D-Bus passes one.  Listeners change hands too,
 * with a connection waiting, as in socket activation.
 *
 * Each row of handoff_rows below says what the policy means for the
 * user of the handed-over end, by the clauses of SEMANTICS: the user's
 * profile decides what it may do ([carry]), a socket created unconfined
 * is delegated ([deleg]), and under the NEW ABI a socket on a path is
 * decided by file rules on it ([path]).  Where the kernel (6.17+) is
 * known to decide otherwise and no source settles which is meant, the
 * row names the open question and what the kernel does:
 * - Q1: read() and write() under a label other than the socket's
 *   revalidate it (aa_file_perm() -> aa_unix_file_perm()); sendmsg()
 *   and recvmsg() do not, and a stream's messages are not mediated one
 *   by one.  Only datagram sends are, by write() as by sendmsg()
 *   (unix_may_send).
 * - Q2: that revalidation asks send and receive both ways between the
 *   user's label and the other end's (xcheck()), whichever the
 *   operation; an end on a path is revalidated on its own path alone;
 *   a listener's receipt checks nothing.
 * - Q3: OLD ABI, an end whose peer is on a path is not revalidated.
 */

#include "unix_handoff.h"
#include "unix_test.h"

enum lack {
	LACK_NONE,
	LACK_SEND,
	LACK_RECEIVE,
	LACK_ACCEPT,
	LACK_OWN_PATH,		/* deny rw on the path of the end used */
	LACK_PEER_PATH,		/* deny rw on the path of its peer */
};

/*
 * How the test under way hands the socket over (each test runs in a
 * process of its own); the profiles do not depend on it.
 */
static struct {
	enum handoff_how how;
	bool uring;		/* the operations through io_uring */
} handoff_params;

/* What the user of the handed-over end is refused. */
enum refusal {
	REFUSES_WRITE = 1 << 0,	/* write(): EACCES */
	REFUSES_READ = 1 << 1,	/* read(): EACCES */
	REFUSES_SEND = 1 << 2,	/* sendmsg(), io_uring SEND: EACCES */
	REFUSES_RECV = 1 << 3,	/* recvmsg(), io_uring RECV: EACCES */
	/* Datagram sends alone, by write(), sendmsg() or io_uring: EACCES. */
	REFUSES_DGRAM_SEND = 1 << 4,
	/*
	 * SCM_RIGHTS: the received descriptor is dropped (MSG_CTRUNC); exec:
	 * the inherited one is revoked.
	 */
	DROPS_RECEIPT = 1 << 5,
	/* The creator's own dgram send of the message to read: EACCES. */
	REFUSES_SEED = 1 << 6,
	REFUSES_ACCEPT = 1 << 7,	/* listeners: accept(), EACCES */
};

/*
 * One shape and one profile pair, and what the user is refused under
 * each ABI: what the policy means, with the clauses of SEMANTICS that
 * say so.  Where one of them is an open question, the row names it and
 * what the kernel is known to do instead (expect_policy()).  A socket
 * created unconfined is "delegated".
 */
struct handoff_row {
	enum handoff_shape shape;
	const char *desc;
	bool creator_confined;
	enum lack creator, user;
	struct handoff_expect e;
};

#define OLD(r, reason) .e.refused[AA_ABI_OLD] = (r), .e.why[AA_ABI_OLD] = (reason)
#define NEW(r, reason) .e.refused[AA_ABI_NEW] = (r), .e.why[AA_ABI_NEW] = (reason)
#define OLDQ(r, reason, q, k) OLD(r, reason), .e.question[AA_ABI_OLD] = (q), \
	.e.known[AA_ABI_OLD] = (k)
#define NEWQ(r, reason, q, k) NEW(r, reason), .e.question[AA_ABI_NEW] = (q), \
	.e.known[AA_ABI_NEW] = (k)
#define W REFUSES_WRITE
#define R REFUSES_READ
#define SEND REFUSES_SEND
#define RECV REFUSES_RECV
#define DSEND REFUSES_DGRAM_SEND
#define DROP DROPS_RECEIPT
#define SEED REFUSES_SEED
#define ACCEPT REFUSES_ACCEPT
#define CONFINED true
#define DELEGATED false
/* What the policy means for a user lacking send, or receive, here. */
#define NO_SEND (W | SEND | DROP)
#define NO_RECV (R | RECV | DROP)

/* clang-format off */
static const struct handoff_row handoff_rows[] = {
	/* socketpair(): neither end on a path. */
	{ HSHAPE_PAIR, "both allowed", CONFINED, LACK_NONE, LACK_NONE,
	  OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_PAIR, "user lacks send", CONFINED, LACK_NONE, LACK_SEND,
	  OLDQ(NO_SEND, "[send] [carry]", "Q1 Q2", W | R | DROP | DSEND),
	  NEWQ(NO_SEND, "[send] [carry]", "Q1 Q2", W | R | DROP | DSEND) },
	{ HSHAPE_PAIR, "user lacks receive", CONFINED, LACK_NONE, LACK_RECEIVE,
	  OLDQ(NO_RECV, "[receive] [carry]", "Q1 Q2", W | R | DROP),
	  NEWQ(NO_RECV, "[receive] [carry]", "Q1 Q2", W | R | DROP) },
	/* The creator's lack is its own: the seed message it sends. */
	{ HSHAPE_PAIR, "creator lacks send", CONFINED, LACK_SEND, LACK_NONE,
	  OLDQ(SEED, "[send] [label]", "Q2", W | R | DROP | SEED),
	  NEWQ(SEED, "[send] [label]", "Q2", W | R | DROP | SEED) },
	{ HSHAPE_PAIR, "unconfined creator, user lacks send", DELEGATED,
	  LACK_NONE, LACK_SEND,
	  OLD(DSEND, "[deleg]: not revalidated; a datagram send is asked"),
	  NEW(DSEND, "[deleg]: not revalidated; a datagram send is asked") },

	/* Both ends bound to paths. */
	{ HSHAPE_BOUND, "both allowed", CONFINED, LACK_NONE, LACK_NONE,
	  OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_BOUND, "user lacks send", CONFINED, LACK_NONE, LACK_SEND,
	  OLDQ(NO_SEND, "[old] [send] [carry]", "Q1", W | DROP | DSEND),
	  NEW(0, "[path]: file rules, not unix send") },
	{ HSHAPE_BOUND, "user lacks receive", CONFINED, LACK_NONE, LACK_RECEIVE,
	  OLDQ(NO_RECV, "[old] [receive] [carry]", "Q1", R | DROP),
	  NEW(0, "[path]: file rules, not unix receive") },
	{ HSHAPE_BOUND, "unconfined creator, user lacks send", DELEGATED,
	  LACK_NONE, LACK_SEND,
	  OLD(DSEND, "[deleg] [old]: a datagram send is asked"),
	  NEW(0, "[path]: file rules, not unix send") },
	{ HSHAPE_BOUND, "user denied its own path", CONFINED, LACK_NONE,
	  LACK_OWN_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEWQ(W | R | DROP | SEND | RECV, "[path] [carry]: its own path",
	       "Q1", W | R | DROP) },
	{ HSHAPE_BOUND, "user denied the peer's path", CONFINED, LACK_NONE,
	  LACK_PEER_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEWQ(W | R | DROP | SEND | RECV, "[path] [carry]: the peer's path",
	       "Q2", DSEND) },
	{ HSHAPE_BOUND, "unconfined creator, user denied the peer's path",
	  DELEGATED, LACK_NONE, LACK_PEER_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEW(DSEND, "[deleg] [path]: a datagram send to the peer's path") },

	/* An end not on a path, its peer bound to one. */
	{ HSHAPE_TO_BOUND, "both allowed", CONFINED, LACK_NONE, LACK_NONE,
	  OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_TO_BOUND, "user lacks send", CONFINED, LACK_NONE, LACK_SEND,
	  OLDQ(NO_SEND, "[old] [send] [carry]", "Q3", DSEND),
	  NEW(0, "[path]: the peer's path, by file rules") },
	{ HSHAPE_TO_BOUND, "user lacks receive", CONFINED, LACK_NONE,
	  LACK_RECEIVE,
	  OLDQ(NO_RECV, "[old] [receive] [carry]", "Q3", 0),
	  NEW(0, "[path]: the peer's path, by file rules") },
	{ HSHAPE_TO_BOUND, "unconfined creator, user lacks send", DELEGATED,
	  LACK_NONE, LACK_SEND,
	  OLD(DSEND, "[deleg] [old]: a datagram send is asked"),
	  NEW(0, "[path]: the peer's path, by file rules") },
	{ HSHAPE_TO_BOUND, "user denied its own path", CONFINED, LACK_NONE,
	  LACK_OWN_PATH,
	  OLD(0, "[old]: the end used has no path"),
	  NEW(0, "[path]: the end used has no path") },
	{ HSHAPE_TO_BOUND, "user denied the peer's path", CONFINED, LACK_NONE,
	  LACK_PEER_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEWQ(W | R | DROP | SEND | RECV, "[path] [carry]: the peer's path",
	       "Q1", W | R | DROP | DSEND) },
	{ HSHAPE_TO_BOUND, "unconfined creator, user denied the peer's path",
	  DELEGATED, LACK_NONE, LACK_PEER_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEW(DSEND, "[deleg] [path]: a datagram send to the peer's path") },

	/* An end on a path, its peer on an abstract name. */
	{ HSHAPE_FROM_BOUND, "both allowed", CONFINED, LACK_NONE, LACK_NONE,
	  OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_FROM_BOUND, "user lacks send", CONFINED, LACK_NONE, LACK_SEND,
	  OLDQ(NO_SEND, "[old] [send] [carry]", "Q1", W | DROP | DSEND),
	  NEW(0, "[path]: its own path, by file rules") },
	{ HSHAPE_FROM_BOUND, "user lacks receive", CONFINED, LACK_NONE,
	  LACK_RECEIVE,
	  OLDQ(NO_RECV, "[old] [receive] [carry]", "Q1", R | DROP),
	  NEW(0, "[path]: its own path, by file rules") },
	{ HSHAPE_FROM_BOUND, "unconfined creator, user lacks send", DELEGATED,
	  LACK_NONE, LACK_SEND,
	  OLD(DSEND, "[deleg] [old]: a datagram send is asked"),
	  NEW(0, "[path]: its own path, by file rules") },
	{ HSHAPE_FROM_BOUND, "user denied its own path", CONFINED, LACK_NONE,
	  LACK_OWN_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEWQ(W | R | DROP | SEND | RECV, "[path] [carry]: its own path",
	       "Q1", W | R | DROP | DSEND) },

	/* A listener on a path, a connection waiting: accept() is the op. */
	{ HSHAPE_LISTENER, "both allowed", CONFINED, LACK_NONE, LACK_NONE,
	  OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_LISTENER, "user lacks accept", CONFINED, LACK_NONE, LACK_ACCEPT,
	  OLD(ACCEPT, "[perm] [carry]"),
	  NEW(0, "[path]: file rules, and accept is none of them") },
	{ HSHAPE_LISTENER, "unconfined creator, user lacks accept", DELEGATED,
	  LACK_NONE, LACK_ACCEPT,
	  OLD(ACCEPT, "[perm] [carry]"),
	  NEW(0, "[path]: file rules, and accept is none of them") },
	{ HSHAPE_LISTENER, "user denied its own path", CONFINED, LACK_NONE,
	  LACK_OWN_PATH,
	  OLD(0, "[old]: no path is seen"),
	  NEWQ(DROP | ACCEPT, "[path] [carry]: a file it may not use", "Q2", 0) },

	/* A listener on an abstract name. */
	{ HSHAPE_ABSTRACT_LISTENER, "both allowed", CONFINED, LACK_NONE,
	  LACK_NONE, OLD(0, "[perm]"), NEW(0, "[perm]") },
	{ HSHAPE_ABSTRACT_LISTENER, "user lacks accept", CONFINED, LACK_NONE,
	  LACK_ACCEPT,
	  OLD(ACCEPT, "[perm] [carry]"), NEW(ACCEPT, "[perm] [carry]") },
	{ HSHAPE_ABSTRACT_LISTENER, "unconfined creator, user lacks accept",
	  DELEGATED, LACK_NONE, LACK_ACCEPT,
	  OLD(ACCEPT, "[perm] [carry]"), NEW(ACCEPT, "[perm] [carry]") },
};

/* clang-format on */
#undef OLD
#undef NEW
#undef OLDQ
#undef NEWQ
#undef W
#undef R
#undef SEND
#undef RECV
#undef DSEND
#undef DROP
#undef SEED
#undef ACCEPT
#undef CONFINED
#undef DELEGATED
#undef NO_SEND
#undef NO_RECV

/*
 * The outcome of @h's one operation when the user is refused @refused:
 * which refusal applies to which operation, and in the order the run
 * meets them.
 */
static struct outcome handoff_want(unsigned int refused,
				   const struct handoff *h)
{
	const struct outcome denied = { .step = STEP_OP, .err = EACCES };
	/* io_uring SEND and RECV meet the hooks sendmsg and recvmsg meet. */
	enum handoff_op op = h->op == HOP_URING_SEND ? HOP_SENDMSG :
			     h->op == HOP_URING_RECV ? HOP_RECVMSG : h->op;
	bool reads = op == HOP_READ || op == HOP_RECVMSG;
	bool dgram = h->type == SOCK_DGRAM;

	/* The creator queues the message to read before the handoff. */
	if (reads && dgram && (refused & REFUSES_SEED))
		return (struct outcome){ .step = STEP_SEED, .err = EACCES };
	if (h->how == HANDOFF_PASS && (refused & DROPS_RECEIPT))
		return (struct outcome){ .step = STEP_RECV_FD,
					 .fault = FAULT_NOT_INSTALLED };
	/* An exec revalidates what it inherits as a receipt does. */
	if (h->how == HANDOFF_EXEC && (refused & DROPS_RECEIPT))
		return (struct outcome){ .step = STEP_EXEC,
					 .fault = FAULT_NOT_INSTALLED };
	if (op == HOP_ACCEPT)
		return refused & REFUSES_ACCEPT ? denied :
		       (struct outcome){ .step = STEP_DONE };
	if ((op == HOP_WRITE && (refused & REFUSES_WRITE)) ||
	    (op == HOP_READ && (refused & REFUSES_READ)) ||
	    (op == HOP_SENDMSG && (refused & REFUSES_SEND)) ||
	    (op == HOP_RECVMSG && (refused & REFUSES_RECV)))
		return denied;
	if (!reads && dgram && (refused & REFUSES_DGRAM_SEND))
		return denied;
	return (struct outcome){ .step = STEP_DONE };
}

/* Rules for @lack; @paths are the ends' socket paths in the run dir. */
static void lack_rules(struct prof *p, enum aa_abi abi, enum lack lack,
		       char paths[2][NAME_MAX_LEN])
{
	static const char *const perm[] = {
		[LACK_SEND] = "send",
		[LACK_RECEIVE] = "receive",
		[LACK_ACCEPT] = "accept",
	};

	lacking(p, abi, (size_t)lack < ARRAY_SIZE(perm) ? perm[lack] : NULL);
	if (lack == LACK_OWN_PATH || lack == LACK_PEER_PATH)
		prof_add(p, "  deny %s/%s rw,\n", aa_policy_dir(policy),
			 paths[lack == LACK_OWN_PATH ? 0 : 1]);
}

static void handoff_sub(struct ctx *c, const struct handoff_row *hc)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct prof creator = { }, user = { };
	char names[2][NAME_MAX_LEN], path[2][PATH_MAX];
	struct handoff h = {
		.how = handoff_params.how,
		.shape = hc->shape,
		.type = v->type,
		.path = { path[0], path[1] },
	};
	struct outcome got;
	enum handoff_shape shape = hc->shape;
	enum handoff_op first, end;
	char desc[512];
	int i, ret;

	run_name(names[0], sizeof(names[0]), "end0");
	run_name(names[1], sizeof(names[1]), "end1");
	for (i = 0; i < 2; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s",
			 aa_policy_dir(policy), names[i]);
	lack_rules(&creator, v->abi, hc->creator, names);
	/* change_profile writes the task's attr file. */
	prof_add(&creator, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	lack_rules(&user, v->abi, hc->user, names);
	/*
	 * An exec into the user's profile maps this program and its
	 * libraries under it.  Sockets' paths are in the run directory,
	 * where the rules already allow rw.
	 */
	prof_add(&user, "  /** rm,\n");
	if (shape == HSHAPE_ABSTRACT_LISTENER)
		h.path[0] = names[0];
	if (shape == HSHAPE_FROM_BOUND)
		h.path[1] = names[1];
	h.creator = hc->creator_confined ? registered(c, &creator) : NULL;
	h.user = registered(c, &user);
	if (c->collect) {
		if ((hc->creator_confined && !h.creator) || !h.user)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	c->subs++;
	ASSERT_FALSE((hc->creator_confined && !h.creator) || !h.user);
	/* A listener is used once, by accept(). */
	first = handoff_shape_listens(shape) ? HOP_ACCEPT :
		handoff_params.uring ? HOP_URING_SEND : HOP_WRITE;
	end = handoff_shape_listens(shape) ? HOP_ACCEPT + 1 :
	      handoff_params.uring ? HOP_ACCEPT : HOP_URING_SEND;
	for (h.op = first; h.op < end; h.op++) {
		/*
		 * A received end on a path: its receipt is the check; what
		 * it does after is what it does after a change_profile.
		 */
		if (handoff_params.how == HANDOFF_PASS && !handoff_shape_listens(shape) &&
		    shape != HSHAPE_PAIR && h.op != HOP_WRITE &&
		    h.op != HOP_READ)
			continue;
		/* A creator that may write writes on the end first. */
		h.warm = hc->creator_confined && hc->creator == LACK_NONE &&
			 h.op == HOP_WRITE ? HANDOFF_WARM(HOP_WRITE) : 0;
		ret = handoff_run(&h, &got);
		unlink(path[0]);
		unlink(path[1]);
		ASSERT_EQ(0, ret) {
			TH_LOG("%s: cannot run: %s", hc->desc, strerror(-ret));
		}
		snprintf(desc, sizeof(desc), "%s, %s, %s after %s (%s)",
			 handoff_shape_name(shape), hc->desc,
			 handoff_op_name(h.op), handoff_how_name(handoff_params.how),
			 hc->e.why[v->abi]);
		expect_policy(_metadata, desc, "the user",
			      handoff_want(hc->e.refused[v->abi], &h),
			      hc->e.question[v->abi],
			      handoff_want(hc->e.known[v->abi], &h), &got);
	}
}

static bool shape_runs(const struct variant *v, enum handoff_shape shape)
{
	/* accept() by its system call; the socket systemd hands over. */
	if (handoff_shape_listens(shape))
		return conn_type(v->type) && !handoff_params.uring;
	/*
	 * io_uring reaches the socket hooks sendmsg() and recvmsg() reach:
	 * what the names of the ends change there is tested with those.  A
	 * fork() splits a socketpair: the labels compared are those of a
	 * change_profile, which runs every shape.  An exec with a datagram
	 * end joined by connect() oopses 7.2 (unix_fixes_test): socketpairs.
	 */
	return shape == HSHAPE_PAIR ||
	       !(handoff_params.uring || handoff_params.how == HANDOFF_FORK ||
		 handoff_params.how == HANDOFF_EXEC);
}

static void check_handoff(struct ctx *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(handoff_rows); i++)
		if (shape_runs(c->v, handoff_rows[i].shape))
			handoff_sub(c, &handoff_rows[i]);
}

FIXTURE(handoff) {};

FIXTURE_VARIANT(handoff) {
	enum handoff_how how;
	int type;
};

FIXTURE_SETUP(handoff) {}

FIXTURE_TEARDOWN(handoff) {}

FIXTURE_VARIANT_ADD(handoff, change_profile_stream) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, change_profile_dgram) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, change_profile_seqpacket) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(handoff, fork_stream) {
	.how = HANDOFF_FORK,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, fork_dgram) {
	.how = HANDOFF_FORK,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, fork_seqpacket) {
	.how = HANDOFF_FORK,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(handoff, exec_stream) {
	.how = HANDOFF_EXEC,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, exec_dgram) {
	.how = HANDOFF_EXEC,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, exec_seqpacket) {
	.how = HANDOFF_EXEC,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_stream) {
	.how = HANDOFF_PASS,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_dgram) {
	.how = HANDOFF_PASS,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_seqpacket) {
	.how = HANDOFF_PASS,
	.type = SOCK_SEQPACKET,
};

/*
 * Runs @fn on a socketpair of @type, or SKIPs where the tests of a socket
 * changing hands (here and the stack's) cannot run; @uring: they use
 * io_uring.
 */
static void run_handed(struct __test_metadata *_metadata, int type,
		       enum aa_abi abi, bool uring, check_fn *fn)
{
	struct variant v = {
		.abi = abi,
		.kind = KIND_UNNAMED,
		.type = type,
	};
	int ret;

	/* Older kernels revalidate unix sockets as other sockets. */
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): the unix socket revalidation these cases expect");
	ret = uring ? handoff_uring_probe() : 0;
	if (ret == -EOPNOTSUPP)
		SKIP(return, "built without liburing (pkg-config liburing)");
	if (ret)
		SKIP(return, "io_uring unavailable: %s", strerror(-ret));
	run_variant(_metadata, &v, true, fn);
}

static void run_handoff(struct __test_metadata *_metadata,
			enum handoff_how how, int type, enum aa_abi abi,
			bool uring, check_fn *fn)
{
	handoff_params.how = how;
	handoff_params.uring = uring;
	run_handed(_metadata, type, abi, uring, fn);
}

TEST_F_TIMEOUT(handoff, old_abi, HANDOFF_TEST_TIMEOUT)
{
	run_handoff(_metadata, variant->how, variant->type, AA_ABI_OLD, false,
		    check_handoff);
}

TEST_F_TIMEOUT(handoff, new_abi, HANDOFF_TEST_TIMEOUT)
{
	run_handoff(_metadata, variant->how, variant->type, AA_ABI_NEW, false,
		    check_handoff);
}

static void handoff_types(struct ctx *c)
{
	with_variant(c, KIND_UNNAMED, SOCK_STREAM, check_handoff);
	with_variant(c, KIND_UNNAMED, SOCK_DGRAM, check_handoff);
	with_variant(c, KIND_UNNAMED, SOCK_SEQPACKET, check_handoff);
}

/* The handoff cases after change_profile, through io_uring. */
TEST(old_abi_io_uring)
{
	run_handoff(_metadata, HANDOFF_CHANGE, SOCK_STREAM, AA_ABI_OLD, true,
		    handoff_types);
}

TEST(new_abi_io_uring)
{
	run_handoff(_metadata, HANDOFF_CHANGE, SOCK_STREAM, AA_ABI_NEW, true,
		    handoff_types);
}

static check_fn *const handoff_checks_of_abi[] = {
	check_handoff,
};

/* What the handoff area registers and runs, by ABI. */
static const struct checks handoff_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { handoff_checks_of_abi, ARRAY_SIZE(handoff_checks_of_abi) },
	[AA_ABI_NEW] = { handoff_checks_of_abi, ARRAY_SIZE(handoff_checks_of_abi) },
};
