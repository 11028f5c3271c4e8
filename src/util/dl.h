/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared libraries loaded on first use (dlopen), so that a run that does not need one never maps
 * it: libinih for a policy file (model/policy.c), libyajl for `fleet` (fleet/report_in.c),
 * libarchive for archive roots (source/larchive.c), libibverbs for `probe` (probe/) and
 * `watch`'s verbs async events (source/verbsev.c).
 *
 * Ownership: a loaded library stays loaded until exit (the handle is never closed), and the
 * function pointers it gives stay valid as long; err is the caller's buffer. */
#ifndef RD_UTIL_DL_H
#define RD_UTIL_DL_H
#include <stddef.h>

/* Loads soname (RTLD_NOW | RTLD_LOCAL) and looks up each of names[0..n) into syms[] (a function
 * pointer as a void *, POSIX's dlsym contract).  Returns 0, or -1 with a one-line reason in err:
 * dlerror's text and "(apt-get install PACKAGE)", or "SONAME has no function NAME (NEED)" (the
 * library is then closed again).  No state is kept: the caller remembers the outcome. */
int rd_dl_load(const char *soname, const char *package, const char *need, const char *const names[], void *syms[],
	       size_t n, char *err, size_t errlen);

#endif
