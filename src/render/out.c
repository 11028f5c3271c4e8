#include "render/out.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

void rd_out_init(struct rd_out *o, FILE *f, bool json)
{
	memset(o, 0, sizeof *o);
	o->f = f;
	o->json = json;
}

/* Length of a valid UTF-8 sequence at s, or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void rd_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			s++;
		} else if (c == '\n') {
			fputs("\\n", f);
			s++;
		} else if (c == '\t') {
			fputs("\\t", f);
			s++;
		} else if (c == '\r') {
			fputs("\\r", f);
			s++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else {
			size_t n = utf8_len(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else {
				fwrite(s, 1, n, f);
				s += n;
			}
		}
	}
	fputc('"', f);
}

static void indent(struct rd_out *o)
{
	fputc('\n', o->f);
	for (int i = 0; i < o->depth; i++)
		fputs("  ", o->f);
}

/* Separator, indentation and key before a JSON value. */
static void json_key(struct rd_out *o, const char *key)
{
	if (o->depth > 0) {
		if (o->has_items[o->depth])
			fputc(',', o->f);
		o->has_items[o->depth] = true;
		indent(o);
	}
	if (key) {
		rd_json_write_string(o->f, key);
		fputs(": ", o->f);
	}
}

static void open_container(struct rd_out *o, const char *key, char c)
{
	if (!o->json)
		return;
	json_key(o, key);
	fputc(c, o->f);
	if (o->depth + 1 < RD_OUT_MAX_DEPTH)
		o->depth++;
	o->has_items[o->depth] = false;
}

static void close_container(struct rd_out *o, char c)
{
	if (!o->json)
		return;
	bool had = o->has_items[o->depth];
	if (o->depth > 0)
		o->depth--;
	if (had)
		indent(o);
	fputc(c, o->f);
}

void rd_out_obj_begin(struct rd_out *o, const char *key)
{
	open_container(o, key, '{');
}

void rd_out_obj_end(struct rd_out *o)
{
	close_container(o, '}');
}

void rd_out_arr_begin(struct rd_out *o, const char *key)
{
	open_container(o, key, '[');
}

void rd_out_arr_end(struct rd_out *o)
{
	close_container(o, ']');
}

void rd_out_str(struct rd_out *o, const char *key, const char *fmt, const char *value)
{
	if (o->json) {
		if (!key)
			return;
		json_key(o, key);
		if (value)
			rd_json_write_string(o->f, value);
		else
			fputs("null", o->f);
	} else if (fmt) {
		fprintf(o->f, fmt, value ? value : "-");
	}
}

void rd_out_uint(struct rd_out *o, const char *key, const char *fmt, unsigned long long value)
{
	if (o->json) {
		if (!key)
			return;
		json_key(o, key);
		fprintf(o->f, "%llu", value);
	} else if (fmt) {
		fprintf(o->f, fmt, value);
	}
}

void rd_out_int(struct rd_out *o, const char *key, const char *fmt, long long value)
{
	if (o->json) {
		if (!key)
			return;
		json_key(o, key);
		fprintf(o->f, "%lld", value);
	} else if (fmt) {
		fprintf(o->f, fmt, value);
	}
}

void rd_out_double(struct rd_out *o, const char *key, const char *fmt, double value)
{
	if (o->json) {
		if (!key)
			return;
		json_key(o, key);
		fprintf(o->f, "%.17g", value);
	} else if (fmt) {
		fprintf(o->f, fmt, value);
	}
}

void rd_out_bool(struct rd_out *o, const char *key, const char *fmt, bool value)
{
	if (o->json) {
		if (!key)
			return;
		json_key(o, key);
		fputs(value ? "true" : "false", o->f);
	} else if (fmt) {
		fprintf(o->f, fmt, value ? "yes" : "no");
	}
}

void rd_out_item_str(struct rd_out *o, const char *fmt, const char *value)
{
	if (o->json) {
		json_key(o, NULL);
		if (value)
			rd_json_write_string(o->f, value);
		else
			fputs("null", o->f);
	} else if (fmt) {
		fprintf(o->f, fmt, value ? value : "-");
	}
}

void rd_out_item_uint(struct rd_out *o, const char *fmt, unsigned long long value)
{
	if (o->json) {
		json_key(o, NULL);
		fprintf(o->f, "%llu", value);
	} else if (fmt) {
		fprintf(o->f, fmt, value);
	}
}

void rd_out_null(struct rd_out *o, const char *key)
{
	if (o->json && key) {
		json_key(o, key);
		fputs("null", o->f);
	}
}

void rd_out_text(struct rd_out *o, const char *fmt, ...)
{
	if (o->json)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

void rd_out_finish(struct rd_out *o)
{
	if (o->json)
		fputc('\n', o->f);
	fflush(o->f);
}
