/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the AF_UNIX test programs share: the run's policy, the check
 * functions' context, one conversation run and asserted, and the SKIPs.
 *
 * A check is a function that lists sub-checks.  Every check of a program
 * is first called in collect mode, for every socket kind and type, to
 * register the profiles it needs: all of them are then compiled in one
 * apparmor_parser run, by the first test that needs them, since compiling
 * is what makes policy tests slow.  Its test then calls it again to run
 * and assert each sub-check.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_TEST_H
#define _SELFTESTS_APPARMOR_UNIX_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"
#include "kernel_reports.h"
#include "policy.h"
#include "profile.h"
#include "unix_perms.h"
#include "unix_scenario.h"

/* Every program's profiles and run directories share it (policy.h). */
#define AA_PROFILE_PREFIX "aa_unix_mediation"
#define NAME_MAX_LEN 108

static struct aa_env env;
static struct aa_policy *policy;
/* Why no run directory could be made; empty when there is one. */
static char no_policy[256];
/* How many characters the kernel's autobind names have; 0 if unknown. */
static int autobind_len;
static char no_autobind[128];

/*
 * Policy is compiled by the first test that needs it, in its own process:
 * the outcome is shared with the tests that follow.
 */
static struct load_state {
	bool tried;
	bool loaded;
	char error[4096];
} *load;

struct variant {
	enum aa_abi abi;
	enum sock_kind kind;
	int type;
};

struct ctx {
	const struct variant *v;
	bool collect;
	struct __test_metadata *metadata;
	int subs;
	bool complain[SIDE_COUNT];	/* the side's profile is in complain mode */
	const char *client_path;	/* where the client binds, if anywhere */
	/* Where a pathname server binds: NULL, the run directory. */
	const char *sock_dir;
	uid_t sock_owner;	/* not 0: whom the server gives its socket file */
	bool by_stack;		/* stacked labels by aa_stack_profile() */
};

typedef void check_fn(struct ctx *c);

/*
 * An area's checks: those it registers profiles for, by ABI.  A program
 * passes each area's array of AA_ABI_COUNT of them.
 */
struct checks {
	check_fn * const *fn;
	size_t count;
};

static bool __maybe_unused conn_type(int type)
{
	return type != SOCK_DGRAM;
}

static const char __maybe_unused *side_name(enum side s)
{
	return s == SERVER ? "server" : "client";
}

/* The first side to try: a socketpair has only one. */
static enum side __maybe_unused first_side(const struct variant *v)
{
	return v->kind == KIND_UNNAMED ? CLIENT : SERVER;
}

/* A name unique to this run: abstract sockets are shared by all runs. */
static void __maybe_unused run_name(char *buf, size_t len, const char *what)
{
	if (aa_policy_name(policy, what, buf, len))
		ksft_exit_fail_msg("name too long: %s\n", what);
}

static void __maybe_unused sock_name(char *buf, size_t len)
{
	run_name(buf, len, "sock");
}

/* The profile builder (profile.h), in this run's directory. */
static __printf(2, 3) void __maybe_unused rules(struct prof *p,
						const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	prof_vrules(p, aa_policy_dir(policy), fmt, ap);
	va_end(ap);
}

static void __maybe_unused all_perms_but(struct prof *p, enum aa_abi abi,
					 const char *drop)
{
	prof_all_perms_but(p, aa_policy_dir(policy), abi, drop);
}

static void __maybe_unused lacking(struct prof *p, enum aa_abi abi,
				   const char *perm)
{
	prof_lacking(p, aa_policy_dir(policy), abi, perm);
}

/* Registers @p in collect mode, else finds the name it was given. */
static const char __maybe_unused *registered(struct ctx *c,
					     const struct prof *p)
{
	if (!p)
		return NULL;
	if (p->overflow)
		ksft_exit_fail_msg("rules longer than %d bytes: %.60s...\n",
				   RULES_MAX, p->text);
	if (c->collect)
		return aa_policy_add(policy, c->v->abi, p->name, p->text);
	return aa_policy_find(policy, c->v->abi, p->name, p->text);
}

/*
 * The label "A//&B" of profiles @a and @b, registered; NULL if one is not.
 * The kernel orders a stack's profiles by name, as we write it here.
 */
static const char __maybe_unused *stack_of(struct ctx *c,
					   const struct prof *a,
					   const struct prof *b,
					   char *buf, size_t len)
{
	const char *na = registered(c, a), *nb = registered(c, b);

	if (!na || !nb)
		return NULL;
	if (strcmp(na, nb) > 0)
		snprintf(buf, len, "%s//&%s", nb, na);
	else
		snprintf(buf, len, "%s//&%s", na, nb);
	return buf;
}

