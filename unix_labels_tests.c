// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX mediation of labels that are not one plain profile:
 * stacks (A//&B, by change_profile and by aa_stack_profile()), peer rules
 * against a stacked peer, and a profile replaced under a task using
 * unix sockets.
 */

#include "unix_handoff.h"
#include "unix_variants.h"

/*
 * The permissions a stack is tested without; by_stack: the same label is
 * also built by aa_stack_profile(), for the checks at connect and send.
 */
static const struct {
	const char *perm;
	bool by_stack;
} stacked_perms[] = {
	{ "create", false },
	{ "connect", true },
	{ "send", true },
	{ "receive", false },
};

/*
 * Where the profile lacking a permission stands in the stack.  The kernel
 * orders a stack's profiles by name (stack_of()): the full profile is
 * named "stack2_*", and the one lacking a permission "stack1_*" to come
 * first or "stack3_*" to come last.
 */
enum stack_pos {
	STACK_FIRST,
	STACK_LAST,
	STACK_POS_COUNT,
};

static const char *const stack_pos_name[] = {
	[STACK_FIRST] = "stack1",
	[STACK_LAST] = "stack3",
};

/*
 * Stacked labels: every profile of the stack must allow, so a stack with
 * one profile lacking a permission stops where that profile alone would,
 * whether it comes first or last in the stack.  The label is reached by
 * change_profile, and for connect and send also by aa_stack_profile()
 * onto the unconfined task (the label is then A//&B//&unconfined).
 */
/* Each side in turn labelled @stack, the other @single. */
static void stacked_sides(struct ctx *c, const char *perm, const char *stack,
			  const char *single, enum stack_pos pos, bool by_stack)
{
	char desc[128];
	enum side who;

	for (who = first_side(c->v); who < SIDE_COUNT; who++) {
		snprintf(desc, sizeof(desc),
			 "%s stacked with a profile without %s (%s%s) [label]",
			 side_name(who), perm,
			 pos == STACK_FIRST ? "first" : "last",
			 by_stack ? ", by aa_stack_profile" : "");
		c->by_stack = by_stack;
		sub_labels(c, desc, who == SERVER ? stack : single,
			   who == CLIENT ? stack : single,
			   missing(c, who, perm));
		c->by_stack = false;
	}
}

static void check_stacked(struct ctx *c)
{
	const struct variant *v = c->v;
	const char *abi = v->abi == AA_ABI_NEW ? "new" : "old";
	struct prof full = { }, less = { };
	char fname[32], lname[32], label[2 * NAME_MAX_LEN + 4];
	const char *stack, *single, *perm;
	enum stack_pos pos;
	size_t i;

	/* Names are global: one set per ABI. */
	snprintf(fname, sizeof(fname), "stack2_full_%s", abi);
	full.name = fname;
	lacking(&full, v->abi, NULL);
	single = registered(c, &full);
	for (i = 0; i < ARRAY_SIZE(stacked_perms); i++) {
		perm = stacked_perms[i].perm;
		for (pos = 0; pos < STACK_POS_COUNT; pos++) {
			snprintf(lname, sizeof(lname), "%s_no_%s_%s",
				 stack_pos_name[pos], perm, abi);
			less.name = lname;
			lacking(&less, v->abi, perm);
			stack = stack_of(c, &less, &full, label, sizeof(label));
			if (!stack || !single)
				ksft_exit_fail_msg("cannot register more profiles\n");
			stacked_sides(c, perm, stack, single, pos, false);
			if (stacked_perms[i].by_stack)
				stacked_sides(c, perm, stack, single, pos, true);
		}
	}
}

/*
 * peer=(label=...) against a stacked server: each profile of the peer's
 * stack is matched on its own, so a rule naming only one of them does
 * not match the stack, and one naming both does.
 */
static void check_stacked_peer(struct ctx *c)
{
	struct prof a = { .name = "speer_a" }, b = { .name = "speer_b" };
	struct prof one = { }, both = { };
	const char *to_both, *to_one;
	char label[2 * NAME_MAX_LEN + 4], na[NAME_MAX_LEN], glob[NAME_MAX_LEN];
	const char *stack;

	run_name(na, sizeof(na), a.name);
	run_name(glob, sizeof(glob), "speer_*");
	rules(&a, "  unix,\n");
	rules(&b, "  unix,\n");
	rules(&one, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      PEER_LOCAL_RULES, na);
	rules(&both, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      PEER_LOCAL_RULES, glob);
	stack = stack_of(c, &a, &b, label, sizeof(label));
	to_both = registered(c, &both);
	to_one = registered(c, &one);
	if (!stack || !to_both || !to_one)
		ksft_exit_fail_msg("cannot register more profiles\n");
	sub_labels(c, "peer rule matches every profile of the stack [peer]",
		   stack, to_both, all_ok);
	sub_labels(c, "peer rule matches one profile of the stack [peer]", stack,
		   to_one, peer_mismatch(c->v->kind, c->v->type));
}

/*
 * A profile replaced under a task that uses unix sockets: a socketpair in
 * use under profile R (or a listener made under it), then R replaced by a
 * version lacking one permission, then one operation.  Two ways to get
 * there: the task reads the go-ahead with read() on a unix socket, which
 * has AppArmor refresh its label to R's newest version first ("after a
 * refresh"), or with recv(), which does not, so that the operation is the
 * first thing mediated after the replacement ("first op"), as for a
 * daemon whose profile apparmor_parser -r tightens under it.  Either way
 * the new version is the policy for the task and for both ends, which R
 * labels: the outcome is the same.  Sockets of a peer whose profile is
 * replaced: unix_peer_tests.c.
 */
struct replaced_row {
	int type;
	enum handoff_op op;
	const char *lack;	/* what R's new version lacks */
	bool denied;
	const char *why;
};

/* clang-format off */
static const struct replaced_row replaced_rows[] = {
	{ SOCK_DGRAM, HOP_SENDMSG, "send", true,
	  "[send] [replace]: each datagram; R is now without send" },
	{ SOCK_DGRAM, HOP_WRITE, "send", true,
	  "[send] [replace]: a datagram written; R is now without send" },
	{ SOCK_DGRAM, HOP_SENDMSG, "receive", true,
	  "[receive] [replace]: each datagram; its receiver R is now without receive" },
	{ SOCK_DGRAM, HOP_WRITE, "receive", true,
	  "[receive] [replace]: a datagram written; its receiver R is now without receive" },
	{ SOCK_STREAM, HOP_SENDMSG, "send", false,
	  "[send] [receive] [replace]: decided when the connection was made; kept open" },
	{ SOCK_STREAM, HOP_WRITE, "send", false,
	  "[send] [receive] [replace]: a message on a connection kept open" },
	{ SOCK_STREAM, HOP_SENDMSG, "receive", false,
	  "[send] [receive] [replace]: decided when the connection was made; kept open" },
	{ SOCK_STREAM, HOP_WRITE, "receive", false,
	  "[send] [receive] [replace]: a message on a connection kept open" },
	{ SOCK_SEQPACKET, HOP_SENDMSG, "send", false,
	  "[send] [receive] [replace]: decided when the connection was made; kept open" },
	{ SOCK_SEQPACKET, HOP_WRITE, "send", false,
	  "[send] [receive] [replace]: a message on a connection kept open" },
	{ SOCK_SEQPACKET, HOP_SENDMSG, "receive", false,
	  "[send] [receive] [replace]: decided when the connection was made; kept open" },
	{ SOCK_SEQPACKET, HOP_WRITE, "receive", false,
	  "[send] [receive] [replace]: a message on a connection kept open" },
	{ SOCK_STREAM, HOP_CONNECT, "connect", true,
	  "[perm] [replace]: a new connection; R is now without connect" },
	{ SOCK_SEQPACKET, HOP_CONNECT, "connect", true,
	  "[perm] [replace]: a new connection; R is now without connect" },
};

/* clang-format on */

static const char *const replaced_lacks[] = { "send", "receive", "connect" };

static int replace_with(void *blob)
{
	return aa_policy_replace(policy, blob);
}

static void replaced_prof(struct prof *r, enum aa_abi abi, char *name,
			  size_t len)
{
	snprintf(name, len, "replaced_%s", abi == AA_ABI_NEW ? "new" : "old");
	r->name = name;
	lacking(r, abi, NULL);
}

static void replaced_sub(struct __test_metadata *_metadata, struct handoff *h,
			 const struct replaced_row *row, const char *blob)
{
	struct outcome want = { .step = STEP_DONE }, got;
	char desc[256];
	int ret;

	if (row->denied)
		want = (struct outcome){ .step = STEP_OP, .err = EACCES };
	h->type = row->type;
	h->op = row->op;
	h->arg = (void *)blob;
	ret = handoff_run(h, &got);
	ASSERT_EQ(0, ret) TH_LOG("replacing: %s", strerror(-ret));
	snprintf(desc, sizeof(desc), "%s %s, %s, R replaced without %s (%s)",
		 type_name(row->type), handoff_op_name(row->op),
		 h->refresh ? "after a refresh" : "first op", row->lack,
		 row->why);
	expect_outcome(_metadata, desc, "the task", want, &got);
}

static void check_replaced(struct ctx *c, bool refresh)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct prof r = { }, strict = { };
	char name[32], blob[ARRAY_SIZE(replaced_lacks)][64], restore[64];
	char listener[NAME_MAX_LEN], err[4096];
	struct handoff h = {
		.how = HANDOFF_REPLACE,
		.replace = replace_with,
		.refresh = refresh,
		.path = { NULL, listener },
	};
	size_t i, l;
	int ret;

	replaced_prof(&r, v->abi, name, sizeof(name));
	h.creator = registered(c, &r);
	if (c->collect) {
		if (!h.creator)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_NE(NULL, h.creator);
	run_name(listener, sizeof(listener), "replaced_listener");
	/* Compiled once; replacing is then a write to .replace. */
	snprintf(restore, sizeof(restore), "%s.bin", name);
	ret = aa_policy_compile(policy, env.parser, v->abi, h.creator, r.text,
				restore, err, sizeof(err));
	ASSERT_EQ(0, ret) TH_LOG("compiling %s: %s", name, err);
	for (l = 0; l < ARRAY_SIZE(replaced_lacks); l++) {
		lacking(&strict, v->abi, replaced_lacks[l]);
		snprintf(blob[l], sizeof(blob[l]), "%s-no-%s.bin", name,
			 replaced_lacks[l]);
		ret = aa_policy_compile(policy, env.parser, v->abi, h.creator,
					strict.text, blob[l], err, sizeof(err));
		ASSERT_EQ(0, ret) TH_LOG("compiling %s: %s", blob[l], err);
	}
	for (i = 0; i < ARRAY_SIZE(replaced_rows); i++) {
		for (l = 0; strcmp(replaced_lacks[l], replaced_rows[i].lack); l++)
			;
		ret = aa_policy_replace(policy, restore);
		ASSERT_EQ(0, ret) TH_LOG("restoring %s: %s", name,
					 strerror(-ret));
		c->subs++;
		replaced_sub(_metadata, &h, &replaced_rows[i], blob[l]);
	}
	ret = aa_policy_replace(policy, restore);
	ASSERT_EQ(0, ret) TH_LOG("restoring %s: %s", name, strerror(-ret));
}

static void check_replaced_refresh(struct ctx *c)
{
	check_replaced(c, true);
}

static void check_replaced_first_op(struct ctx *c)
{
	check_replaced(c, false);
}

TEST_F(af_unix, old_abi_stacked)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_stacked);
}

