/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The reference topology (fabric.h): made from a fabric, read back from its JSON file
 * (rdma-doctor/fabric-ref/v1: {"schema": ..., "links": [{"a": {"guid": "0x...", "port": N,
 * "desc": "..."}, "b": {...}, "width": 4, "speed": 25.78125}, ...]}), and compared.
 *
 * The reader is a small recursive-descent JSON parser (RFC 8259 values, nesting capped at 16)
 * that keeps only the members above; unknown members are skipped, so later versions may add. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

void rd_fab_ref_free(struct rd_fab_ref *ref)
{
	for (size_t i = 0; i < ref->n; i++) {
		free(ref->links[i].a.desc);
		free(ref->links[i].b.desc);
	}
	free(ref->links);
	memset(ref, 0, sizeof *ref);
}

void rd_fab_ref_from(const struct rd_fabric *f, struct rd_fab_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	for (size_t i = 0; i < f->nlinks; i++) {
		const struct rd_fab_link *l = &f->links[i];
		if (!l->has_peer)
			continue;
		ref->links = rd_grow(ref->links, ref->n, sizeof *ref->links);
		struct rd_fab_ref_link *k = &ref->links[ref->n++];
		const struct rd_fab_node *na = rd_fabric_node(f, l->a.guid), *nb = rd_fabric_node(f, l->b.guid);
		k->a = (struct rd_fab_ref_end){l->a.guid, l->a.port, rd_xstrdup(na && na->desc ? na->desc : "")};
		k->b = (struct rd_fab_ref_end){l->b.guid, l->b.port, rd_xstrdup(nb && nb->desc ? nb->desc : "")};
		k->width = l->width;
		k->speed = l->speed;
	}
}

/* ---- the JSON reader ---- */

