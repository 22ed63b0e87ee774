// SPDX-License-Identifier: GPL-2.0
/*
 * A random lane: seeded histories of AF_UNIX sockets, judged by history
 * independence.  AppArmor keeps labels on a socket to skip work (the
 * label it was made under, the labels it was last checked under, its
 * peer's), and a mistake in that bookkeeping makes a decision depend on
 * history the policy says does not matter.  That needs no model of the
 * rules to check: each case is a pair of worlds that differ only in such
 * history and end in the same operation, by a task under the same label
 * and the same policy, and the two outcomes must be the same.  The
 * outcome is the operation's errno (or where the socket was refused on
 * its way, and for a retry decided otherwise, which way), and for a
 * refusal whether it was audited and by which profile: a record of the
 * task's refusal of that operation, read from the audit log up to a mark
 * (a refusal the lane causes next).  Where both worlds meet the
 * operation by one route, the record's operation, masks and peer too,
 * field by field; across routes not: which hook refuses, and what a
 * socket's revalidation asks, follow the route (SEMANTICS, Q1 and Q2).
 *
 * The relations, a test each:
 * - prior_use: end 0 of a pair used by its creator under profile A (a
 *   random set of write, read and both flocks) before it reaches the
 *   task's label, or not used;
 * - route: the end reaches that label by change_profile of its creator,
 *   or by fork and a change in the child, an exec (inherited; onto U
 *   alone by change_onexec or by A's px rule for a link U attaches to)
 *   or SCM_RIGHTS, or it is made there, under that label; most cases are
 *   three worlds (change_profile, fork, made there), each pair compared;
 * - label_path: the same stack A//&U put on by aa_stack_profile(), by
 *   change_profile to "&U" or to "A//&U" by name, or at an exec
 *   (aa_stack_onexec(), change_onexec() to "A//&U", or A's exec rule
 *   pix -> &U);
 * - peer_side: the peer, A holding end 1, uses its end (write, flocks),
 *   changes profile to U' or has A replaced by a text that means the
 *   same (A's own with a deny rule for what it does not allow: a real
 *   replacement, which identical text is not unless the kernel lacks
 *   SECURITY_APPARMOR_EXPORT_BINARY; A's own text is loaded back after
 *   the world), reads its end, shuts it down or closes it, before the
 *   task's label change or after it, the task having end 0 by a fork or
 *   by SCM_RIGHTS (received after the peer's event in both worlds);
 * - peer_replaced (unix_history_replaced.c): the peer's socket made
 *   before its profile was replaced by another version (or removed), or
 *   after (unix_peer_tests.c's runs).
 * Relations between policies, for bugs that are wrong in every history,
 * are in unix_history_policies.c, which shares this file's machinery.
 * The label is a random profile U of a pool, or A//&U (by a random way
 * of stacking but for the label path); the grammar of U, the sockets and
 * what the generator avoids, a sentence each, are in unix_history.c.
 *
 * A route that checks the end on its way (SCM_RIGHTS, an exec) is judged
 * by its delivery: it delivers the end exactly where the change_profile
 * world may write and read it, its use as opened ([carry]).  And every
 * world by its own records ([audit]): a refusal of its operation has a
 * DENIED record, and no DENIED record refuses a step the task went past.
 *
 * Each test tallies what its cases decided (allowed, refused, differed)
 * and what they did not (every world stopped alike before the operation;
 * no pair of worlds comparable, as an end made there and one the route
 * did not deliver), and FAILs when fewer than half decided or it never
 * saw one of the two outcomes.
 *
 * Every case prints its seed: AA_HISTORY_SEED=<seed> with
 * AA_HISTORY_CASES=1 runs that case again exactly.  A FAIL prints both
 * worlds and their outcomes, shrunk to the smallest pair that still
 * differs.  A test runs cases for its budget (HISTORY_*MS), for
 * AA_HISTORY_SECONDS, or AA_HISTORY_CASES of them.
 */

#include <fcntl.h>
#include <sys/stat.h>

#include "audit_log.h"
#include "unix_handoff.h"
#include "unix_history.h"
#include "unix_test.h"

/*
 * Each test's default budget, in ms: the twenty-six of this file,
 * unix_history_policies.c and unix_history_replaced.c add 110 s, the
 * file lane's four 12 s.
 * prior_use and route get more: they draw from the most histories, and
 * a difference found there so far needed a few draws in a hundred (a
 * warm-up set and a stack) or in a thousand (a lock on an end made
 * there, by a U whose file rules lack k: half the pool); route's cases
 * also run the change_profile world's use as opened where a route
 * checks the end on its way.
 */
