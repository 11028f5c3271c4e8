/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a read of the source gives: a file's contents or a command's output, and the read limits.
 * Ownership: an rd_text's data is owned by whoever holds the rd_text (rd_text_free). */
#ifndef RD_SOURCE_TEXT_H
#define RD_SOURCE_TEXT_H
#include <stddef.h>

/* Contents of a file or a command's output.  data is NUL-terminated (NULL when err != 0). */
struct rd_text {
	char *data;
	size_t len;
	int err;    /* 0, an errno, or an RD_E* code */
	int status; /* commands only: exit status, or -1 when killed / not run */
};
void rd_text_free(struct rd_text *t);

enum {
	RD_CAP_ATTR = 64 * 1024,        /* sysfs attribute, /proc/<pid>/limits ... */
	RD_CAP_FILE = 16 * 1024 * 1024, /* /proc/modules, dpkg status, logs */
};

#endif
