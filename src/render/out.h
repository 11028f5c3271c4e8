/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One printing path for text and JSON: each value is emitted once, with a JSON key and a text
 * format; the writer prints whichever the output wants (after iproute2's json_print, but the
 * writer state lives in a caller-owned struct, not in a global).
 *
 * Ownership: an rd_out borrows its FILE* and owns nothing else. */
#ifndef RD_OUT_H
#define RD_OUT_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define RD_OUT_MAX_DEPTH 32

struct rd_out {
	FILE *f;
	bool json;
	bool ascii;  /* text: the terminal is not UTF-8 (set by rd_out_init from the locale) */
	int depth;
	bool has_items[RD_OUT_MAX_DEPTH];
};

void rd_out_init(struct rd_out *o, FILE *f, bool json);
/* Colour is for a terminal that shows it: the output is a tty, NO_COLOR is not set, TERM is set and
 * not "dumb". */
bool rd_out_want_color(bool tty);
/* The mark to print: utf8 ("\u2714") on a UTF-8 terminal, plain ("OK") when ascii. */
const char *rd_out_mark(bool ascii, const char *utf8, const char *plain);

/* Text for people: printf(fmt, ...), but every %s (and %c) argument is printed with control
 * characters, C1 controls and invalid UTF-8 made visible (rd_buf_put_visible: "\x1b"), so a
 * value read from a host or a file cannot move the cursor, recolour the terminal or forge lines.
 * The format itself is the program's own (its newlines and colour codes are printed as they are).
 * Every text renderer prints through this (rd_out_str, rd_out_text, the check report); the compat
 * views ibstat and ibstatus do not (they print names as the kernel gives them, like rdma-core). */
void rd_text_printf(FILE *f, bool ascii, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rd_text_vprintf(FILE *f, bool ascii, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Text of several lines (a diff) printed safe line by line: its newlines are kept, everything else
 * as rd_text_printf prints a %s argument. */
void rd_text_lines(FILE *f, bool ascii, const char *text);

/* Objects and arrays exist only in JSON; key is NULL at the top level and inside arrays. */
void rd_out_obj_begin(struct rd_out *o, const char *key);
void rd_out_obj_end(struct rd_out *o);
void rd_out_arr_begin(struct rd_out *o, const char *key);
void rd_out_arr_end(struct rd_out *o);
/* A value: JSON gets key/value (NULL string -> null); text gets printf(fmt, value) when fmt is
 * not NULL.  key NULL means text only; fmt NULL means JSON only. */
void rd_out_str(struct rd_out *o, const char *key, const char *fmt, const char *value);
void rd_out_uint(struct rd_out *o, const char *key, const char *fmt, unsigned long long value);
void rd_out_int(struct rd_out *o, const char *key, const char *fmt, long long value);
void rd_out_double(struct rd_out *o, const char *key, const char *fmt, double value);
void rd_out_bool(struct rd_out *o, const char *key, const char *fmt, bool value);
void rd_out_null(struct rd_out *o, const char *key);
/* An element of a JSON array (no key); text gets printf(fmt, value) when fmt is not NULL. */
void rd_out_item_str(struct rd_out *o, const char *fmt, const char *value);
void rd_out_item_uint(struct rd_out *o, const char *fmt, unsigned long long value);
/* Text only (ignored in JSON mode). */
void rd_out_text(struct rd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the document (a newline after the JSON value). */
void rd_out_finish(struct rd_out *o);

/* Writes s as a JSON string literal (quotes included): '"' and '\\' escaped, \n \t \r as such, the
 * other C0 controls, DEL and the C1 controls (U+0080-U+009F) as \u00XX (so printing the document on a
 * terminal is safe too),
 * and each byte that is not part of valid UTF-8 becomes U+FFFD ("\ufffd"), so the document is
 * always valid JSON (the original bytes of such a value are not recoverable). */
void rd_json_write_string(FILE *f, const char *s);

#endif