#define HISTORY_MS 3000
#define HISTORY_PRIOR_USE_MS 6000
#define HISTORY_ROUTE_MS 16000
/*
 * The harness's limit, within settings' for the whole program:
 * AA_HISTORY_SECONDS is kept under two thirds of it.
 */
#define HISTORY_TIMEOUT 300
/* How long a mark may take to reach the audit log. */
#define HISTORY_AUDIT_MS 5000

/* The run's first seed, and how long or how many cases a test runs. */
static struct {
	bool init;
	u64 seed;
	long max_cases;	/* 0: by time */
	long ms;	/* 0: each test's default */
} hist_budget;

static void hist_budget_init(void)
{
	const char *seed = getenv("AA_HISTORY_SEED");
	const char *count = getenv("AA_HISTORY_CASES");
	const char *secs = getenv("AA_HISTORY_SECONDS");
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	hist_budget.seed = ((u64)t.tv_sec << 20) ^ t.tv_nsec ^ getpid();
	if (seed)
		hist_budget.seed = strtoull(seed, NULL, 0);
	hist_budget.max_cases = count ? strtol(count, NULL, 0) : 0;
	hist_budget.ms = secs ? strtol(secs, NULL, 0) * 1000 : 0;
	if (hist_budget.ms < 0 || hist_budget.ms > HISTORY_TIMEOUT * 2000 / 3)
		hist_budget.ms = 0;
	hist_budget.init = true;
}

struct hist_profs {
	enum aa_abi abi;
	const char *a;
	/*
	 * A's text compiled, and the text that means the same, for A's
	 * replacement and its restoration.
	 */
	char a_blob[NAME_MAX_LEN + 16];
	char alt_blob[NAME_MAX_LEN + 16];
	/* Each U in each of its texts (enum hist_kind), and A//&U. */
	const char *u[UK_COUNT][U_COUNT];
	char stack[UK_COUNT][U_COUNT][2 * NAME_MAX_LEN + 4];
	/* stacked_peers' peers: the NEW ABI's, in either ABI's test. */
	char p[PEER_COUNT][NAME_MAX_LEN];
	/* The other ABI's pool, registered by its own tests. */
	char other[U_COUNT][NAME_MAX_LEN];
	/*
	 * address_user's D's (NEW ABI): denying send or receive everywhere
	 * or at each address, and denying nothing.
	 */
	char d[2][AT_COUNT * ADDR_COUNT + 1][NAME_MAX_LEN];
	char d_nothing[NAME_MAX_LEN];
	/* The audit log, -1 if there is none to compare. */
	int afd;
};

/*
 * A world's outcome, and for a refusal whether it was audited, by the
 * profile its record names ([audit]; of a stack, the one that refused):
 * @by_u, the world's U in whichever text; and the record's operation,
 * masks and peer.  In complain mode, the record of what was allowed.
 */
struct hist_got {
	struct outcome o;
	int audited;
	bool by_u;
	char profile[NAME_MAX_LEN];
	char op[32];
	char masks[64];
	char peer[NAME_MAX_LEN];
	/* For a route's delivery: the change_profile world's use as opened. */
	char as_opened[128];
	/*
	 * What its records contradict ([audit]): a DENIED record's operation
	 * where the task went on past it, and a refusal with no record.
	 */
	char unenforced[32];
	bool unaudited;
};

/*
 * Made in unix_history_policies.c: who makes a world's pair, its D, and a
 * world's audit records (for @complain, of what it was allowed).
 */
static const char *hist_maker_label(const struct hist_profs *hp,
				    const struct hist_case *hc, int w,
				    char *buf, size_t len);
static const char *hist_deny_of(const struct hist_profs *hp,
				const struct hist_case *hc, int w);
static int hist_audited(const struct hist_profs *hp, struct hist_got *got,
			const bool *complain, unsigned int n);
/* The lane's profiles, registered: unix_history_profiles.c. */
static bool hist_names(struct ctx *c, struct hist_profs *hp);

/*
 * The links to this program in the run directory that A's exec rules
 * name: HIST_X for the pix rules, which stack a U, and HIST_PX, one an
 * ABI and U, for the px rule, which enters the U attached to the link.
 */
