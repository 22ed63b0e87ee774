// SPDX-License-Identifier: GPL-2.0
/*
 * The random lane over ordinary files: a regular file, a directory or a
 * FIFO opened under A and used once under U (unix_carried.h), what a unix
 * socket or an exec carries.  U's rule on it is drawn from the grammar:
 * any set of r, w, k and m (a directory and a FIFO: r, w, k), with
 * "owner" or not, the object owned by the task's uid or by another.
 *
 * - file_prior_use (R1): the same route, after A used the descriptor (a
 *   random set of the operations its mode allows) or did not: the two
 *   outcomes must be the same, a refusal's audit record included.
 * - file_route (R3): the descriptor received with SCM_RIGHTS, kept across
 *   an exec into U by change_onexec, or across fork() and change_profile,
 *   beside the operation on a descriptor U opened itself, which is the
 *   oracle ([carry]): where U's own is allowed, each route must be;
 *   where it is refused at the operation, each route must be, with the
 *   same errno and record; where U may not open it so, a route may
 *   refuse it on its way (dropped, revoked) or at the operation.
 *
 * A stack is among prior_use's routes, not route's: its label is A//&U,
 * which decides as A and U together ([label]), not as U alone.
 * The counts each test prints say how many cases decided something.
 */

#include "unix_carried.h"
#include "unix_history.h"
#include "unix_test.h"

/* What U's rule may grant, by object. */
#define HF_PERMS(obj) ((obj) == COBJ_FILE ? P_R | P_W | P_K | P_M : \
			P_R | P_W | P_K)
#define HF_SETS 32
/* The uid that owns the object when the task does not. */
#define HF_OTHER_UID 65534

static const char *const hf_rel[COBJ_COUNT] = {
	[COBJ_FILE] = "lane/file",
	[COBJ_DIR] = "lane/dir/",
	[COBJ_FIFO] = "lane/fifo",
};

struct hf_profs {
	const char *a;
	/* U by object, permission set and "owner". */
	const char *u[COBJ_COUNT][HF_SETS][2];
	char path[COBJ_COUNT][PATH_MAX];
	ino_t ino[COBJ_COUNT];
	int afd;
};

struct hf_world {
	enum carried_route route;
	unsigned int warm;
};

struct hf_case {
	enum carried_object obj;
	enum carried_op op;
	unsigned int perms;
	bool owner;		/* U's rule is "owner" */
	bool others;		/* the object is HF_OTHER_UID's */
	unsigned int worlds;
	struct hf_world w[3];
};

struct hf_got {
	struct outcome o;
	char rec[REC_LEN];
};

/* The pool, A and the objects; false if a profile is not registered. */
static bool hf_names(struct ctx *c, struct hf_profs *hp)
{
	const char *dir = aa_policy_dir(policy);
	const char *abi = c->v->abi == AA_ABI_NEW ? "new" : "old";
	char name[64], aname[32], p[8];
	struct prof a = { .name = aname }, u;
	unsigned int obj, s, own;

	snprintf(aname, sizeof(aname), "hist_fa_%s", abi);
	rules(&a, "  %s\n  /proc/*/attr/{apparmor/,}current w,\n"
	      "  change_profile,\n  /** rm,\n  %s ix,\n  %s/lane/** rwk,\n",
	      prof_allow_unix(c->v->abi), aa_self_exe(), dir);
	hp->a = registered(c, &a);
	for (obj = 0; obj < COBJ_COUNT; obj++) {
		snprintf(hp->path[obj], sizeof(hp->path[obj]), "%s/%s", dir,
			 hf_rel[obj]);
		for (s = 0; s < HF_SETS; s++) {
			if (s & ~HF_PERMS(obj))
				continue;
			for (own = 0; own < 2; own++) {
				snprintf(name, sizeof(name), "hist_f_%s_%s%s_%s",
					 carried_tag[obj],
					 s ? perms_str(s, p) : "none",
					 own ? "_owner" : "", abi);
				u = (struct prof){ .name = name };
				carried_user_base(&u, c->v->abi);
				if (s)
					prof_add(&u, "  %s%s %s,\n",
						 own ? "owner " : "",
						 hp->path[obj], perms_str(s, p));
				hp->u[obj][s][own] = registered(c, &u);
				if (!hp->u[obj][s][own])
					return false;
			}
		}
	}
	return hp->a;
}

