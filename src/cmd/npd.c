/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor npd [check options]`: check, answered in node-problem-detector's custom plugin
 * protocol (render/npd.h): one line on standard output, exit 0 OK or WARN, 1 FAIL, 3 unknown.
 * A run that cannot check (a bad option, an unreadable root) still prints one line, from its
 * error message, and exits 3: NPD shows the line as the condition's message. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/emit.h"
#include "render/npd.h"

int rd_cmd_npd(struct rd_ctx *ctx, int argc, char **argv)
{
	char *ebuf = NULL;
	size_t elen = 0;
	FILE *em = open_memstream(&ebuf, &elen);
	struct rd_ctx c = *ctx;
	if (em)
		c.err = em;
	struct rd_emit e = {.mode = RD_EMIT_NPD};
	int rc = rd_check_as(&c, argc, argv, &e);
	if (em) {
		fclose(em);
		fwrite(ebuf, 1, elen, ctx->err);
	}
	if (!e.printed && rc != 0) { /* rc 0 without a line: --help was printed */
		char *nl = ebuf ? strchr(ebuf, '\n') : NULL;
		if (nl)
			*nl = '\0';
		const char *why = ebuf && *ebuf ? ebuf : "rdma-doctor could not check this host";
		size_t pl = strlen(ctx->prog);
		if (strncmp(why, ctx->prog, pl) == 0 && why[pl] == ':' && why[pl + 1] == ' ')
			why += pl + 2; /* the 80 characters are for the reason */
		char *msg = rd_xasprintf("UNKNOWN: %s", why);
		char line[RD_NPD_LINE_MAX + 1];
		rd_npd_sanitise(line, sizeof line, msg);
		free(msg);
		fprintf(ctx->out, "%s\n", line);
	}
	free(ebuf);
	return rc == 0 || rc == 1 ? rc : 3;
}