#define HIST_X "hist_x_"
#define HIST_PX "hist_px_"

static const char *hist_abi_tag(enum aa_abi abi)
{
	return abi == AA_ABI_NEW ? "new" : "old";
}

/* The link by which A's exec rule stacks U @u, or (@attach) enters it. */
static void hist_exec_path(char *buf, size_t len, enum aa_abi abi,
			   unsigned int u, bool attach)
{
	if (attach)
		snprintf(buf, len, "%s/" HIST_PX "%s_%u", aa_policy_dir(policy),
			 hist_abi_tag(abi), u);
	else
		snprintf(buf, len, "%s/" HIST_X "%u", aa_policy_dir(policy), u);
}

/* other_abi_user's: the OLD ABI for the NEW, the NEW for the OLD. */
static enum aa_abi hist_other_abi(enum aa_abi abi)
{
	return abi == AA_ABI_NEW ? AA_ABI_OLD : AA_ABI_NEW;
}

/* End @i's name: its path's in the run directory, or its abstract one. */
static void hist_end_name(char *buf, size_t len, int i)
{
	run_name(buf, len, i ? "hist1" : "hist0");
}

/* HPEER_REPLACE: A replaced by a text that means the same. */
static int hist_replace_a(void *arg)
{
	const struct hist_profs *hp = arg;

	return aa_policy_replace(policy, hp->alt_blob);
}

/*
 * Not owned: the ends' files given to another user once bound, by the
 * test itself, at the peer's event (@arg: the paths).
 */
static int hist_give_paths(void *arg)
{
	char (*path)[PATH_MAX] = arg;
	int i;

	for (i = 0; i < 2; i++)
		if (chown(path[i], HIST_OTHER_UID, -1) && errno != ENOENT)
			return -errno;
	return 0;
}

/* The stack of profiles @a and @b, as the kernel names it: by name. */
static const char *hist_stack_name(const char *a, const char *b, char *buf,
				   size_t len)
{
	snprintf(buf, len, "%s//&%s", strcmp(a, b) < 0 ? a : b,
		 strcmp(a, b) < 0 ? b : a);
	return buf;
}

/* The task's profile in world @w: U, U2 or their stack, in its text. */
static const char *hist_task_label(const struct hist_profs *hp,
				   const struct hist_case *hc, int w,
				   char *buf, size_t len)
{
	const char *const *u = hp->u[hc->w[w].kind];

	if (hc->w[w].as == AS_OTHER_ABI)
		return hp->other[hist_world_user(hc, w)];
	if (hc->w[w].deny)
		return hist_stack_name(u[hc->user], hist_deny_of(hp, hc, w),
				       buf, len);
	if (!hc->w[w].both)
		return u[hist_world_user(hc, w)];
	return hist_stack_name(u[hc->user], u[hc->user2], buf, len);
}

/* Runs world @w of @hc; 0 with @out filled, or -errno. */
static int hist_run(const struct hist_profs *hp, const struct hist_case *hc,
		    int w, struct outcome *out)
{
	char names[2][NAME_MAX_LEN], path[2][PATH_MAX], x[PATH_MAX];
	char both[2 * NAME_MAX_LEN + 4], maker[2 * NAME_MAX_LEN + 4];
	unsigned int ui = hist_world_user(hc, w);
	const char *u = hist_task_label(hp, hc, w, both, sizeof(both));
	const char *stack = hp->stack[hc->w[w].kind][ui];
	struct handoff h = {
		.how = hc->w[w].how,
		.shape = hc->shape,
		.type = hc->type,
		.path = { path[0], path[1] },
		.creator = hc->unconfined ? NULL :
			   !hc->w[w].made_there ?
			   hist_maker_label(hp, hc, w, maker, sizeof(maker)) :
			   hc->w[w].onto == ONTO_PROFILE ? u : stack,
		.user = u,
		.onto = hc->w[w].onto,
		.complain = hc->w[w].kind == UK_COMPLAIN,
		.label = handoff_onto_alone(hc->w[w].onto) ? NULL : stack,
		.exec_path = handoff_onto_by_rule(hc->w[w].onto) ? x : NULL,
		.op = hc->op,
		.warm = hc->w[w].warm,
		.peer = hc->peer,
		.peer_after = hc->w[w].peer_after,
		.peer_warm = hc->peer_warm,
		.peer_shut = hc->peer_shut,
		.peer_label = hp->u[UK_PLAIN][hc->peer_user],
		.replace = hc->not_owned ? hist_give_paths : hist_replace_a,
		.arg = hc->not_owned ? (void *)path : (void *)hp,
	};
	int i, ret;

	hist_exec_path(x, sizeof(x), hp->abi, ui, hc->w[w].onto == ONTO_ATTACH);
	for (i = 0; i < 2; i++) {
		hist_end_name(names[i], sizeof(names[i]), i);
		snprintf(path[i], sizeof(path[i]), "%s/%s",
			 aa_policy_dir(policy), names[i]);
		unlink(path[i]);
	}
	/* Ends on abstract names: the peer's, or both. */
	if (hc->shape == HSHAPE_FROM_BOUND || hc->shape == HSHAPE_ABSTRACT)
		h.path[1] = names[1];
	if (hc->shape == HSHAPE_ABSTRACT)
		h.path[0] = names[0];
	ret = handoff_run(&h, out);
	for (i = 0; i < 2; i++)
		unlink(path[i]);
	/* The next world starts from A's own text, as this one did. */
	if (hc->peer == HPEER_REPLACE && !hc->not_owned) {
		i = aa_policy_replace(policy, hp->a_blob);
		if (!ret)
			ret = i;
	}
	return ret;
}

