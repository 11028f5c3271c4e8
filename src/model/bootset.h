/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the operator set up to run at every boot: the lines of /etc's boot-time hooks that name a
 * tool (mlnx_qos, dcb ...), so that a check can say whether a setting made by hand comes back
 * after a reboot or a driver restart.  The places read: udev rules (/etc/udev/rules.d/\*.rules),
 * systemd units (/etc/systemd/system/\*.service) and the executable each one's ExecStart names
 * (one level: a unit that runs a script), ifupdown's hooks (/etc/network/if-up.d/\*,
 * if-pre-up.d/\*), NetworkManager's dispatcher scripts (/etc/NetworkManager/dispatcher.d/\*) and
 * /etc/rc.local.  Packages' own files (/lib, /usr/lib) are not the operator's and are not read.
 *
 * Ownership: an rd_bootset owns its lines (rd_bootset_free); the loader borrows its source. */
#ifndef RD_MODEL_BOOTSET_H
#define RD_MODEL_BOOTSET_H
#include <stdbool.h>

#include "source/source.h"

#define RD_BOOTSET_MAX_FILES 64  /* files read at most */
#define RD_BOOTSET_MAX_LINES 16  /* lines kept at most */

struct rd_bootset_line {
	char *file;   /* "/etc/udev/rules.d/90-qos.rules" */
	unsigned line;
	char *text;   /* the line, at most 300 bytes, leading blanks removed */
};

struct rd_bootset {
	struct rd_bootset_line *v;
	size_t n;
	unsigned files;   /* files read */
	bool truncated;   /* more files or lines than the bounds: the rest not looked at */
};

/* Reads the places above for lines (not comments) that name one of tools as a word (a command:
 * "mlnx_qos", "/usr/bin/mlnx_qos", "dcb").  Never fails: what cannot be read is not there. */
void rd_bootset_load(struct rd_source *src, const char *const *tools, struct rd_bootset *out);
void rd_bootset_free(struct rd_bootset *b);
/* One file's text (size bytes, NUL not needed), as rd_bootset_load reads it: its lines that name
 * a tool appended to b under file's name; *exec (when exec is not NULL and *exec NULL) set to the
 * first absolute path an ExecStart= line runs (a unit's), the caller's to free. */
void rd_bootset_scan_text(struct rd_bootset *b, const char *file, const char *data, size_t size,
			  const char *const *tools, char **exec);

/* Whether line sets something for the network interface ifname: it names ifname as a word, or
 * names no interface at all (its interface is a variable: $1, %k, ${IFACE}, or it loops over
 * them), which is then taken to cover every interface.  A line that names only other interfaces
 * does not. */
bool rd_bootset_covers(const struct rd_bootset_line *l, const char *ifname);

#endif