/* The lane's objects, made by the unconfined test; 0 or -errno. */
static int hf_objects(struct hf_profs *hp)
{
	char d[PATH_MAX];
	struct stat st;
	unsigned int obj;
	int fd;

	snprintf(d, sizeof(d), "%s/lane", aa_policy_dir(policy));
	if ((mkdir(d, 0755) && errno != EEXIST) ||
	    (mkdir(hp->path[COBJ_DIR], 0755) && errno != EEXIST) ||
	    (mkfifo(hp->path[COBJ_FIFO], 0644) && errno != EEXIST))
		return -errno;
	fd = open(hp->path[COBJ_FILE], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, CARRIED_FILE_LEN))
		return -errno;
	close(fd);
	/*
	 * Anyone may read and write them, so that whoever owns them DAC lets
	 * every task through without a capability, and AppArmor decides.
	 */
	for (obj = 0; obj < COBJ_COUNT; obj++) {
		if (chmod(hp->path[obj], obj == COBJ_DIR ? 0777 : 0666) ||
		    stat(hp->path[obj], &st))
			return -errno;
		hp->ino[obj] = st.st_ino;
	}
	return 0;
}

/* A random set of the operations a descriptor opened for @op allows. */
static unsigned int hf_warm(u64 *s, enum carried_object obj,
			    enum carried_op op)
{
	unsigned int w = 0;
	enum carried_op o;

	for (o = 0; o < COP_COUNT; o++)
		if (carried_op_fits(obj, op, o) && hist_pick(s, 3) == 0)
			w |= CARRIED_WARM(o);
	return w;
}

static void hf_gen(struct hf_case *hc, u64 seed, bool route)
{
	static const enum carried_route prior_routes[] = {
		CROUTE_STREAM, CROUTE_DGRAM, CROUTE_SEQPACKET, CROUTE_ONEXEC,
		CROUTE_FORK, CROUTE_STACK,
	};
	enum carried_route r[3] = {
		CROUTE_STREAM + hist_pick(&seed, 3), CROUTE_ONEXEC, CROUTE_FORK,
	};
	unsigned int skip;

	hc->obj = hist_pick(&seed, COBJ_COUNT);
	do
		hc->op = hist_pick(&seed, COP_COUNT);
	while (!carried_op_applies(hc->obj, hc->op));
	hc->perms = hist_next(&seed) & HF_PERMS(hc->obj);
	hc->owner = hist_pick(&seed, 2);
	hc->others = hist_pick(&seed, 4) == 0;
	hc->w[0].warm = hf_warm(&seed, hc->obj, hc->op);
	if (!route) {
		hc->worlds = 2;
		hc->w[0].route = prior_routes[hist_pick(&seed,
						ARRAY_SIZE(prior_routes))];
		hc->w[1] = hc->w[0];
		hc->w[0].warm = 0;
		if (!hc->w[1].warm)
			hc->w[1].warm = CARRIED_WARM(hc->op);
		return;
	}
	/* U's own descriptor, and two of the three ways the file comes. */
	hc->worlds = 3;
	skip = hist_pick(&seed, 3);
	hc->w[1] = (struct hf_world){ r[skip ? 0 : 1], hc->w[0].warm };
	hc->w[2] = (struct hf_world){ r[skip == 2 ? 1 : 2], hc->w[0].warm };
	hc->w[0].route = CROUTE_SELF;
}

static void hf_world_str(const struct hf_case *hc, unsigned int w, char *buf,
			 size_t len)
{
	char p[8];
	size_t n;
	int o;

	n = snprintf(buf, len, "%s, %s; U: %s%s; owned by uid %d; %s",
		     carried_object_name(hc->obj), carried_op_name(hc->op),
		     hc->owner ? "owner " : "",
		     hc->perms ? perms_str(hc->perms, p) : "nothing",
		     hc->others ? HF_OTHER_UID : 0,
		     carried_route_name(hc->w[w].route));
	for (o = 0; o < COP_COUNT && n < len; o++)
		if (hc->w[w].warm & CARRIED_WARM(o))
			n += snprintf(buf + n, len - n, ", A did %s first",
				      carried_op_name(o));
}

