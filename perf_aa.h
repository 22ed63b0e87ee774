/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small AppArmor helpers for af_unix_send_perf: detection, loading and
 * removing a profile with apparmor_parser, and change_profile without
 * libapparmor.  Candidates to merge into common.h.
 */
#ifndef _SELFTESTS_APPARMOR_PERF_AA_H
#define _SELFTESTS_APPARMOR_PERF_AA_H

#include <stdbool.h>
#include <stddef.h>

#define PERF_AA_FS "/sys/kernel/security/apparmor"

int perf_read_line(const char *path, char *buf, size_t len);
bool perf_aa_enabled(void);
int perf_aa_label(char *buf, size_t len);
bool perf_aa_feature_yes(const char *rel);
int perf_find_prog(const char *name, char *out, size_t len);
int perf_aa_load(const char *parser, const char *text, char *err,
		 size_t errlen);
int perf_aa_remove(const char *name);
int perf_aa_change_profile(const char *name);

#endif /* _SELFTESTS_APPARMOR_PERF_AA_H */