/*
 * The route's own check refused the end on its way (an exec revoked it,
 * a receipt dropped it), or the task could not make it there: not
 * compared.
 */
static bool hist_not_delivered(const struct outcome *o)
{
	return o->fault == FAULT_NOT_INSTALLED ||
	       (o->step < STEP_HANDOFF && (o->err || o->fault));
}

/*
 * Whether two worlds ended alike; @record, whether their records must
 * also agree in operation, masks and peer (hist_same_hook()).
 */
static bool hist_same(const struct hist_got *a, const struct hist_got *b,
		      bool record)
{
	if (!outcome_eq(&a->o, &b->o) || a->audited != b->audited ||
	    a->by_u != b->by_u || (!a->by_u && strcmp(a->profile, b->profile)))
		return false;
	return !record || !a->audited ||
	       (!strcmp(a->op, b->op) && !strcmp(a->masks, b->masks) &&
		!strcmp(a->peer, b->peer));
}

static const char *hist_got_str(const struct hist_got *g, char *buf,
				size_t len)
{
	char o[128], rec[384] = "";

	if (g->audited)
		snprintf(rec, sizeof(rec), ", audited by %s (%s, %s, peer %s)",
			 g->profile, g->op, g->masks, g->peer);
	else if (g->o.err)
		snprintf(rec, sizeof(rec), ", not audited");
	snprintf(buf, len, "%s%s%s%s%s%s", outcome_str(&g->o, o, sizeof(o)),
		 rec, g->unenforced[0] ? ", a DENIED record of " : "",
		 g->unenforced, g->as_opened[0] ? "; " : "", g->as_opened);
	return buf;
}

static bool hist_timed_out(const struct outcome *o)
{
	return o->fault == FAULT_TIMEOUT || o->fault == FAULT_HUNG;
}

/* What a case decided, for the tally each test prints. */
enum hist_verdict {
	HV_ALLOWED,	/* the worlds compared reached the operation: allowed */
	HV_REFUSED,	/* ... and were refused it, alike */
	HV_DIFFER,	/* two of them did not end alike */
	HV_NOT_REACHED,	/* every world stopped before it, alike */
	HV_EXCLUDED,	/* no two worlds comparable: a route delivered nothing */
	HV_NOT_RUN,	/* a run could not be set up, or a world timed out */
	HV_Q3,		/* decided as an open question has it */
	HV_Q5,
	HV_COUNT,
};

static const char *const hv_name[HV_COUNT] = {
	[HV_ALLOWED] = "allowed",
	[HV_REFUSED] = "refused",
	[HV_DIFFER] = "differed",
	[HV_NOT_REACHED] = "stopped alike before the operation (not run)",
	[HV_EXCLUDED] = "no two worlds comparable (excluded)",
	[HV_NOT_RUN] = "could not be set up or timed out",
	[HV_Q3] = "delivered as Q3 has it (OLD ABI, peer on a path: not revalidated)",
	[HV_Q5] = "accepted by U' as Q5 has it (a peer=(label=) rule grants accept)",
};

/*
 * Cases from which a test must have decided half and seen both outcomes:
 * fewer, and one outcome may be missing by chance.
 */
