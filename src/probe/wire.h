/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the probe's child process tells its parent (rd_probe_run_contained), as lines of text:
 *
 *   hstep NAME OK ERR USEC ERROR DETAIL NFIX     a finished host step, then NFIX lines "fix S"
 *   port PARTIAL DEVICE PORT ACTIVE PASS STATE LINK_LAYER ACTIVE_MTU LID GID_INDEX GID GID_TYPE
 *        BYTES VERIFIED NSTEPS                   a port, then NSTEPS lines "step ..." (as hstep)
 *                                                with their fixes; PARTIAL 1: the port the child
 *                                                is in (replaces the previous partial one)
 *   library S                                    the loaded libibverbs
 *   device S                                     a device the child will probe
 *   at DEVICE PORT STEP CALL                     where the child is now (before a verbs call)
 *   end PASS SIZE ERROR                          the run is over; nothing may follow
 *
 * Fields are separated by one space.  Numbers are decimal; strings are "~" (NULL) or "s" and
 * the bytes, where every byte outside '!'..'~', and '%' itself, is written %XX (so a field has no
 * space or newline).  The parser treats the bytes as hostile: every line, count and number is
 * bounded, anything else is an error naming the line.
 *
 * Ownership: the writer appends to a caller's rd_buf; the parser builds a result that the caller
 * owns (rd_probe_result_free), and frees its own state in rd_probe_wire_free. */
#ifndef RD_PROBE_WIRE_H
#define RD_PROBE_WIRE_H
#include <stdbool.h>
#include <stddef.h>

#include "probe/probe.h"
#include "util/util.h"

#define RD_PROBE_WIRE_MAX_LINE (64u * 1024)
#define RD_PROBE_WIRE_MAX_BYTES (64u * 1024 * 1024) /* all lines of one run */
#define RD_PROBE_WIRE_MAX_PORTS 1024u
#define RD_PROBE_WIRE_MAX_STEPS 64u
#define RD_PROBE_WIRE_MAX_FIX 64u

void rd_probe_wire_step(struct rd_buf *b, const char *tag, const struct rd_probe_step *s);
void rd_probe_wire_port(struct rd_buf *b, const struct rd_probe_port *p, bool partial);
void rd_probe_wire_library(struct rd_buf *b, const char *library);
void rd_probe_wire_device(struct rd_buf *b, const char *device);
void rd_probe_wire_at(struct rd_buf *b, const char *device, unsigned port, const char *step, const char *call);
void rd_probe_wire_end(struct rd_buf *b, const struct rd_probe_result *r);

struct rd_probe_wire {
	struct rd_probe_result r;     /* what was received: host steps, finished ports, library */
	struct rd_probe_port partial; /* the port the child is in (device NULL: none) */
	bool have_partial;
	bool ended;                   /* "end" was received: r is complete */
	/* where the child is: the last "at" */
	char *at_device;
	unsigned at_port;
	const char *at_step;          /* static, or NULL before the first "at" */
	char *at_call;
	unsigned ats;                 /* "at" lines so far */
	unsigned lines;
	/* parser state: the step list being filled and how many steps/fixes it still needs */
	struct rd_probe_step **steps;
	size_t *nsteps;
	size_t need_steps, need_fix;
	bool filling_partial;
};

/* Parses one line (without its '\n'; len bytes, may hold NUL bytes).  Returns 0, or -EPROTO with
 * a one-line reason in err. */
int rd_probe_wire_line(struct rd_probe_wire *w, const char *line, size_t len, char *err, size_t errlen);
/* Frees the parser state (not w->r when the caller took it: zero it after taking). */
void rd_probe_wire_free(struct rd_probe_wire *w);

#endif