TEST_F(af_unix, new_abi_stacked)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_stacked);
}

static void stacked_peer_types(struct ctx *c)
{
	each_type(c, KIND_ABSTRACT, check_stacked_peer);
}

/* A socketpair's peer is the process itself: abstract sockets here. */
TEST(new_abi_stacked_peer_label)
{
	run_abi(_metadata, AA_ABI_NEW, stacked_peer_types);
}

static void run_replaced(struct __test_metadata *_metadata, enum aa_abi abi,
			 check_fn *fn)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): dgram sends checked against the replaced profile");
	run_abi(_metadata, abi, fn);
}

TEST(old_abi_replaced_while_connected)
{
	run_replaced(_metadata, AA_ABI_OLD, check_replaced_refresh);
}

TEST(new_abi_replaced_while_connected)
{
	run_replaced(_metadata, AA_ABI_NEW, check_replaced_refresh);
}

TEST(old_abi_first_op_after_replacement)
{
	run_replaced(_metadata, AA_ABI_OLD, check_replaced_first_op);
}

TEST(new_abi_first_op_after_replacement)
{
	run_replaced(_metadata, AA_ABI_NEW, check_replaced_first_op);
}

static check_fn *const labels_old_checks[] = {
	check_stacked, check_replaced_refresh, check_replaced_first_op,
};

static check_fn *const labels_new_checks[] = {
	check_stacked, check_stacked_peer, check_replaced_refresh,
	check_replaced_first_op,
};

/* What the labels area registers and runs, by ABI. */
static const struct checks labels_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { labels_old_checks, ARRAY_SIZE(labels_old_checks) },
	[AA_ABI_NEW] = { labels_new_checks, ARRAY_SIZE(labels_new_checks) },
};
