/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "render/out.h"

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void rd_out_init(struct rd_out *o, FILE *f, bool json)
{
	memset(o, 0, sizeof *o);
	o->f = f;
	o->json = json;
	o->ascii = !rd_env_locale_utf8();
}

bool rd_out_want_color(bool tty)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	return tty && !(nc && *nc) && term && *term && strcmp(term, "dumb") != 0;
}

const char *rd_out_mark(bool ascii, const char *utf8, const char *plain)
{
	return ascii ? plain : utf8;
}

/* One conversion of a printf format: "%-21s", "%zu", "%.*s" ... (no %n, no positional args). */
struct spec {
	char text[32];
	char conv;
	char len[3];  /* "", "h", "hh", "l", "ll", "z", "j", "t", "L" */
	bool star_width, star_prec;
};

static const char *parse_spec(const char *p, struct spec *sp)
{
	const char *start = p++; /* at '%' */
	memset(sp, 0, sizeof *sp);
	p += strspn(p, "-+ #0");
	if (*p == '*') {
		sp->star_width = true;
		p++;
	} else {
		p += strspn(p, "0123456789");
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			sp->star_prec = true;
			p++;
		} else {
			p += strspn(p, "0123456789");
		}
	}
	size_t l = strspn(p, "hlzjtL");
	if (l > 2)
		l = 2;
	memcpy(sp->len, p, l);
	p += l;
	sp->conv = *p ? *p++ : '\0';
	size_t n = (size_t)(p - start);
	if (n >= sizeof sp->text)
		n = sizeof sp->text - 1;
	memcpy(sp->text, start, n);
	return p;
}

/* The spec without its precision ("%-21.*s" -> "%-21s", width kept as given). */
static void drop_precision(char *t)
{
	char *dot = strchr(t, '.');
	if (!dot)
		return;
	char *end = dot + 1;
	while (*end == '*' || (*end >= '0' && *end <= '9'))
		end++;
	memmove(dot, end, strlen(end) + 1);
}

void rd_text_vprintf(FILE *f, bool ascii, const char *fmt, va_list ap)
{
	struct rd_buf out = {0};
	va_list aq;
	va_copy(aq, ap);
	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			const char *q = strchr(p, '%');
			size_t n = q ? (size_t)(q - p) : strlen(p);
			rd_buf_add(&out, p, n);
			p += n;
			continue;
		}
		if (p[1] == '%') {
			rd_buf_putc(&out, '%');
			p += 2;
			continue;
		}
		struct spec sp;
		p = parse_spec(p, &sp);
		int width = sp.star_width ? va_arg(aq, int) : 0;
		int prec = sp.star_prec ? va_arg(aq, int) : -1;
		switch (sp.conv) {
		case 's': {
			const char *s = va_arg(aq, const char *);
			if (!s)
				s = "(null)";
			size_t n = strlen(s);
			const char *dot = strchr(sp.text, '.');
			if (dot && !sp.star_prec)
				prec = atoi(dot + 1);
			if (prec >= 0 && (size_t)prec < n)
				n = (size_t)prec;
			struct rd_buf safe = {0};
			rd_buf_put_visible(&safe, s, n, ascii);
			drop_precision(sp.text);
			if (sp.star_width)
				rd_buf_printf(&out, sp.text, width, safe.data ? safe.data : "");
			else
				rd_buf_printf(&out, sp.text, safe.data ? safe.data : "");
			rd_buf_free(&safe);
			break;
		}
#define ONE(type)                                                                              \
	do {                                                                                   \
		type v_ = va_arg(aq, type);                                                    \
		if (sp.star_width && sp.star_prec)                                             \
			rd_buf_printf(&out, sp.text, width, prec, v_);                         \
		else if (sp.star_width)                                                        \
			rd_buf_printf(&out, sp.text, width, v_);                               \
		else if (sp.star_prec)                                                         \
			rd_buf_printf(&out, sp.text, prec, v_);                                \
		else                                                                           \
			rd_buf_printf(&out, sp.text, v_);                                      \
	} while (0)
		case 'd':
		case 'i':
			if (!strcmp(sp.len, "ll"))
				ONE(long long);
			else if (!strcmp(sp.len, "l"))
				ONE(long);
			else if (!strcmp(sp.len, "z"))
				ONE(ssize_t);
			else if (!strcmp(sp.len, "j"))
				ONE(intmax_t);
			else if (!strcmp(sp.len, "t"))
				ONE(ptrdiff_t);
			else
				ONE(int);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (!strcmp(sp.len, "ll"))
				ONE(unsigned long long);
			else if (!strcmp(sp.len, "l"))
				ONE(unsigned long);
			else if (!strcmp(sp.len, "z"))
				ONE(size_t);
			else if (!strcmp(sp.len, "j"))
				ONE(uintmax_t);
			else if (!strcmp(sp.len, "t"))
				ONE(ptrdiff_t);
			else
				ONE(unsigned);
			break;
		case 'c': {
			char ch = (char)va_arg(aq, int);
			rd_buf_put_visible(&out, &ch, 1, ascii);
			break;
		}
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			if (!strcmp(sp.len, "L"))
				ONE(long double);
			else
				ONE(double);
			break;
		case 'p':
			ONE(void *);
			break;
#undef ONE
		default: /* %n or a malformed spec: print it as it is, consume nothing */
			rd_buf_puts(&out, sp.text);
			break;
		}
	}
	va_end(aq);
	if (out.len)
		fwrite(out.data, 1, out.len, f);
	rd_buf_free(&out);
}

void rd_text_lines(FILE *f, bool ascii, const char *text)
{
	struct rd_buf out = {0};
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		rd_buf_put_visible(&out, p, n, ascii);
		p += n;
		if (*p == '\n') {
			rd_buf_putc(&out, '\n');
			p++;
		}
	}
	if (out.len)
		fwrite(out.data, 1, out.len, f);
	rd_buf_free(&out);
}

void rd_text_printf(FILE *f, bool ascii, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rd_text_vprintf(f, ascii, fmt, ap);
	va_end(ap);
}

void rd_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + strlen(str);
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
			size_t n = rd_utf8_len(s, (size_t)(end - s));
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f) { /* C1 control: escaped, so `cat` is safe */
				fprintf(f, "\\u%04x", s[1]);
				s += 2;
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
		rd_text_printf(o->f, o->ascii, fmt, value ? value : "-");
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
		rd_text_printf(o->f, o->ascii, fmt, value ? value : "-");
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
	rd_text_vprintf(o->f, o->ascii, fmt, ap);
	va_end(ap);
}

void rd_out_finish(struct rd_out *o)
{
	if (o->json)
		fputc('\n', o->f);
	fflush(o->f);
}