struct jp {
	const char *p, *e;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

static bool jfail(struct jp *j, const char *what)
{
	if (!j->failed)
		rd_set_err(j->err, j->errlen, "%s at byte %zu", what, (size_t)(j->e - j->p));
	j->failed = true;
	return false;
}

static void jws(struct jp *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jlit(struct jp *j, char c)
{
	jws(j);
	if (j->p < j->e && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* A string; *out (when out) gets its value with \u escapes below 0x80 decoded and others as '?'. */
static bool jstring(struct jp *j, char **out)
{
	jws(j);
	if (j->p >= j->e || *j->p != '"')
		return jfail(j, "a string expected");
	j->p++;
	struct rd_buf b = {0};
	while (j->p < j->e && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20) {
			rd_buf_free(&b);
			return jfail(j, "a control character in a string");
		}
		if (c == '\\') {
			if (j->p >= j->e)
				break;
			char x = *j->p++;
			switch (x) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': c = x; break;
			case 'u': {
				unsigned v = 0;
				for (int k = 0; k < 4; k++, j->p++) {
					if (j->p >= j->e || !isxdigit((unsigned char)*j->p)) {
						rd_buf_free(&b);
						return jfail(j, "a bad \\u escape");
					}
					v = v * 16 + (unsigned)(isdigit((unsigned char)*j->p) ? *j->p - '0'
											: tolower((unsigned char)*j->p) - 'a' + 10);
				}
				c = v && v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				rd_buf_free(&b);
				return jfail(j, "a bad escape");
			}
		}
		rd_buf_putc(&b, c);
	}
	if (j->p >= j->e) {
		rd_buf_free(&b);
		return jfail(j, "an unterminated string");
	}
	j->p++;
	if (out)
		*out = b.len ? rd_buf_steal(&b) : (rd_buf_free(&b), rd_xstrdup(""));
	else
		rd_buf_free(&b);
	return true;
}

static bool jnumber(struct jp *j, double *v)
{
	jws(j);
	const char *s = j->p;
	while (j->p < j->e && (isdigit((unsigned char)*j->p) || strchr("+-.eE", *j->p)))
		j->p++;
	if (s == j->p || j->p - s > 40)
		return jfail(j, "a number expected");
	char buf[48];
	memcpy(buf, s, (size_t)(j->p - s));
	buf[j->p - s] = 0;
	char *end;
	*v = strtod(buf, &end);
	if (*end)
		return jfail(j, "a bad number");
	return true;
}

static bool jskip(struct jp *j);

static bool jskip_container(struct jp *j, char open, char close)
{
	if (++j->depth > 16)
		return jfail(j, "nesting too deep");
	j->p++;
	if (jlit(j, close)) {
		j->depth--;
		return true;
	}
	do {
		if (open == '{' && (!jstring(j, NULL) || !jlit(j, ':')))
			return jfail(j, "a member expected");
		if (!jskip(j))
			return false;
	} while (jlit(j, ','));
	if (!jlit(j, close))
		return jfail(j, "',' or the end of a container expected");
	j->depth--;
	return true;
}

static bool jskip(struct jp *j)
{
	jws(j);
	if (j->p >= j->e)
		return jfail(j, "a value expected");
	double d;
	switch (*j->p) {
	case '"':
		return jstring(j, NULL);
	case '{':
		return jskip_container(j, '{', '}');
	case '[':
		return jskip_container(j, '[', ']');
	case 't':
	case 'f':
	case 'n': {
		static const char *words[] = {"true", "false", "null"};
		for (int k = 0; k < 3; k++) {
			size_t n = strlen(words[k]);
			if ((size_t)(j->e - j->p) >= n && memcmp(j->p, words[k], n) == 0) {
				j->p += n;
				return true;
			}
		}
		return jfail(j, "a value expected");
	}
	default:
		return jnumber(j, &d);
	}
}

static bool jend(struct jp *j, struct rd_fab_ref_end *e)
{
	if (!jlit(j, '{'))
		return jfail(j, "an object expected for a link's end");
	if (jlit(j, '}'))
		return jfail(j, "a link's end without a guid");
	bool guid = false, port = false;
	do {
		char *key = NULL;
		if (!jstring(j, &key) || !jlit(j, ':')) {
			free(key);
			return jfail(j, "a member expected");
		}
		bool ok = true;
		if (strcmp(key, "guid") == 0) {
			char *s = NULL;
			ok = jstring(j, &s);
			char *end = NULL;
			if (ok) {
				errno = 0;
				e->guid = strtoull(s, &end, 16);
				ok = rd_str_has_prefix(s, "0x") && end && !*end && !errno;
				if (!ok)
					jfail(j, "a guid is not 0x and hex digits");
			}
			free(s);
			guid = ok;
		} else if (strcmp(key, "port") == 0) {
			double d;
			ok = jnumber(j, &d) && d >= 0 && d <= 255 && d == (unsigned)d;
			if (ok)
				e->port = (unsigned)d;
			else
				jfail(j, "a port is not 0..255");
			port = ok;
		} else if (strcmp(key, "desc") == 0) {
			free(e->desc);
			e->desc = NULL;
			ok = jstring(j, &e->desc);
		} else {
			ok = jskip(j);
		}
		free(key);
		if (!ok)
			return false;
	} while (jlit(j, ','));
	if (!jlit(j, '}'))
		return jfail(j, "',' or '}' expected");
	if (!guid || !port)
		return jfail(j, "a link's end without its guid or port");
	if (!e->desc)
		e->desc = rd_xstrdup("");
	return true;
}

static bool jlink(struct jp *j, struct rd_fab_ref_link *k)
{
	if (!jlit(j, '{'))
		return jfail(j, "an object expected for a link");
	bool a = false, b = false;
	if (jlit(j, '}'))
		return jfail(j, "a link without its ends");
	do {
		char *key = NULL;
		if (!jstring(j, &key) || !jlit(j, ':')) {
			free(key);
			return jfail(j, "a member expected");
		}
		bool ok;
		double d;
		if (strcmp(key, "a") == 0 && !a)
			ok = a = jend(j, &k->a);
		else if (strcmp(key, "b") == 0 && !b)
			ok = b = jend(j, &k->b);
		else if (strcmp(key, "width") == 0) {
			ok = jnumber(j, &d) && d >= 0 && d <= 64;
			k->width = ok ? (unsigned)d : 0;
		} else if (strcmp(key, "speed") == 0) {
			ok = jnumber(j, &d) && d >= 0 && d <= 10000;
			k->speed = ok ? d : 0;
		} else
			ok = jskip(j);
		free(key);
		if (!ok)
			return jfail(j, "a bad link member");
	} while (jlit(j, ','));
	if (!jlit(j, '}') || !a || !b)
		return jfail(j, "a link without both ends");
	return true;
}

int rd_fab_ref_parse(const char *text, size_t len, struct rd_fab_ref *ref, char *err, size_t errlen)
{
	struct jp j = {.p = text, .e = text + len, .err = err, .errlen = errlen};
	memset(ref, 0, sizeof *ref);
	bool schema = false, links = false;
	if (!jlit(&j, '{')) {
		jfail(&j, "not a JSON object");
		goto bad;
	}
	if (!jlit(&j, '}'))
		do {
			char *key = NULL;
			if (!jstring(&j, &key) || !jlit(&j, ':')) {
				free(key);
				jfail(&j, "a member expected");
				goto bad;
			}
			bool ok;
			if (strcmp(key, "schema") == 0) {
				char *s = NULL;
				ok = jstring(&j, &s);
				schema = ok && strcmp(s, "rdma-doctor/fabric-ref/v1") == 0;
				free(s);
				if (ok && !schema)
					ok = jfail(&j, "not a reference of schema rdma-doctor/fabric-ref/v1");
			} else if (strcmp(key, "links") == 0 && !links) {
				ok = jlit(&j, '[') || jfail(&j, "an array expected for \"links\"");
				if (ok && !jlit(&j, ']')) {
					do {
						ref->links = rd_grow(ref->links, ref->n, sizeof *ref->links);
						memset(&ref->links[ref->n], 0, sizeof *ref->links);
						ref->n++;
						ok = jlink(&j, &ref->links[ref->n - 1]);
					} while (ok && jlit(&j, ','));
					if (ok && !jlit(&j, ']'))
						ok = jfail(&j, "',' or ']' expected");
				}
				links = ok;
			} else {
				ok = jskip(&j);
			}
			free(key);
			if (!ok)
				goto bad;
		} while (jlit(&j, ','));
	if (!jlit(&j, '}')) {
		jfail(&j, "',' or '}' expected");
		goto bad;
	}
	jws(&j);
	if (j.p != j.e) {
		jfail(&j, "text after the document");
		goto bad;
	}
	if (!schema || !links) {
		rd_set_err(err, errlen, "not a fabric reference: no %s", schema ? "\"links\"" : "\"schema\"");
		goto bad;
	}
	return 0;
bad:
	rd_fab_ref_free(ref);
	return -EINVAL;
}

/* ---- the comparison ---- */

static bool end_eq(const struct rd_fab_ref_end *x, const struct rd_fab_ref_end *y)
{
	return x->guid == y->guid && x->port == y->port;
}

/* The link of set holding end e (as a or b): its index, and in *other the far end. */
static const struct rd_fab_ref_link *holding(const struct rd_fab_ref *set, const struct rd_fab_ref_end *e,
					     const struct rd_fab_ref_end **other)
{
	for (size_t i = 0; i < set->n; i++) {
		if (end_eq(&set->links[i].a, e)) {
			*other = &set->links[i].b;
			return &set->links[i];
		}
		if (end_eq(&set->links[i].b, e)) {
			*other = &set->links[i].a;
			return &set->links[i];
		}
	}
	return NULL;
}

static void ename(const struct rd_fab_ref_end *e, char *buf, size_t cap)
{
	if (e->desc && *e->desc)
		snprintf(buf, cap, "%s[%u]", e->desc, e->port);
	else
		snprintf(buf, cap, "0x%016llx[%u]", (unsigned long long)e->guid, e->port);
}

static void rate(unsigned w, double s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%uX %g Gbps", w, s);
}

void rd_fab_ref_compare(const struct rd_fab_ref *ref, const struct rd_fab_ref *cur, struct rd_report *r)
{
	for (size_t i = 0; i < ref->n; i++) {
		const struct rd_fab_ref_link *k = &ref->links[i];
		const struct rd_fab_ref_end *oa = NULL, *ob = NULL;
		const struct rd_fab_ref_link *ca = holding(cur, &k->a, &oa), *cb = holding(cur, &k->b, &ob);
		char a[160], b[160], subj[400], x[160], w1[48], w2[48];
		ename(&k->a, a, sizeof a);
		ename(&k->b, b, sizeof b);
		snprintf(subj, sizeof subj, "%s - %s", a, b);
		if (ca && ca == cb) {
			if (ca->width != k->width || fabs(ca->speed - k->speed) > 0.001) {
				rate(k->width, k->speed, w1, sizeof w1);
				rate(ca->width, ca->speed, w2, sizeof w2);
				struct rd_finding *fd = rd_report_add(r, "fabric.ref.changed", RD_SUBJ_PORT, RD_WARN, subj,
								      "ran at %s in the reference, now at %s", w1, w2);
				rd_evidence_add(fd, "reference", "%s", w1);
				rd_evidence_add(fd, "now", "%s", w2);
				rd_fix_add(fd, "reseat or replace the cable between both ports");
			}
			continue;
		}
		if (ca || cb) {
			/* one end (or both) now cabled elsewhere */
			struct rd_buf m = {0};
			if (ca) {
				ename(oa, x, sizeof x);
				rd_buf_printf(&m, "%s now goes to %s", a, x);
			}
			if (cb) {
				ename(ob, x, sizeof x);
				rd_buf_printf(&m, "%s%s now goes to %s", m.len ? "; " : "", b, x);
			}
			struct rd_finding *fd = rd_report_add(r, "fabric.ref.moved", RD_SUBJ_PORT, RD_WARN, subj,
							      "moved: %s (the reference has %s - %s)", m.data, a, b);
			rd_buf_free(&m);
			rd_evidence_add(fd, "reference", "%s - %s", a, b);
			if (ca) {
				ename(oa, x, sizeof x);
				rd_evidence_add(fd, "now", "%s - %s", a, x);
			}
			if (cb) {
				ename(ob, x, sizeof x);
				rd_evidence_add(fd, "now", "%s - %s", b, x);
			}
			rd_fix_add(fd, "put the cable back as the reference has it, or save a new reference (--save) if the "
				       "change is intended");
			continue;
		}
		struct rd_finding *fd = rd_report_add(r, "fabric.ref.missing", RD_SUBJ_PORT, RD_FAIL, subj,
						      "in the reference, but neither port is cabled now (down, unplugged, "
						      "or its node gone from the fabric)");
		rd_evidence_add(fd, "reference", "%s - %s", a, b);
		rd_fix_add(fd, "check both ports' state (iblinkinfo --switches-only -l; ibstat on the host) and the cable");
	}
	for (size_t i = 0; i < cur->n; i++) {
		const struct rd_fab_ref_link *k = &cur->links[i];
		const struct rd_fab_ref_end *o;
		if (holding(ref, &k->a, &o) || holding(ref, &k->b, &o))
			continue; /* an end of a reference link: reported as moved above */
		char a[160], b[160], subj[400];
		ename(&k->a, a, sizeof a);
		ename(&k->b, b, sizeof b);
		snprintf(subj, sizeof subj, "%s - %s", a, b);
		struct rd_finding *fd = rd_report_add(r, "fabric.ref.added", RD_SUBJ_PORT, RD_WARN, subj,
						      "cabled now, not in the reference");
		rd_evidence_add(fd, "now", "%s - %s", a, b);
		rd_fix_add(fd, "save a new reference (--save) if the new link is intended");
	}
}