#define HIST_DECIDED_MIN 20

/* The verdict of a case whose worlds ended alike as @o. */
static enum hist_verdict hist_alike(const struct outcome *o)
{
	/* A descriptor dropped or revoked on its way: refused there. */
	if (hist_not_delivered(o))
		return HV_REFUSED;
	if (o->step < STEP_OP)
		return HV_NOT_REACHED;
	return o->step == STEP_DONE && !o->err && !o->fault ? HV_ALLOWED :
								 HV_REFUSED;
}

/*
 * Whether a relation's worlds take one route to the task's operation
 * (those of its relations that differ in history before it, or in the
 * text of the policy): then the route's checks and the operation's
 * record are compared too.
 */
static bool hist_one_route(enum hist_rel rel)
{
	return rel == REL_PRIOR_USE || rel == REL_PEER_SIDE || rel == REL_EQUIV ||
	       rel == REL_OWNER || rel == REL_OTHER_ABI || rel == REL_ADDR;
}

/*
 * Whether world @w's end meets the operation as it was made under A, a
 * label change alone between (change_profile, or a fork and a change in
 * the child): no check on its way, no end made anew.
 */
static bool hist_changed_alone(const struct hist_world *w)
{
	return (w->how == HANDOFF_CHANGE || w->how == HANDOFF_FORK) &&
	       !w->made_there;
}

/*
 * Whether worlds @i and @j of @hc must agree in their records' fields
 * too: where one route and one label meet the operation, the same hook
 * refuses the same request.  That is every pair of a relation of one
 * route, and of the others a pair whose ends both meet it as made
 * (route's change_profile and fork, label_path's ways by change_profile).
 * Across an exec, SCM_RIGHTS or an end made there, which hook refuses and
 * what a socket's revalidation asks follow the route (SEMANTICS, Q1 and
 * Q2).  A record's fields are its ABI's own, so not across ABIs.
 */
static bool hist_same_hook(enum hist_rel rel, const struct hist_case *hc,
			   unsigned int i, unsigned int j)
{
	if (rel == REL_OTHER_ABI)
		return false;
	return hist_one_route(rel) || (hist_changed_alone(&hc->w[i]) &&
				       hist_changed_alone(&hc->w[j]));
}

/* Runs the first @n worlds of @hc, then reads their records: 0, or -errno. */
static int hist_worlds_got(const struct hist_profs *hp,
			   const struct hist_case *hc, unsigned int n,
			   struct hist_got *got)
{
	char both[2 * NAME_MAX_LEN + 4];
	bool complain[HIST_WORLDS];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		got[i] = (struct hist_got){ };
		ret = hist_run(hp, hc, i, &got[i].o);
		if (ret)
			return ret;
		complain[i] = hc->w[i].kind == UK_COMPLAIN;
	}
	ret = hist_audited(hp, got, complain, n);
	/*
	 * U in another text refusing where U would is the same outcome, and
	 * so is a refusal by a world's D, whichever D.
	 */
	for (i = 0; !ret && i < n; i++) {
		got[i].by_u = got[i].audited &&
			      !strcmp(got[i].profile,
				      hist_task_label(hp, hc, i, both,
						      sizeof(both)));
		if (hc->w[i].deny && got[i].audited &&
		    !strcmp(got[i].profile, hist_deny_of(hp, hc, i)))
			snprintf(got[i].profile, sizeof(got[i].profile), "D");
	}
	return ret;
}

/* Judges of a world against another's use: unix_history_policies.c. */
static int hist_delivery(const struct hist_profs *hp,
			 const struct hist_case *hc,
			 struct hist_got got[HIST_WORLDS], unsigned int i,
			 unsigned int j, enum hist_verdict *v);
static bool hist_q5(const struct hist_profs *hp, const struct hist_case *hc,
		    const struct hist_got *a, const struct hist_got *b);
static const char *hist_audit_wrong(const struct hist_got *g);

/* Keeps worlds @i and @j of @hc, as worlds 1 and 2: 1, they differ. */
static int hist_pair(struct hist_case *hc, struct hist_got got[HIST_WORLDS],
		     unsigned int i, unsigned int j, enum hist_verdict *v)
{
	hc->w[0] = hc->w[i];
	hc->w[1] = hc->w[j];
	got[0] = got[i];
	got[1] = got[j];
	hc->worlds = 2;
	*v = HV_DIFFER;
	return 1;
}