static void __maybe_unused expect_outcome(struct __test_metadata *_metadata,
					  const char *desc, const char *who,
					  struct outcome want,
					  const struct outcome *got)
{
	char w[128], g[128];

	EXPECT_TRUE(outcome_eq(&want, got)) {
		TH_LOG("%s: %s expected to stop at %s, got %s", desc, who,
		       outcome_str(&want, w, sizeof(w)),
		       outcome_str(got, g, sizeof(g)));
	}
}

/*
 * Open questions of SEMANTICS seen ("Q1 Q2"): the test is an expected
 * failure (KSFT_XFAIL) that names them, unless it FAILs for another row.
 */
static void __maybe_unused question_seen(struct __test_metadata *_metadata,
					 const char *questions)
{
	static const char head[] = "open questions of SEMANTICS:";
	char *r = _metadata->results->reason, q[16];
	size_t size = sizeof(_metadata->results->reason);
	int skip;

	if (_metadata->exit_code != KSFT_PASS &&
	    _metadata->exit_code != KSFT_XFAIL)
		return;
	_metadata->exit_code = KSFT_XFAIL;
	if (!r[0])
		snprintf(r, size, "%s", head);
	for (; sscanf(questions, " %15s%n", q, &skip) == 1; questions += skip) {
		char *at = strstr(r, q);
		size_t n = strlen(r), len = strlen(q);

		/* Q1 is not in Q12 */
		while (at && at[len] >= '0' && at[len] <= '9')
			at = strstr(at + 1, q);
		if (!at)
			snprintf(r + n, size - n, " %s", q);
	}
}

/*
 * A row expects what the policy means (@want).  Where a row's clause is
 * an open question of SEMANTICS, @question names it and @known is what
 * the kernel is known to do instead: that outcome is logged and makes
 * the test an expected failure; any other one FAILs, so that a change
 * of behaviour is seen either way.
 */
static void __maybe_unused expect_policy(struct __test_metadata *_metadata,
					 const char *desc, const char *who,
					 struct outcome want,
					 const char *question,
					 struct outcome known,
					 const struct outcome *got)
{
	char w[128], g[128];

	if (question && !outcome_eq(&want, got) && outcome_eq(&known, got)) {
		TH_LOG("%s: %s: the policy says %s, the kernel does %s (%s)",
		       desc, who, outcome_str(&want, w, sizeof(w)),
		       outcome_str(got, g, sizeof(g)), question);
		question_seen(_metadata, question);
		return;
	}
	expect_outcome(_metadata, desc, who, want, got);
}

/* Where each side of @sc stops when @who stops at @step with @err. */
static void __maybe_unused conversation_stops(const struct scenario *sc,
					      enum side who, enum step step,
					      int err,
					      struct outcome out[SIDE_COUNT])
{
	enum side s;

	for (s = SERVER; s < SIDE_COUNT; s++)
		out[s] = (struct outcome){ .step = STEP_DONE };
	if (who == SIDE_COUNT)
		return;
	out[who] = (struct outcome){ .step = step, .err = err };
	if (sc->kind != KIND_UNNAMED)
		out[who == SERVER ? CLIENT : SERVER] =
			scenario_other_side(sc, who, step);
}

/*
 * Runs one conversation between tasks labelled @srv and @cli (NULL:
 * unconfined) and asserts where both sides stop; in collect mode,
 * nothing.
 */
static void __maybe_unused sub_labels(struct ctx *c, const char *desc,
				      const char *srv, const char *cli,
				      struct expect exp)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct outcome res[SIDE_COUNT], want[SIDE_COUNT], known[SIDE_COUNT];
	char name[NAME_MAX_LEN], path[PATH_MAX], full[512];
	struct scenario sc = {
		.kind = v->kind,
		.type = v->type,
		.dir = c->sock_dir ? c->sock_dir : aa_policy_dir(policy),
		.name = name,
		.profile = { srv, cli },
		/* Before 6.17, AppArmor did not label unix socket peers. */
		.peer_labels = env.have_v9_unix,
		.complain = { c->complain[SERVER], c->complain[CLIENT] },
		.client_path = c->client_path,
		.owner = c->sock_owner,
		.by_stack = { c->by_stack && srv && strstr(srv, "//&"),
			      c->by_stack && cli && strstr(cli, "//&") },
	};
	enum side s;
	int ret;

	if (c->collect)
		return;
	c->subs++;
	sock_name(name, sizeof(name));

	ret = scenario_run(&sc, res);
	snprintf(path, sizeof(path), "%s/%s", sc.dir, name);
	unlink(path);
	if (sc.client_path)
		unlink(sc.client_path);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: the conversation could not be set up: %s", desc,
		       strerror(-ret));
	}

	conversation_stops(&sc, exp.who, exp.step, exp.err, want);
	conversation_stops(&sc, exp.known.who, exp.known.step, exp.known.err,
			   known);
	if (exp.why) {
		snprintf(full, sizeof(full), "%s %s", desc, exp.why);
		desc = full;
	}
	for (s = SERVER; s < SIDE_COUNT; s++)
		if (s != SERVER || v->kind != KIND_UNNAMED)
			expect_policy(_metadata, desc, side_name(s), want[s],
				      exp.question, known[s], &res[s]);
}

