// SPDX-License-Identifier: GPL-2.0
/* What af_unix_send_perf ran on.  See perf_env.h. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "perf_env.h"

static void cpu_model(char *buf, size_t len)
{
	char line[512], *p;
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (p) {
			p += strspn(p + 1, " \t") + 1;
			p[strcspn(p, "\n")] = '\0';
			if (*p)
				snprintf(buf, len, "%s", p);
		}
		break;
	}
	fclose(f);
}

static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* Every timed batch interval contains about one clock_gettime(). */
static double clock_overhead(void)
{
	struct timespec ts;
	double t0;
	int i;

	t0 = perf_now_ns();
	for (i = 0; i < 100000; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (perf_now_ns() - t0) / 100000;
}

static void read_or(const char *path, char *buf, size_t len, const char *dflt)
{
	if (aa_read_line(path, buf, len) || !buf[0])
		snprintf(buf, len, "%s", dflt);
}

void perf_env_probe(struct perf_env *env)
{
	const char *slow = getenv("KSFT_MACHINE_SLOW");
	time_t t = time(NULL);
	bool lockdep, kmemleak;
	cpu_set_t set;

	memset(env, 0, sizeof(*env));
	uname(&env->uts);
	aa_env_probe(&env->aa);
	if (aa_task_label(env->label, sizeof(env->label)))
		snprintf(env->label, sizeof(env->label), "none (no AppArmor label)");
	env->unconfined = !strcmp(env->label, "unconfined");
	read_or("/proc/cmdline", env->cmdline, sizeof(env->cmdline), "");
	env->icount = has_word(env->cmdline, PERF_ICOUNT_WORD);
	env->machine_slow = slow && !strcmp(slow, "yes");
	read_or("/etc/machine-id", env->id.machine_id,
		sizeof(env->id.machine_id), "none");
	cpu_model(env->id.cpu_model, sizeof(env->id.cpu_model));
	snprintf(env->sys.kernel, sizeof(env->sys.kernel), "%s",
		 env->uts.release);
	read_or("/sys/kernel/security/lsm", env->sys.lsm, sizeof(env->sys.lsm),
		"unreadable");
	env->sys.apparmor = env->aa.enabled;
	read_or("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		env->clocksource, sizeof(env->clocksource), "unknown");
	/* debugfs has the dynamic model; else what the build says */
	if (aa_read_line("/sys/kernel/debug/sched/preempt", env->preempt,
			 sizeof(env->preempt)))
		snprintf(env->preempt, sizeof(env->preempt), "%s",
			 strstr(env->uts.version, "PREEMPT_RT") ? "PREEMPT_RT" :
			 strstr(env->uts.version, "PREEMPT_DYNAMIC") ?
			 "PREEMPT_DYNAMIC (model not readable)" :
			 strstr(env->uts.version, "PREEMPT") ? "PREEMPT" :
			 "none or voluntary");
	/*
	 * Lockdep and kmemleak, as debug kernels have them, cost every lock
	 * and allocation more than the send path's own work: what is timed
	 * there says nothing of the kernel that ships.
	 */
	lockdep = !access("/proc/lockdep", F_OK);
	kmemleak = !access("/sys/kernel/debug/kmemleak", F_OK);
	snprintf(env->debug, sizeof(env->debug), "%s%s%s",
		 lockdep ? "lockdep" : "", lockdep && kmemleak ? ", " : "",
		 kmemleak ? "kmemleak" : "");
	strftime(env->time, sizeof(env->time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	env->clock_ns = clock_overhead();
	if (!sched_getaffinity(0, sizeof(set), &set))
		env->nr_cpus = CPU_COUNT(&set);
}

void perf_env_print(const struct perf_env *env)
{
	ksft_print_msg("kernel: %s %s\n", env->uts.release, env->uts.version);
	ksft_print_msg("apparmor label: %s%s\n", env->label,
		       env->unconfined ? " (unconfined, as required)" : "");
	ksft_print_msg("lsm: %s; apparmor %s\n", env->sys.lsm,
		       env->sys.apparmor ? "enabled" : "not enabled");
	ksft_print_msg("cpu: %s; machine-id: %s\n", env->id.cpu_model,
		       env->id.machine_id);
	ksft_print_msg("clocksource: %s; preempt: %s\n", env->clocksource,
		       env->preempt);
	ksft_print_msg("icount: %s (kernel command line word %s); KSFT_MACHINE_SLOW: %s\n",
		       env->icount ? "yes" : "no", PERF_ICOUNT_WORD,
		       env->machine_slow ? "yes" : "no");
}
