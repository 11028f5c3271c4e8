/* One printing path for text and JSON: each value is emitted once, with a JSON key and a text
 * format; the writer prints whichever the output wants (after iproute2's json_print, but the
 * writer state lives in a caller-owned struct, not in a global).
 *
 * Ownership: an rd_out borrows its FILE* and owns nothing else. */
#ifndef RD_OUT_H
#define RD_OUT_H
#include <stdbool.h>
#include <stdio.h>

#define RD_OUT_MAX_DEPTH 32

struct rd_out {
	FILE *f;
	bool json;
	int depth;
	bool has_items[RD_OUT_MAX_DEPTH];
};

void rd_out_init(struct rd_out *o, FILE *f, bool json);
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

/* Writes s as a JSON string literal (quotes included); invalid UTF-8 becomes U+FFFD. */
void rd_json_write_string(FILE *f, const char *s);

#endif