/* World @w of @hc, its outcome and a refusal's record; 0 or -errno. */
static int hf_run(const struct hf_profs *hp, const struct hf_case *hc,
		  unsigned int w, struct hf_got *got)
{
	char label[2 * NAME_MAX_LEN + 4];
	struct carried mark = {
		.path = hp->path[hc->obj],
		.user = hp->u[hc->obj][0][0],
	};
	struct carried cr = {
		.obj = hc->obj,
		.route = hc->w[w].route,
		.op = hc->op,
		.path = hp->path[hc->obj],
		.ino = hp->ino[hc->obj],
		.warm = hc->w[w].warm,
		.creator = hp->a,
		.user = hp->u[hc->obj][hc->perms][hc->owner],
		.label = hp->u[hc->obj][hc->perms][hc->owner],
	};
	struct outcome opener;
	int ret;

	if (cr.route == CROUTE_STACK)
		cr.label = carried_stack_label(label, sizeof(label), &cr);
	if (chown(cr.path, hc->others ? HF_OTHER_UID : 0, -1))
		return -errno;
	ret = carried_run(&cr, &opener, &got->o);
	if (ret)
		return ret;
	/* A is allowed everything: its failure is the run's own. */
	if (opener.step != STEP_DONE || opener.err || opener.fault)
		got->o = opener;
	return carried_audit(hp->afd, &mark, &got->o, got->rec,
			     sizeof(got->rec));
}

/* Allowed 0, refused at the operation 1, on its way 2, neither -1. */
static int hf_verdict(const struct outcome *o)
{
	if (o->step == STEP_DONE && !o->err && !o->fault)
		return 0;
	if (o->step == STEP_OP && o->err == EACCES)
		return 1;
	if ((o->step == STEP_RECV_FD || o->step == STEP_EXEC) &&
	    o->fault == FAULT_NOT_INSTALLED)
		return 2;
	return o->step == STEP_OPEN && o->err == EACCES ? 2 : -1;
}

/*
 * Whether world @x (route @r) may end as it did, beside world 0 of the
 * same case; -1 when world 0 says nothing of it: U may not open the
 * object so, and the route delivers nothing (fork, a stack), so that
 * only the operation is asked, which U's own descriptor never reached.
 */
static int hf_agree(const struct hf_case *hc, enum carried_route r,
		    const struct hf_got *w0, const struct hf_got *x)
{
	int v0 = hf_verdict(&w0->o), vx = hf_verdict(&x->o);

	if (hc->w[0].route != CROUTE_SELF)
		return outcome_eq(&w0->o, &x->o) && !strcmp(w0->rec, x->rec);
	/* Receipt and exec ask what open() asks: the open mode. */
	if (v0 == 2)
		return r == CROUTE_FORK || r == CROUTE_STACK ? -1 : vx == 2;
	return v0 == vx && (v0 != 1 || !strcmp(w0->rec, x->rec));
}

/*
 * Runs every world: 1 if one disagrees with world 0 (then world 1 is that
 * one), 0 if not, -errno if a run could not be set up; @v: what the case
 * decided.
 */
static int hf_differ(const struct hf_profs *hp, struct hf_case *hc,
		     struct hf_got got[3], enum hist_verdict *v)
{
	unsigned int i, judged;
	int ret, agree;

	*v = HV_NOT_RUN;
	for (i = 0; i < hc->worlds; i++) {
		ret = hf_run(hp, hc, i, &got[i]);
		if (ret)
			return ret;
	}
	/* The same failure before the operation everywhere decides nothing. */
	*v = HV_NOT_REACHED;
	for (i = 1; i < hc->worlds && hf_verdict(&got[0].o) < 0; i++)
		if (!outcome_eq(&got[0].o, &got[i].o))
			break;
	if (i == hc->worlds && hf_verdict(&got[0].o) < 0)
		return 0;
	for (i = 1, judged = 0; i < hc->worlds; i++) {
		agree = hf_agree(hc, hc->w[i].route, &got[0], &got[i]);
		judged += agree >= 0;
		if (agree)
			continue;
		hc->w[1] = hc->w[i];
		got[1] = got[i];
		hc->worlds = 2;
		*v = HV_DIFFER;
		return 1;
	}
	*v = !judged ? HV_EXCLUDED :
	     hf_verdict(&got[0].o) == 0 ? HV_ALLOWED : HV_REFUSED;
	return 0;
}

/* Drops each operation of A's first use while the pair still differs. */
static void hf_shrink(const struct hf_profs *hp, struct hf_case *hc,
		      struct hf_got got[3])
{
	enum hist_verdict none;
	struct hf_got g[3];
	struct hf_case c;
	enum carried_op o;
	unsigned int w;