/*
 * Runs every world: 1 if two differ, or one its own audit records
 * contradict ([audit]), 0 if not (or, but for prior use,
 * where a world was not delivered the end), -errno if a run could not
 * be set up or its audit records not read.  On a difference @hc and @got
 * keep the two worlds that differed, as worlds 1 and 2, for the
 * shrinking and the report.  @v: what the case decided, if not NULL.
 */
static int hist_differ(const struct hist_profs *hp, struct hist_case *hc,
		       enum hist_rel rel, struct hist_got got[HIST_WORLDS],
		       enum hist_verdict *v)
{
	enum hist_verdict none;
	unsigned int i, j;
	int ret;

	v = v ?: &none;
	*v = HV_NOT_RUN;
	ret = hist_worlds_got(hp, hc, hc->worlds, got);
	if (ret)
		return ret;
	/* A world its own records contradict is a pair by itself. */
	for (i = 0; i < hc->worlds; i++)
		if (hist_audit_wrong(&got[i]))
			return hist_pair(hc, got, i, i, v);
	*v = HV_EXCLUDED;
	for (i = 0; i < hc->worlds; i++) {
		for (j = i + 1; j < hc->worlds; j++) {
			ret = hist_delivery(hp, hc, got, i, j, v);
			if (ret < 0)
				return ret;
			/* Else delivery is compared where the route is the same. */
			if (ret == 0 || (ret == 2 && !hist_one_route(rel) &&
					 (hist_not_delivered(&got[i].o) ||
					  hist_not_delivered(&got[j].o))))
				continue;
			if (ret == 2 &&
			    hist_same(&got[i], &got[j],
				      hist_same_hook(rel, hc, i, j))) {
				*v = hist_alike(&got[i].o);
				continue;
			}
			if (hist_q5(hp, hc, &got[i], &got[j])) {
				*v = HV_Q5;
				continue;
			}
			return hist_pair(hc, got, i, j, v);
		}
	}
	return 0;
}

/* @t replaces @hc when its pair still differs. */
static void hist_try(const struct hist_profs *hp, struct hist_case *hc,
		     const struct hist_case *t, enum hist_rel rel,
		     struct hist_got got[HIST_WORLDS])
{
	struct hist_got g[HIST_WORLDS];
	struct hist_case c = *t;

	if (memcmp(t, hc, sizeof(*t)) &&
	    hist_differ(hp, &c, rel, g, NULL) == 1) {
		*hc = c;
		memcpy(got, g, sizeof(g));
	}
}

/*
 * The smallest pair that still differs, one change at a time: each
 * operation of the warm-up dropped (of world 2's for prior use, of both
 * otherwise), and of the peer's use; a socketpair (but for address_user,
 * whose address is the shape's), of stream sockets; a write; (but for
 * the label path) a plain change_profile; then U's unix rules and its
 * file rules, and the peer's U', each the pool's first choice.
 */
static void hist_shrink(const struct hist_profs *hp, struct hist_case *hc,
			enum hist_rel rel, struct hist_got got[HIST_WORLDS])
{
	struct hist_case t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++) {
		t = *hc;
		t.w[1].warm &= ~hist_warm_ops[i];
		if (rel != REL_PRIOR_USE)
			t.w[0].warm = t.w[1].warm;
		else if (!t.w[1].warm)
			continue;
		hist_try(hp, hc, &t, rel, got);
	}
	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++) {
		t = *hc;
		t.peer_warm &= ~hist_warm_ops[i];
		if (t.peer == HPEER_USE && t.peer_warm)
			hist_try(hp, hc, &t, rel, got);
	}
	t = *hc;
	t.shape = HSHAPE_PAIR;
	if (rel != REL_ADDR)
		hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.type = SOCK_STREAM;
	hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.op = HOP_WRITE;
	hist_try(hp, hc, &t, rel, got);
	if (rel != REL_LABEL_PATH) {
		t = *hc;
		t.w[0].onto = ONTO_PROFILE;
		t.w[1].onto = ONTO_PROFILE;
		hist_try(hp, hc, &t, rel, got);
	}
	t = *hc;
	t.user = hist_user(U_ALL, hist_file_of(t.user));
	hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.user = hist_user(hist_unix_of(t.user), F_RWK);
	hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.peer_user = 0;
	if (t.peer == HPEER_CHANGE)
		hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.w[0].how = HANDOFF_FORK;
	t.w[1].how = HANDOFF_FORK;
	if (rel == REL_PEER_SIDE)
		hist_try(hp, hc, &t, rel, got);
}