/* Runs one conversation; @srv or @cli NULL runs that side unconfined. */
static void __maybe_unused sub(struct ctx *c, const char *desc,
			       const struct prof *srv, const struct prof *cli,
			       struct expect exp)
{
	struct __test_metadata *_metadata = c->metadata;
	const char *label[SIDE_COUNT] = { registered(c, srv), registered(c, cli) };

	if (c->collect) {
		if ((srv && !label[SERVER]) || (cli && !label[CLIENT]))
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_FALSE((srv && !label[SERVER]) || (cli && !label[CLIENT]));
	sub_labels(c, desc, label[SERVER], label[CLIENT], exp);
}

/* Where @c's variant lacking @perm on side @who stops (unix_perms.h). */
static struct expect __maybe_unused missing(struct ctx *c, enum side who,
					    const char *perm)
{
	return missing_perm(c->v->abi, env.have_v9_unix, c->v->kind,
			    c->v->type, who, perm);
}

/* Runs @fn on sockets of @kind and @type instead of the variant's. */
static void __maybe_unused with_variant(struct ctx *c, enum sock_kind kind,
					int type, check_fn *fn)
{
	struct variant v = *c->v;
	const struct variant *saved = c->v;

	v.kind = kind;
	v.type = type;
	c->v = &v;
	fn(c);
	c->v = saved;
}

static void __maybe_unused each_type(struct ctx *c, enum sock_kind kind,
				     check_fn *fn)
{
	with_variant(c, kind, SOCK_STREAM, fn);
	with_variant(c, kind, SOCK_DGRAM, fn);
	with_variant(c, kind, SOCK_SEQPACKET, fn);
}

static void load_policy(struct __test_metadata *_metadata)
{
	bool abis[AA_ABI_COUNT];
	struct timespec t0, t1;
	int abi, ret;

	load->tried = true;
	for (abi = 0; abi < AA_ABI_COUNT; abi++)
		abis[abi] = !env.skip[abi][0];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = aa_policy_load(policy, env.parser, abis, load->error,
			     sizeof(load->error));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	load->loaded = !ret;
	if (ret)
		return;
	TH_LOG("%d profiles compiled and loaded by one apparmor_parser run in %.2f s",
	       aa_policy_count(policy), t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

/* SKIPs, with the reason, what this system cannot run. */
static void require(struct __test_metadata *_metadata, enum aa_abi abi,
		    bool confined)
{
	if (!env.enabled)
		SKIP(return, "%s", env.skip[AA_ABI_OLD]);
	ASSERT_FALSE(no_policy[0]) {
		TH_LOG("%s", no_policy);
	}
	if (!confined)
		return;
	if (env.skip[abi][0])
		SKIP(return, "%s", env.skip[abi]);
#ifndef HAVE_LIBAPPARMOR
	SKIP(return, "built without libapparmor (pkg-config libapparmor): cannot change profile");
#endif
	if (!load->tried)
		load_policy(_metadata);
	ASSERT_TRUE(load->loaded) {
		TH_LOG("%s", load->error);
	}
}

/* Runs the check @fn on @v, unconfined if !@confined, and counts on it. */
static void __maybe_unused run_variant(struct __test_metadata *_metadata,
				       const struct variant *v, bool confined,
				       check_fn *fn)
{
	struct ctx c = { .v = v, .metadata = _metadata };
	struct klog k;
	char splat[256];

	require(_metadata, v->abi, confined);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	/*
	 * A debug kernel's report is a FAIL of the test it came from, even
	 * where every outcome was the expected one.
	 */
	klog_start(&k);
	fn(&c);
	EXPECT_FALSE(klog_report(&k, splat, sizeof(splat))) {
		TH_LOG("the kernel reported: %s", splat);
	}
	klog_stop(&k);
	/* A FAIL says why in its rows: no open question as its reason. */
	if (_metadata->exit_code == KSFT_FAIL)
		_metadata->results->reason[0] = '\0';
	/* A check that ran nothing would pass without testing anything. */
	if (_metadata->exit_code != KSFT_SKIP)
		ASSERT_LT(0, c.subs);
}

static void __maybe_unused run_check(struct __test_metadata *_metadata,
				     enum sock_kind kind, int type,
				     enum aa_abi abi, bool confined,
				     check_fn *fn)
{
	struct variant v = {
		.abi = abi,
		.kind = kind,
		.type = type,
	};

	run_variant(_metadata, &v, confined, fn);
}

/*
 * Runs a check that chooses its socket kinds and types itself (with
 * with_variant() or each_type()).
 */
static void __maybe_unused run_abi(struct __test_metadata *_metadata,
				   enum aa_abi abi, check_fn *fn)
{
	run_check(_metadata, KIND_COUNT, 0, abi, true, fn);
}

/* Runs every check in collect mode: the profiles it needs, once each. */
static void collect_profiles(enum aa_abi abi, const struct checks *checks)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	struct variant v = { .abi = abi };
	struct ctx c = { .v = &v, .collect = true };
	size_t i, t;

	for (v.kind = 0; v.kind < KIND_COUNT; v.kind++)
		for (t = 0; t < ARRAY_SIZE(types); t++)
			for (v.type = types[t], i = 0; i < checks->count; i++)
				checks->fn[i](&c);
}

static void cleanup(void)
{
	aa_policy_free(policy);
	policy = NULL;
}

static bool only_listing(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/*
 * Autobind names are the kernel's choice: learn their length from one, so
 * that addr= rules can match them without assuming a format.
 */
static void probe_autobind(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(addr);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)) ||
	    getsockname(fd, (struct sockaddr *)&addr, &len))
		err = errno;
	if (fd >= 0)
		close(fd);
	len -= offsetof(struct sockaddr_un, sun_path);
	if (!err && len > 1 && !addr.sun_path[0])
		autobind_len = len - 1;
	else
		snprintf(no_autobind, sizeof(no_autobind),
			 "cannot learn the autobind name format: %s",
			 err ? strerror(err) : "not an abstract name");
}