	for (o = 0; o < COP_COUNT; o++) {
		c = *hc;
		for (w = 0; w < c.worlds; w++)
			c.w[w].warm &= ~CARRIED_WARM(o);
		if (hc->w[0].route != CROUTE_SELF && !c.w[1].warm)
			continue;
		if (memcmp(&c, hc, sizeof(c)) &&
		    hf_differ(hp, &c, g, &none) == 1) {
			*hc = c;
			memcpy(got, g, sizeof(g));
		}
	}
}

struct hf_arg {
	struct hf_profs *hp;
	bool route;
};

static enum hist_verdict hf_case(struct ctx *c, u64 seed, int n, void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	struct hf_arg *ha = arg;
	const char *rel = ha->route ? "file_route" : "file_prior_use";
	char w0[512], w1[512], o0[160], o1[160];
	enum hist_verdict v;
	struct hf_got got[3];
	struct hf_case hc;
	int ret;

	hf_gen(&hc, seed, ha->route);
	ret = hf_differ(ha->hp, &hc, got, &v);
	/* A difference must show again: one slow world is not a bug. */
	if (ret == 1) {
		struct hf_got again[3];
		struct hf_case hc2;

		hf_gen(&hc2, seed, ha->route);
		if (!hf_differ(ha->hp, &hc2, again, &v)) {
			ksft_print_msg("history %s case %d seed %#llx: DIFFER once only: %s\n",
				       rel, n, seed, hv_name[v]);
			return v;
		}
	}
	ksft_print_msg("history %s case %d seed %#llx: %s\n", rel, n, seed,
		       ret < 0 ? "not run" : ret ? "DIFFER" : hv_name[v]);
	EXPECT_LE(0, ret) TH_LOG("seed %#llx: cannot run: %s", seed,
				 strerror(-ret));
	if (ret != 1)
		return v;
	hf_shrink(ha->hp, &hc, got);
	hf_world_str(&hc, 0, w0, sizeof(w0));
	hf_world_str(&hc, 1, w1, sizeof(w1));
	EXPECT_TRUE(false) {
		TH_LOG("seed %#llx (%s ABI), shrunk: world 1: %s: %s %s; world 2: %s: %s %s",
		       seed, c->v->abi == AA_ABI_NEW ? "NEW" : "OLD", w0,
		       outcome_str(&got[0].o, o0, sizeof(o0)), got[0].rec, w1,
		       outcome_str(&got[1].o, o1, sizeof(o1)), got[1].rec);
	}
	return HV_DIFFER;
}

static void check_hf(struct ctx *c, bool route)
{
	struct __test_metadata *_metadata = c->metadata;
	struct hf_profs hp = { .afd = -1 };
	struct hf_arg arg = { .hp = &hp, .route = route };
	char why[160];

	if (!hf_names(c, &hp)) {
		if (c->collect)
			ksft_exit_fail_msg("cannot register more profiles\n");
		ASSERT_TRUE(false);
	}
	if (c->collect)
		return;
	ASSERT_EQ(0, hf_objects(&hp));
	/* A refusal's record is part of the outcome. */
	hp.afd = audit_log_open(why, sizeof(why));
	if (hp.afd < 0)
		SKIP(return, "%s", why);
	hist_loop(c, route ? "file_route" : "file_prior_use", HISTORY_MS,
		  hf_case, &arg);
	close(hp.afd);
}

static void check_hf_prior_use(struct ctx *c)
{
	check_hf(c, false);
}

static void check_hf_route(struct ctx *c)
{
	check_hf(c, true);
}

/* Ordinary files need no network_v9/af_unix: 6.12 runs the OLD ABI's. */
static void run_hf(struct __test_metadata *_metadata, enum aa_abi abi,
		   check_fn *fn)
{
	if (!hist_budget.init)
		hist_budget_init();
	run_abi(_metadata, abi, fn);
}

TEST_F_TIMEOUT(history, file_prior_use, HISTORY_TIMEOUT)
{
	run_hf(_metadata, variant->abi, check_hf_prior_use);
}

TEST_F_TIMEOUT(history, file_route, HISTORY_TIMEOUT)
{
	run_hf(_metadata, variant->abi, check_hf_route);
}

static check_fn *const history_files_checks_of_abi[] = {
	check_hf_prior_use,
};

static const struct checks history_files_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { history_files_checks_of_abi,
			 ARRAY_SIZE(history_files_checks_of_abi) },
	[AA_ABI_NEW] = { history_files_checks_of_abi,
			 ARRAY_SIZE(history_files_checks_of_abi) },
};