/*
 * Runs cases until the budget is spent; @fn runs one and says what it
 * decided.  A lane that reached the operation in fewer than half its
 * cases, or saw only one outcome, tested nothing it can claim.
 */
typedef enum hist_verdict hist_case_fn(struct ctx *c, u64 seed, int n,
				       void *arg);

static void hist_loop(struct ctx *c, const char *rel, long ms,
		      hist_case_fn *fn, void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	u64 state = hist_budget.seed, seed;
	int n, v, tally[HV_COUNT] = { 0 }, decided;
	struct timespec t0;

	ms = hist_budget.ms ?: ms;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ksft_print_msg("history %s: first seed %#llx\n", rel, state);
	for (n = 0;; n++) {
		if (hist_budget.max_cases && n >= hist_budget.max_cases)
			break;
		if (!hist_budget.max_cases && ms_since(&t0) >= ms)
			break;
		/* The first case is the seed itself, to re-run one. */
		seed = n ? hist_next(&state) : state;
		c->subs++;
		tally[fn(c, seed, n, arg)]++;
		if (_metadata->exit_code == KSFT_SKIP)
			return;
	}
	ksft_print_msg("history %s: %d cases\n", rel, n);
	for (v = 0; v < HV_COUNT; v++)
		ksft_print_msg("history %s:   %d %s\n", rel, tally[v], hv_name[v]);
	decided = tally[HV_ALLOWED] + tally[HV_REFUSED] + tally[HV_DIFFER] +
		  tally[HV_Q3] + tally[HV_Q5];
	if (tally[HV_Q3])
		question_seen(_metadata, "Q3");
	if (tally[HV_Q5])
		question_seen(_metadata, "Q5");
	if (n < HIST_DECIDED_MIN)
		return;
	EXPECT_LE(n, 2 * decided) {
		TH_LOG("history %s: %d of %d cases reached the operation", rel,
		       decided, n);
	}
	EXPECT_TRUE(tally[HV_ALLOWED] && tally[HV_REFUSED]) {
		TH_LOG("history %s: no case allowed, or none refused: nothing decided",
		       rel);
	}
}

struct hist_arg {
	const struct hist_profs *hp;
	enum hist_rel rel;
};

/* FAILs case @hc, printing its two worlds: @how, what was wrong. */
static void hist_fail(struct ctx *c, const struct hist_case *hc,
		      const struct hist_got got[2], const char *how)
{
	struct __test_metadata *_metadata = c->metadata;
	char w0[512], w1[512], o0[512], o1[512];

	hist_world_str(hc, c->v->abi, 0, w0, sizeof(w0));
	hist_world_str(hc, c->v->abi, 1, w1, sizeof(w1));
	EXPECT_TRUE(false) {
		TH_LOG("seed %#llx (%s ABI), %s: world 1: %s: %s; world 2: %s: %s",
		       hc->seed, c->v->abi == AA_ABI_NEW ? "NEW" : "OLD", how,
		       w0, hist_got_str(&got[0], o0, sizeof(o0)), w1,
		       hist_got_str(&got[1], o1, sizeof(o1)));
	}
}

static enum hist_verdict hist_case(struct ctx *c, u64 seed, int n,
				   void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct hist_profs *hp = ((struct hist_arg *)arg)->hp;
	enum hist_rel rel = ((struct hist_arg *)arg)->rel;
	char o0[512];
	struct hist_got got[HIST_WORLDS];
	enum hist_verdict v;
	struct hist_case hc;
	int ret;

	hist_gen(&hc, seed, rel);
	ret = hist_differ(hp, &hc, rel, got, &v);
	/* A world that did not finish in time decided nothing. */
	if (ret == 1 && (hist_timed_out(&got[0].o) ||
			 hist_timed_out(&got[1].o))) {
		ksft_print_msg("history %s case %d seed %#llx: a world timed out: %s\n",
			       hist_rel_name[rel], n, seed,
			       hist_got_str(&got[hist_timed_out(&got[1].o)],
					    o0, sizeof(o0)));
		return HV_NOT_RUN;
	}
	/* A difference must show again: one slow world is not a bug. */
	if (ret == 1) {
		struct hist_got again[HIST_WORLDS];
		struct hist_case hc2;

		hist_gen(&hc2, seed, rel);
		if (!hist_differ(hp, &hc2, rel, again, &v)) {
			ksft_print_msg("history %s case %d seed %#llx: DIFFER once only: %s\n",
				       hist_rel_name[rel], n, seed, hv_name[v]);
			return v;
		}
	}
	ksft_print_msg("history %s case %d seed %#llx: %s\n",
		       hist_rel_name[rel], n, seed,
		       ret < 0 ? "not run" : ret ? "DIFFER" : hv_name[v]);
	EXPECT_LE(0, ret) TH_LOG("seed %#llx: cannot run: %s", seed,
				 strerror(-ret));
	if (ret != 1)
		return v;
	hist_shrink(hp, &hc, rel, got);
	hist_fail(c, &hc, got, hist_audit_wrong(&got[0]) ?: "shrunk");
	return HV_DIFFER;
}

