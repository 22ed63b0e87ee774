// SPDX-License-Identifier: GPL-2.0
/*
 * The confined variants of af_unix_send_perf: the same series under an
 * OLD-ABI ("network unix") and a NEW-ABI ("unix") profile, reported and
 * never judged, since a baseline holds the unconfined ratio only.
 */
#include <stdbool.h>
#include <stdio.h>

#include "policy.h"
#include "perf_baseline.h"
#include "send_perf.h"

#define PROFILE_PREFIX "af_unix_send_perf"

static struct aa_policy *policy;
static const char *profile;

void variant_teardown(void)
{
	aa_policy_free(policy);
	policy = NULL;
	profile = NULL;
}

/* Loads the variant's profile for measure_confined(). */
const char *variant_setup(int v, char *reason, size_t rlen)
{
	static const char * const rules[NR_V] = {
		[V_OLD] = "  file,\n  network unix,\n",
		[V_NEW] = "  file,\n  unix,\n",
	};
	enum aa_abi abi = v == V_OLD ? AA_ABI_OLD : AA_ABI_NEW;
	bool abis[AA_ABI_COUNT] = { false };
	char err[PERF_ERR_MAX];

	if (env.aa.skip[abi][0])
		return env.aa.skip[abi];
#ifndef HAVE_LIBAPPARMOR
	return "built without libapparmor (pkg-config libapparmor): cannot change profile";
#endif
	aa_cleanup_stale(PROFILE_PREFIX);
	policy = aa_policy_new(PROFILE_PREFIX, err, sizeof(err));
	if (!policy) {
		snprintf(reason, rlen, "%s", err);
		return reason;
	}
	profile = aa_policy_add(policy, abi, v_names[v], rules[v]);
	abis[abi] = true;
	if (!profile || aa_policy_load(policy, env.aa.parser, abis, err,
				       sizeof(err))) {
		snprintf(reason, rlen, "loading the %s profile failed: %.400s",
			 v_names[v], profile ? err : "out of memory");
		variant_teardown();
		return reason;
	}
	return NULL;
}

void measure_confined(int wl, unsigned int size, struct series *shared)
{
	run_in_child(wl, size, profile, shared);
}
