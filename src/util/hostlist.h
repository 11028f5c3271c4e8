/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Slurm hostlists: `prefix[ranges]` such as `tux[0-5,12,20-25]`, leading zeros keep the width
 * (`node[01-24]`), several comma-separated items, a cartesian product for several bracket groups
 * (`rack[1-2]n[1-2]`).  Compression sorts by prefix, then number (as `scontrol show
 * hostlistsorted` does) and only ever brackets a trailing number.
 *
 * Ownership: the functions borrow their arguments; results are owned by the caller. */
#ifndef RD_HOSTLIST_H
#define RD_HOSTLIST_H
#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

/* At most this many names from one expansion (Slurm refuses very large ranges too). */
#define RD_HOSTLIST_MAX 1000000

/* Appends the names of list to out, in the order written.  Returns 0, or -EINVAL with a one-line
 * reason in err (an unbalanced bracket, a range that is not numbers, hi < lo, too many names). */
int rd_hostlist_expand(const char *list, struct rd_strv *out, char *err, size_t errlen);

/* The number of names list expands to (the same checks as rd_hostlist_expand), without making them. */
int rd_hostlist_count(const char *list, unsigned long long *count, char *err, size_t errlen);

/* Whether name is one of the names of list (*matched), without making them; *count (if not NULL)
 * is how many names list has.  Returns 0, or -EINVAL with a reason as rd_hostlist_expand. */
int rd_hostlist_match(const char *list, const char *name, bool *matched, unsigned long long *count, char *err,
		      size_t errlen);

/* The order of compression: prefix (bytes), then the number's width class, then the number. */
int rd_hostname_cmp(const char *a, const char *b);

/* Sorts names (rd_hostname_cmp) in place and returns their compressed list ("" for none).
 * Duplicates are kept once. */
char *rd_hostlist_compress(const char *const *names, size_t n);

#endif