/* The judges of relations that are not equality: unix_history_policies.c. */
static hist_case_fn hist_wider_case, hist_rel_case;

static void check_hist(struct ctx *c, enum hist_rel rel)
{
	struct __test_metadata *_metadata = c->metadata;
	struct hist_profs hp;
	struct hist_arg arg = { &hp, rel };
	char why[160];

	if (!hist_names(c, &hp) || c->collect)
		return;
	if ((rel == REL_PEER_CONJ || rel == REL_ADDR) && env.skip[AA_ABI_NEW][0])
		SKIP(return, "the NEW ABI of %s: %s",
		     rel == REL_ADDR ? "D" : "the peers", env.skip[AA_ABI_NEW]);
	if (rel == REL_OTHER_ABI && env.skip[hist_other_abi(c->v->abi)][0])
		SKIP(return, "the other ABI: %s",
		     env.skip[hist_other_abi(c->v->abi)]);
	/* Whether a refusal was audited is part of the outcome. */
	hp.afd = audit_log_open(why, sizeof(why));
	if (hp.afd < 0)
		SKIP(return, "%s", why);
	hist_loop(c, hist_rel_name[rel],
		  rel == REL_ROUTE ? HISTORY_ROUTE_MS :
		  rel == REL_PRIOR_USE ? HISTORY_PRIOR_USE_MS : HISTORY_MS,
		  rel == REL_WIDER ? hist_wider_case :
		  rel == REL_COMPLAIN || rel == REL_CONJ ||
		  rel == REL_PEER_CONJ ? hist_rel_case :
							   hist_case, &arg);
	close(hp.afd);
}

/* clang-format off */
FIXTURE(history) {};

FIXTURE_VARIANT(history) {
	enum aa_abi abi;
};

FIXTURE_SETUP(history) {}

FIXTURE_TEARDOWN(history) {}

FIXTURE_VARIANT_ADD(history, old_abi) {
	.abi = AA_ABI_OLD,
};

FIXTURE_VARIANT_ADD(history, new_abi) {
	.abi = AA_ABI_NEW,
};

/* clang-format on */

static void run_hist(struct __test_metadata *_metadata, enum aa_abi abi,
		     check_fn *fn)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): the labels these histories keep are not kept");
	if (!hist_budget.init) {
		hist_budget_init();
		hist_have_uring = !handoff_uring_probe();
	}
	run_abi(_metadata, abi, fn);
}

/* A relation's test, in each ABI: its check is check_hist()'s. */
#define HIST_TEST(name, rel)						\
	static void check_hist_##name(struct ctx *c)			\
	{								\
		check_hist(c, rel);					\
	}								\
	TEST_F_TIMEOUT(history, name, HISTORY_TIMEOUT)			\
	{								\
		run_hist(_metadata, variant->abi, check_hist_##name);	\
	}

HIST_TEST(prior_use, REL_PRIOR_USE)

HIST_TEST(route, REL_ROUTE)

HIST_TEST(label_path, REL_LABEL_PATH)

HIST_TEST(peer_side, REL_PEER_SIDE)

static check_fn *const history_checks_of_abi[] = {
	check_hist_prior_use,
};

/* What the history lane registers, by ABI (the peer's: unix_peer_tests.c). */
static const struct checks history_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { history_checks_of_abi,
			 ARRAY_SIZE(history_checks_of_abi) },
	[AA_ABI_NEW] = { history_checks_of_abi,
			 ARRAY_SIZE(history_checks_of_abi) },
};
