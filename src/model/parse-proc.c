/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* /proc/modules, /proc/<pid>/limits and status, and a snapshot's device nodes (parse.h). */
#include "model/parse-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rd_parse_proc_modules_line(const char *line, struct rd_proc_module *out)
{
	char size[32], ref[16], holders[4096], addr[32];
	const char *p = line;
	memset(out, 0, sizeof *out);
	if (!line || !next_token(&p, out->name, sizeof out->name) || !next_token(&p, size, sizeof size) ||
	    !next_token(&p, ref, sizeof ref) || !next_token(&p, holders, sizeof holders) ||
	    !next_token(&p, out->state, sizeof out->state) || !next_token(&p, addr, sizeof addr))
		goto bad;
	uint64_t v;
	if (rd_parse_u64(size, 10, UINT64_MAX, &v) < 0)
		goto bad;
	out->size = v;
	if (strcmp(ref, "-") == 0) {
		out->refcnt = -1;
	} else if (rd_parse_u64(ref, 10, 0x7fffffff, &v) == 0) {
		out->refcnt = (int)v;
	} else {
		goto bad;
	}
	if (strcmp(holders, "-") != 0) {
		char *h = holders;
		while (*h) {
			char *comma = strchr(h, ',');
			if (!comma)
				goto bad; /* every holder is followed by ',' */
			*comma = '\0';
			if (strcmp(h, "[permanent]") == 0) {
				out->permanent = true;
			} else if (*h) {
				if (out->nholders >= RD_MAX_HOLDERS || strlen(h) >= sizeof out->holders[0])
					goto bad;
				strcpy(out->holders[out->nholders++], h);
			}
			h = comma + 1;
		}
	}
	if (strcmp(out->state, "Live") != 0 && strcmp(out->state, "Loading") != 0 &&
	    strcmp(out->state, "Unloading") != 0)
		goto bad;
	if (strncmp(addr, "0x", 2) != 0)
		goto bad;
	char taint[32];
	if (next_token(&p, taint, sizeof taint)) {
		size_t n = strlen(taint);
		if (n < 3 || taint[0] != '(' || taint[n - 1] != ')' || n - 2 >= sizeof out->taint)
			goto bad;
		memcpy(out->taint, taint + 1, n - 2);
		out->taint[n - 2] = '\0';
		for (size_t i = 0; out->taint[i]; i++)
			if (!isupper((unsigned char)out->taint[i]))
				goto bad;
	}
	if (!at_end(p))
		goto bad;
	return 0;
bad:
	memset(out, 0, sizeof *out);
	return -RD_EPARSE;
}

static int parse_limit(const char *tok, uint64_t *out)
{
	if (strcmp(tok, "unlimited") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	return rd_parse_u64(tok, 10, UINT64_MAX - 1, out);
}

int rd_parse_limits_memlock(const char *text, uint64_t *soft, uint64_t *hard)
{
	static const char key[] = "Max locked memory";
	*soft = *hard = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, key, sizeof key - 1) == 0) {
			const char *p = line + sizeof key - 1;
			char a[32], b[32];
			if (!next_token(&p, a, sizeof a) || !next_token(&p, b, sizeof b))
				return -RD_EPARSE;
			if (parse_limit(a, soft) < 0 || parse_limit(b, hard) < 0) {
				*soft = *hard = 0;
				return -RD_EPARSE;
			}
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -RD_EPARSE;
}

int rd_parse_capeff(const char *status, uint64_t *mask)
{
	*mask = 0;
	for (const char *line = status; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, "CapEff:", 7) == 0) {
			char tok[32];
			const char *p = line + 7;
			if (!next_token(&p, tok, sizeof tok))
				return -RD_EPARSE;
			return rd_parse_u64(tok, 16, UINT64_MAX, mask);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -RD_EPARSE;
}

int rd_parse_devnode_line(const char *line, char *name, size_t namelen, unsigned *mode, unsigned *uid,
			  unsigned *gid)
{
	*mode = *uid = *gid = 0;
	if (namelen)
		*name = '\0';
	const char *p = skip_blanks(line);
	const char *end = p;
	while (*end && *end != ' ' && *end != '\t' && *end != '\n')
		end++;
	size_t n = (size_t)(end - p);
	if (!n || n >= namelen || memchr(p, '/', n))
		return -RD_EPARSE;
	uint64_t v[3];
	const char *q = end;
	for (int i = 0; i < 3; i++) {
		q = skip_blanks(q);
		if (scan_digits(&q, i == 0 ? 8 : 10, i == 0 ? 07777 : UINT32_MAX, &v[i]) <= 0)
			return -RD_EPARSE;
		if (*q && *q != ' ' && *q != '\t' && *q != '\n')
			return -RD_EPARSE;
	}
	if (!at_end(q))
		return -RD_EPARSE;
	memcpy(name, p, n);
	name[n] = '\0';
	*mode = (unsigned)v[0];
	*uid = (unsigned)v[1];
	*gid = (unsigned)v[2];
	return 0;
}
