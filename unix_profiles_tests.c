// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX under profiles as systems ship them.  Container runtimes'
 * default profiles (containerd's template, docker-default, lxc's) allow
 * networking with a bare "network," rule and carry no abi line, or pin
 * an old one; fine-grained unix mediation (6.17+) changed what such a
 * rule allows.  Each test runs the whole conversation between two tasks
 * under one such profile, with the abi line of its name, and asserts
 * where it stops, by the table below.
 */

#include "unix_variants.h"

/* What a bare "network," profile in each abi meets, and why. */
struct shape_row {
	enum aa_abi abi;
	bool v9;		/* the kernel mediates unix sockets (6.17+) */
	struct expect stop;
	const char *why;
};

#define ALLOWED { .who = SIDE_COUNT, .step = STEP_DONE }

/* clang-format off */
static const struct shape_row shape_rows[] = {
	/* Before 6.17, unix sockets met only the coarse socket hooks. */
	{ AA_ABI_NONE, false, ALLOWED,
	  "[old]: a bare network rule grants every family, unix too" },
	{ AA_ABI_3, false, ALLOWED,
	  "[old]: a bare network rule grants every family, unix too" },
	{ AA_ABI_OLD, false, ALLOWED,
	  "[old]: a bare network rule grants every family, unix too" },
	/* 6.17+: the unix class is mediated on its own. */
	{ AA_ABI_NONE, true, ALLOWED,
	  "[old]: the parser's default abi; a bare network rule grants unix too" },
	{ AA_ABI_3, true, ALLOWED,
	  "[old]: abi/3.0 has no unix class; the coarse network rule decides" },
	{ AA_ABI_OLD, true, ALLOWED,
	  "[old]: abi/4.0 has no unix class; the coarse network rule decides" },
	{ AA_ABI_NEW, true, ALLOWED,
	  "[perm]: abi/5.0; a bare network rule also grants the unix class" },
};

/* clang-format on */
#undef ALLOWED

static const struct shape_row *shape_row(enum aa_abi abi)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shape_rows); i++)
		if (shape_rows[i].abi == abi &&
		    shape_rows[i].v9 == env.have_v9_unix)
			return &shape_rows[i];
	return NULL;
}

/* A conversation under @p on both sides, stopped as the row says. */
static void shape_sub(struct ctx *c, const char *desc, const struct prof *p)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct shape_row *row = shape_row(c->v->abi);
	char what[160];

	if (c->collect) {
		sub(c, desc, p, p, all_ok);
		return;
	}
	ASSERT_NE(NULL, row) {
		TH_LOG("no row for this abi on this kernel");
	}
	snprintf(what, sizeof(what), "%s (%s)", desc, row->why);
	sub(c, what, p, p, row->stop);
}

static void check_bare_network(struct ctx *c)
{
	struct prof p = { };

	rules(&p, "  network,\n");
	shape_sub(c, "bare network rule", &p);
}

/*
 * The shape of docker-default and containerd's template: no abi line,
 * networking, capabilities and files allowed, writes to /proc and /sys
 * denied, signals and ptrace among the container's own tasks.
 */
static void check_container_default(struct ctx *c)
{
	struct prof p = { .name = "container_default" };
	char self[NAME_MAX_LEN];

	run_name(self, sizeof(self), p.name);
	rules(&p,
	      "  network,\n  capability,\n  file,\n  umount,\n"
	      "  deny /proc/* w,\n  deny /sys/[^f]*/** wklx,\n"
	      "  signal (send, receive) peer=%s,\n"
	      "  ptrace (trace, read, tracedby, readby) peer=%s,\n",
	      self, self);
	shape_sub(c, "a container runtime's default profile", &p);
}

TEST_F(af_unix, bare_network_no_abi)
{
	run_check(_metadata, variant->kind, variant->type, AA_ABI_NONE, true,
		  check_bare_network);
}

TEST_F(af_unix, bare_network_abi_3)
{
	run_check(_metadata, variant->kind, variant->type, AA_ABI_3, true,
		  check_bare_network);
}

TEST_F(af_unix, bare_network_abi_4)
{
	run_check(_metadata, variant->kind, variant->type, AA_ABI_OLD, true,
		  check_bare_network);
}

TEST_F(af_unix, bare_network_abi_5)
{
	run_check(_metadata, variant->kind, variant->type, AA_ABI_NEW, true,
		  check_bare_network);
}

TEST_F(af_unix, container_default)
{
	run_check(_metadata, variant->kind, variant->type, AA_ABI_NONE, true,
		  check_container_default);
}

static check_fn *const profiles_bare_checks[] = {
	check_bare_network,
};

static check_fn *const profiles_no_abi_checks[] = {
	check_bare_network,
	check_container_default,
};

/* What the profiles area registers and runs, by ABI. */
static const struct checks profiles_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { profiles_bare_checks, ARRAY_SIZE(profiles_bare_checks) },
	[AA_ABI_NEW] = { profiles_bare_checks, ARRAY_SIZE(profiles_bare_checks) },
	[AA_ABI_3] = { profiles_bare_checks, ARRAY_SIZE(profiles_bare_checks) },
	[AA_ABI_NONE] = { profiles_no_abi_checks, ARRAY_SIZE(profiles_no_abi_checks) },
};