/*
 * The run directory (also for unconfined tests' pathname sockets) and every
 * profile the checks of every area need; compiled on first use, in one
 * apparmor_parser run for the whole program.
 */
static void prepare_policy(const struct checks *const *areas, size_t n_areas)
{
	size_t i;
	int abi;

	load = mmap(NULL, sizeof(*load), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (load == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(load, 0, sizeof(*load));
	probe_autobind();
	aa_cleanup_stale(AA_PROFILE_PREFIX);
	policy = aa_policy_new(AA_PROFILE_PREFIX, no_policy, sizeof(no_policy));
	if (!policy)
		return;
	no_policy[0] = '\0';
	atexit(cleanup);
	for (abi = 0; abi < AA_ABI_COUNT; abi++)
		for (i = 0; i < n_areas && !env.skip[abi][0]; i++)
			collect_profiles(abi, &areas[i][abi]);
}

/*
 * The exec'd images of the areas whose runs exec this program, added by
 * its main(): each is called first, and the program exits with what one
 * returns, unless it returns -1.
 */
#define EXEC_REENTRY_MAX 4
static int (*exec_reentry[EXEC_REENTRY_MAX])(int argc, char **argv);

static void __maybe_unused add_exec_reentry(int (*fn)(int argc, char **argv))
{
	size_t i;

	for (i = 0; i < EXEC_REENTRY_MAX && exec_reentry[i]; i++)
		;
	if (i == EXEC_REENTRY_MAX)
		ksft_exit_fail_msg("more than %d exec'd images\n",
				   EXEC_REENTRY_MAX);
	exec_reentry[i] = fn;
}

/* A program's main(): the checks of its areas, by ABI, then the harness. */
static int __maybe_unused unix_test_main(int argc, char **argv,
					 const struct checks *const *areas,
					 size_t n_areas)
{
	int ret = -1;
	size_t i;

	for (i = 0; i < EXEC_REENTRY_MAX && exec_reentry[i] && ret < 0; i++)
		ret = exec_reentry[i](argc, argv);

	if (ret >= 0)
		return ret;
	aa_env_probe(&env);
	if (!only_listing(argc, argv))
		prepare_policy(areas, n_areas);
	return test_harness_run(argc, argv);
}

#endif /* _SELFTESTS_APPARMOR_UNIX_TEST_H */
