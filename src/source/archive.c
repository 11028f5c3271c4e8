/* Self-contained tar.gz reader and writer: gzip (RFC 1952) around DEFLATE (RFC 1951), tar in the
 * POSIX ustar, GNU ('L'/'K' long names) and pax ('x' records) dialects.  Only libc is used.
 * Ownership: see archive.h; all state lives in one heap context per call. */
#include "source/archive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WSIZE 32768u            /* DEFLATE window */
#define WMASK (WSIZE - 1)
#define IOSZ 65536u             /* buffered I/O chunk */
#define MAX_BYTES (1ull << 30)  /* extraction caps */
#define MAX_ENTRIES 1000000ul
#define MAX_META (1u << 20)     /* largest GNU long name / pax header accepted */

/* RFC 1951 3.2.5: base values and extra bits of length codes 257..285 and distance codes 0..29. */
static const uint16_t len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
	193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* Order in which the code-length code lengths are sent (RFC 1951 3.2.7). */
static const uint8_t cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1,
	15};

/* ------------------------------------------------------------------------------ shared */

struct report {
	char *err;
	size_t errlen;
	int rc;            /* first error (negative errno), 0 while none */
	const char *entry; /* archive entry being handled, prefixed to messages */
};

/* Records the first error as "entry: reason" (control characters replaced so it stays one
 * line) and returns its code; later failures keep the first message and code. */
__attribute__((format(printf, 3, 4)))
static int fail(struct report *r, int rc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->rc)
		return r->rc;
	r->rc = rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!r->err || !r->errlen)
		return rc;
	snprintf(r->err, r->errlen, "%s%s%s", r->entry ? r->entry : "", r->entry ? ": " : "", msg);
	for (char *p = r->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return rc;
}

/* fail() for a system call that just set errno. */
static int sysfail(struct report *r, const char *what)
{
	int e = errno;
	return fail(r, -e, "%s: %s", what, strerror(e));
}

static void crc_table(uint32_t t[256])
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		t[n] = c;
	}
}

/* CRC-32 register update (start from 0xffffffff; the checksum is the complement). */
static inline uint32_t crc_byte(const uint32_t *t, uint32_t c, uint8_t b)
{
	return t[(c ^ b) & 0xff] ^ (c >> 8);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	for (ssize_t w; n; p += w, n -= (size_t)w)
		if ((w = write(fd, p, n)) <= 0) {
			if (w < 0 && errno == EINTR)
				w = 0;
			else
				return w < 0 ? -errno : -EIO;
		}
	return 0;
}

/* ------------------------------------------------------------------------------ inflate */

struct huff {              /* canonical Huffman code, decoded one bit at a time */
	uint16_t count[16];    /* number of codes of each bit length */
	uint16_t sym[288];     /* symbols ordered by (code length, symbol value) */
};

enum { ST_MEMBER, ST_BLOCK, ST_STORED, ST_CODES, ST_END };

struct xctx {
	struct report rep;
	int in, dest, state;
	size_t ipos, ilen;            /* unread input is ibuf[ipos..ilen) */
	bool gz, last;                /* gzip input; current block is the final one */
	uint32_t bitbuf, bitcnt;      /* unconsumed input bits, LSB first (< 8 between calls) */
	uint32_t stored, copy_len, copy_dist, crc;
	uint64_t mtotal;              /* bytes produced by the current gzip member */
	uint64_t written;             /* file bytes extracted so far */
	unsigned long entries;
	const struct huff *lcode, *dcode;
	struct huff fixlit, fixdist, dynlit, dyndist;
	uint32_t crctab[256];
	uint8_t win[WSIZE];           /* last 32 KiB of output, for back-references */
	uint8_t ibuf[IOSZ], dbuf[IOSZ];
};

/* Makes at least `need` unread bytes available if the input has them; returns how many are. */
static long in_peek(struct xctx *x, size_t need)
{
	memmove(x->ibuf, x->ibuf + x->ipos, x->ilen - x->ipos);
	x->ilen -= x->ipos;
	x->ipos = 0;
	while (x->ilen < need) {
		ssize_t r = read(x->in, x->ibuf + x->ilen, IOSZ - x->ilen);
		if (r < 0 && errno != EINTR)
			return sysfail(&x->rep, "read error");
		if (r == 0)
			break;
		x->ilen += r > 0 ? (size_t)r : 0;
	}
	return (long)x->ilen;
}

/* The next input byte, or -1 at end of input (or after a read error, already reported). */
static inline int in_byte(struct xctx *x)
{
	if (x->ipos == x->ilen && in_peek(x, 1) <= 0)
		return -1;
	return x->ibuf[x->ipos++];
}

static int corrupt(struct xctx *x, const char *what)
{
	return fail(&x->rep, -EINVAL, "corrupt gzip data: %s", what);
}

static int truncated(struct xctx *x)
{
	return fail(&x->rep, -EINVAL, "truncated gzip data");
}

/* Takes n (<= 16) bits from the stream, least significant first. */
static int bits(struct xctx *x, unsigned n, uint32_t *v)
{
	for (int c; x->bitcnt < n; x->bitcnt += 8) {
		if ((c = in_byte(x)) < 0)
			return truncated(x);
		x->bitbuf |= (uint32_t)c << x->bitcnt;
	}
	*v = x->bitbuf & ((1u << n) - 1);
	x->bitbuf >>= n;
	x->bitcnt -= n;
	return 0;
}

/* Decodes one symbol.  Canonical codes of one length are consecutive integers, so after each
 * bit we check whether the code read so far falls in the range of codes of that length. */
static int decode(struct xctx *x, const struct huff *h)
{
	int code = 0, first = 0, index = 0, c;

	for (int len = 1; len < 16; len++, code <<= 1) {
		if (!x->bitcnt) {
			if ((c = in_byte(x)) < 0)
				return truncated(x);
			x->bitbuf = (uint32_t)c, x->bitcnt = 8;
		}
		code |= (int)(x->bitbuf & 1);
		x->bitbuf >>= 1, x->bitcnt--;
		if (code - first < h->count[len])
			return h->sym[index + code - first];
		index += h->count[len];
		first = (first + h->count[len]) << 1;
	}
	return corrupt(x, "invalid Huffman code");
}

/* Builds a decoding table from n code lengths.  Over-subscribed sets are rejected; incomplete
 * ones too, except (when lenient) an empty set or a single one-bit code, which RFC 1951
 * allows for distances and zlib accepts.  Returns 0 or -1. */
static int build(struct huff *h, const uint8_t *len, int n, bool lenient)
{
	uint16_t offs[16] = {0};
	int left = 1;

	memset(h->count, 0, sizeof h->count);
	for (int i = 0; i < n; i++)
		h->count[len[i]]++;
	for (int l = 1; l < 16; l++)
		if ((left = (left << 1) - h->count[l]) < 0)
			return -1;
	int used = n - h->count[0];
	if (left > 0 && !(lenient && (used == 0 || (used == 1 && h->count[1] == 1))))
		return -1;
	for (int l = 1; l < 15; l++)
		offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
	for (int i = 0; i < n; i++)
		if (len[i])
			h->sym[offs[len[i]]++] = (uint16_t)i;
	return 0;
}

/* Reads the code descriptions of a dynamic block (RFC 1951 3.2.7). */
static int dynamic(struct xctx *x)
{
	uint8_t lens[286 + 30], cll[19] = {0}, val;
	uint32_t hlit, hdist, hclen, v, rep;
	struct huff cl;
	int rc, sym;

	if ((rc = bits(x, 5, &hlit)) || (rc = bits(x, 5, &hdist)) || (rc = bits(x, 4, &hclen)))
		return rc;
	hlit += 257, hdist += 1, hclen += 4;
	if (hlit > 286 || hdist > 30)
		return corrupt(x, "too many length or distance codes");
	for (uint32_t i = 0; i < hclen; cll[cl_order[i++]] = (uint8_t)v)
		if ((rc = bits(x, 3, &v)))
			return rc;
	if (build(&cl, cll, 19, false))
		return corrupt(x, "invalid code-length code");
	for (uint32_t i = 0; i < hlit + hdist;) {
		if ((sym = decode(x, &cl)) < 0)
			return sym;
		if (sym < 16) {
			lens[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16 && i == 0)
			return corrupt(x, "length repeat with no previous length");
		/* 16: previous length 3..6 times; 17: 3..10 zeros; 18: 11..138 zeros */
		val = sym == 16 ? lens[i - 1] : 0;
		if ((rc = bits(x, sym == 16 ? 2 : sym == 17 ? 3 : 7, &v)))
			return rc;
		if ((rep = v + (sym == 18 ? 11 : 3)) > hlit + hdist - i)
			return corrupt(x, "code lengths overflow");
		while (rep--)
			lens[i++] = val;
	}
	if (!lens[256])
		return corrupt(x, "no end-of-block code");
	if (build(&x->dynlit, lens, (int)hlit, true) || build(&x->dyndist, lens + hlit, (int)hdist, true))
		return corrupt(x, "invalid literal/length or distance code lengths");
	x->lcode = &x->dynlit, x->dcode = &x->dyndist;
	return 0;
}

static int block_header(struct xctx *x)
{
	uint32_t v, nlen;
	int rc = bits(x, 3, &v);

	if (rc)
		return rc;
	x->last = v & 1;
	x->state = (v >> 1) == 0 ? ST_STORED : ST_CODES;
	switch (v >> 1) {
	case 0: /* stored: skip to a byte boundary, then LEN and its complement NLEN */
		x->bitbuf = x->bitcnt = 0;
		if ((rc = bits(x, 16, &v)) || (rc = bits(x, 16, &nlen)))
			return rc;
		x->stored = v;
		return v == (~nlen & 0xffff) ? 0 : corrupt(x, "stored block length check failed");
	case 1:
		x->lcode = &x->fixlit, x->dcode = &x->fixdist;
		return 0;
	case 2:
		return dynamic(x);
	default:
		return corrupt(x, "invalid block type");
	}
}

/* Reads a gzip member header (RFC 1952 2.3), checking the optional header CRC. */
static int gz_header(struct xctx *x)
{
	uint8_t h[10];
	uint32_t crc = 0xffffffffu;
	int c = 0;

/* next header byte into c, folded into the header CRC */
#define HBYTE()                                                                              \
	do {                                                                                 \
		if ((c = in_byte(x)) < 0)                                                    \
			return fail(&x->rep, -EINVAL, "truncated gzip header");              \
		crc = crc_byte(x->crctab, crc, (uint8_t)c);                                  \
	} while (0)
	for (int i = 0; i < 10; h[i++] = (uint8_t)c)
		HBYTE();
	if (h[2] != 8 || (h[3] & 0xe0))
		return fail(&x->rep, -EINVAL, "unsupported gzip method %u or flags %#x", h[2], h[3]);
	if (h[3] & 4) { /* FEXTRA: little-endian length, then that many bytes */
		HBYTE();
		unsigned xlen = (unsigned)c;
		HBYTE();
		for (xlen |= (unsigned)c << 8; xlen; xlen--)
			HBYTE();
	}
	for (int flag = 8; flag <= 16; flag <<= 1) /* FNAME, FCOMMENT: NUL-terminated */
		if (h[3] & flag)
			do
				HBYTE();
			while (c);
#undef HBYTE
	if (h[3] & 2) { /* FHCRC: low 16 bits of the CRC-32 of the header so far */
		int lo = in_byte(x), hi = in_byte(x);
		if (lo < 0 || hi < 0 || (uint32_t)(lo | hi << 8) != (~crc & 0xffff))
			return fail(&x->rep, -EINVAL, "gzip header CRC mismatch");
	}
	x->state = ST_BLOCK;
	x->last = false;
	x->bitbuf = x->bitcnt = 0;
	x->mtotal = 0;
	x->crc = 0xffffffffu;
	return 0;
}

static int gz_trailer(struct xctx *x)
{
	uint32_t crc = 0, isize = 0;

	x->bitbuf = x->bitcnt = 0; /* the trailer starts at the next byte boundary */
	for (int i = 0, c; i < 8; i++) {
		if ((c = in_byte(x)) < 0)
			return fail(&x->rep, -EINVAL, "truncated gzip trailer");
		if (i < 4)
			crc |= (uint32_t)c << 8 * i;
		else
			isize |= (uint32_t)c << 8 * (i - 4);
	}
	if (crc != ~x->crc)
		return fail(&x->rep, -EINVAL, "gzip CRC mismatch (stored %08x, computed %08x)", crc, ~x->crc);
	if (isize != (uint32_t)x->mtotal)
		return fail(&x->rep, -EINVAL, "gzip length mismatch");
	/* Another member may follow (concatenated gzip files); other trailing bytes are ignored,
	 * as gzip(1) does. */
	long n = in_peek(x, 2);
	x->state = n >= 2 && x->ibuf[0] == 0x1f && x->ibuf[1] == 0x8b ? ST_MEMBER : ST_END;
	return n < 0 ? (int)n : 0;
}

static inline void put(struct xctx *x, uint8_t *out, size_t *o, uint8_t b)
{
	x->win[x->mtotal++ & WMASK] = b;
	x->crc = crc_byte(x->crctab, x->crc, b);
	out[(*o)++] = b;
}

/* One length/distance pair (symbol sym >= 257) becomes a pending back-reference copy. */
static int backref(struct xctx *x, int sym)
{
	uint32_t v;
	int rc, d;

	if ((sym -= 257) >= 29)
		return corrupt(x, "invalid length symbol");
	if ((rc = bits(x, len_extra[sym], &v)))
		return rc;
	x->copy_len = len_base[sym] + v;
	if ((d = decode(x, x->dcode)) < 0)
		return d;
	if (d >= 30)
		return corrupt(x, "invalid distance symbol");
	if ((rc = bits(x, dist_extra[d], &v)))
		return rc;
	x->copy_dist = dist_base[d] + v;
	return x->copy_dist > x->mtotal ? corrupt(x, "distance too far back") : 0;
}

/* Decompresses up to n bytes; fewer only at the end of the gzip stream.  A resumable state
 * machine: a pending back-reference copy or stored block continues on the next call. */
static long gz_read(struct xctx *x, uint8_t *out, size_t n)
{
	size_t o = 0;
	int rc = 0, c;

	while (o < n && rc == 0) {
		if (x->copy_len) {
			x->copy_len--;
			put(x, out, &o, x->win[(x->mtotal - x->copy_dist) & WMASK]);
		} else if (x->state == ST_END) {
			break;
		} else if (x->state == ST_MEMBER) {
			rc = gz_header(x);
		} else if (x->state == ST_BLOCK) {
			rc = x->last ? gz_trailer(x) : block_header(x);
		} else if (x->state == ST_STORED) {
			if (!x->stored)
				x->state = ST_BLOCK;
			else if ((c = in_byte(x)) < 0)
				rc = truncated(x);
			else
				x->stored--, put(x, out, &o, (uint8_t)c);
		} else if ((c = decode(x, x->lcode)) < 256) { /* ST_CODES */
			if (c < 0)
				rc = c;
			else
				put(x, out, &o, (uint8_t)c);
		} else if (c == 256) {
			x->state = ST_BLOCK;
		} else {
			rc = backref(x, c);
		}
	}
	return rc ? rc : (long)o;
}

/* ------------------------------------------------------------------------ tar extraction */

/* Reads up to n bytes of the tar stream; fewer only at its end. */
static long src_read(struct xctx *x, uint8_t *buf, size_t n)
{
	size_t o = 0, k;
	long r;

	if (x->gz)
		return gz_read(x, buf, n);
	for (; o < n; o += k, x->ipos += k) {
		if (x->ipos == x->ilen && (r = in_peek(x, 1)) <= 0) {
			if (r < 0)
				return r;
			break;
		}
		k = x->ilen - x->ipos < n - o ? x->ilen - x->ipos : n - o;
		memcpy(buf + o, x->ibuf + x->ipos, k);
	}
	return (long)o;
}

static int src_exact(struct xctx *x, uint8_t *buf, size_t n)
{
	long r = src_read(x, buf, n);

	if (r >= 0 && (size_t)r < n)
		return fail(&x->rep, -EINVAL, "unexpected end of archive");
	return r < 0 ? (int)r : 0;
}

static int src_skip(struct xctx *x, uint64_t n)
{
	for (size_t k; n; n -= k) {
		int rc = src_exact(x, x->dbuf, k = n < IOSZ ? (size_t)n : IOSZ);
		if (rc)
			return rc;
	}
	return 0;
}

static uint64_t pad512(uint64_t n)
{
	return (512 - n % 512) % 512;
}

/* Parses a numeric header field: octal (optionally space-padded, ended by NUL or space) or
 * GNU base-256 (high bit of the first byte set; negative values rejected). */
static int parse_num(const uint8_t *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] & 0x40)
			return -1;
		for (v = f[0] & 0x3f, i = 1; i < n; v = v << 8 | f[i++])
			if (v >> 55)
				return -1;
	} else {
		while (i < n && f[i] == ' ')
			i++;
		for (; i < n && f[i] >= '0' && f[i] <= '7'; v = v << 3 | (uint64_t)(f[i++] - '0'))
			if (v >> 60)
				return -1;
		if (i < n && f[i] != ' ' && f[i] != 0)
			return -1;
	}
	*out = v;
	return 0;
}

/* The stored checksum may be the unsigned (POSIX) or signed (old tars) byte sum of the header
 * with the checksum field counted as spaces. */
static bool cksum_ok(const uint8_t *h)
{
	uint64_t want;
	long u = 0, s = 0;

	if (parse_num(h + 148, 8, &want))
		return false;
	for (int i = 0; i < 512; i++) {
		uint8_t c = i >= 148 && i < 156 ? ' ' : h[i];
		u += c, s += (int8_t)c;
	}
	return (long)want == u || (long)want == s;
}

struct meta { /* extended header data applying to the next entry */
	char *lname, *llink, *path, *link;
	bool has_size;
	uint64_t size;
};

static void meta_reset(struct meta *m)
{
	free(m->lname), free(m->llink), free(m->path), free(m->link);
	memset(m, 0, sizeof *m);
}

/* Parses pax records "LEN key=value\n" (LEN counts the whole record); keeps path, linkpath
 * and size, ignores other keys.  An empty value cancels the keyword. */
static int parse_pax(struct xctx *x, char *d, size_t n, struct meta *m)
{
	for (size_t i = 0, len, j; i < n; i += len) {
		for (len = 0, j = i; j < n && d[j] >= '0' && d[j] <= '9' && len <= n; j++)
			len = len * 10 + (size_t)(d[j] - '0');
		if (j == i || j >= n || d[j] != ' ' || len > n - i || len < j - i + 3 || d[i + len - 1] != '\n')
			return fail(&x->rep, -EINVAL, "malformed pax header");
		char *key = d + j + 1, *end = d + i + len - 1, *eq = memchr(key, '=', (size_t)(end - key));
		if (!eq)
			return fail(&x->rep, -EINVAL, "malformed pax record");
		*eq = *end = 0;
		char *val = eq + 1, **slot = !strcmp(key, "path") ? &m->path
					   : !strcmp(key, "linkpath") ? &m->link : NULL;
		bool size = !strcmp(key, "size");
		if ((slot || size) && strlen(val) != (size_t)(end - val))
			return fail(&x->rep, -EINVAL, "NUL byte in pax %s", key);
		if (slot) {
			free(*slot);
			if ((*slot = *val ? strdup(val) : NULL) == NULL && *val)
				return fail(&x->rep, -ENOMEM, "out of memory");
		} else if (size) {
			uint64_t v = 0;
			for (char *p = val; *p; v = v * 10 + (uint64_t)(*p++ - '0'))
				if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
					return fail(&x->rep, -EINVAL, "invalid pax size");
			m->size = v;
			m->has_size = *val != 0;
		}
	}
	return 0;
}

/* Normalises an archive path to "a/b/c": strips "./", empty and "." components; refuses
 * absolute paths and "..".  Returns 0 (*out malloc'd), 1 when nothing is left, or an error. */
static int clean_path(struct xctx *x, const char *in, char **out)
{
	char *p = malloc(strlen(in) + 1), *w = p;

	if (!p)
		return fail(&x->rep, -ENOMEM, "out of memory");
	*out = p;
	if (!*in)
		return fail(&x->rep, -EINVAL, "empty file name");
	if (*in == '/')
		return fail(&x->rep, -EPERM, "absolute file name refused");
	for (const char *s = in, *e; *s; s = *e ? e + 1 : e) {
		size_t l = strcspn(s, "/");
		e = s + l;
		if (l == 2 && s[0] == '.' && s[1] == '.')
			return fail(&x->rep, -EPERM, "'..' in file name refused");
		if (l == 0 || (l == 1 && s[0] == '.'))
			continue;
		if (w != p)
			*w++ = '/';
		memcpy(w, s, l);
		w += l;
	}
	*w = 0;
	return w == p;
}

/* Opens (creating as needed) the directory holding the last component of path, never
 * following a symlink: each component is opened with O_NOFOLLOW|O_DIRECTORY. */
static int open_parent(struct xctx *x, char *path, int *dfd, char **leaf)
{
	int fd = x->dest, nfd = -1, e = 0;
	char *s = path, *slash;

	for (; (slash = strchr(s, '/')); s = slash + 1, *slash = '/', fd = nfd) {
		*slash = 0;
		if (mkdirat(fd, s, 0755) < 0 && errno != EEXIST)
			e = errno;
		else if ((nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			e = errno;
		if (fd != x->dest)
			close(fd);
		if (e == ELOOP || e == ENOTDIR)
			return fail(&x->rep, -EPERM, "'%s' is a symlink or not a directory; refusing to "
				    "write through it", path);
		if (e)
			return fail(&x->rep, -e, "cannot create directory '%s': %s", path, strerror(e));
	}
	*dfd = fd;
	*leaf = s;
	return 0;
}

/* Removes an existing non-directory so that a later duplicate entry replaces it. */
static int unlink_old(int dfd, const char *leaf)
{
	struct stat st;

	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
		return unlinkat(dfd, leaf, 0);
	errno = EEXIST;
	return -1;
}

static int make_file(struct xctx *x, int dfd, const char *leaf, uint64_t mode, uint64_t size)
{
	const int fl = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd, rc = 0;

	if (size > MAX_BYTES - x->written)
		return fail(&x->rep, -EFBIG, "size %llu exceeds the 1 GiB total extraction limit",
			    (unsigned long long)size);
	if ((fd = openat(dfd, leaf, fl, 0600)) < 0 && errno == EEXIST && unlink_old(dfd, leaf) == 0)
		fd = openat(dfd, leaf, fl, 0600);
	if (fd < 0)
		return sysfail(&x->rep, "cannot create file");
	if (fchmod(fd, (mode_t)((mode & 0755) | 0600)) < 0)
		rc = sysfail(&x->rep, "chmod");
	for (size_t k; size && !rc; size -= k, x->written += k)
		if (!(rc = src_exact(x, x->dbuf, k = size < IOSZ ? (size_t)size : IOSZ)) &&
		    (rc = write_all(fd, x->dbuf, k)))
			rc = fail(&x->rep, rc, "write error: %s", strerror(-rc));
	if (close(fd) < 0 && !rc)
		rc = sysfail(&x->rep, "write error");
	return rc;
}

static int make_dir(struct xctx *x, int dfd, const char *leaf, uint64_t mode)
{
	int fd, rc = 0;

	if (mkdirat(dfd, leaf, 0700) < 0 && errno != EEXIST)
		return sysfail(&x->rep, "cannot create directory");
	if ((fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fail(&x->rep, -EEXIST, "exists and is not a directory");
	if (fchmod(fd, (mode_t)((mode & 0755) | 0700)) < 0)
		rc = sysfail(&x->rep, "chmod");
	close(fd);
	return rc;
}

/* Creates one entry.  Returns 1 when it consumed the entry's data, 0 when the caller must skip
 * it (entry ignored or without data), or a negative errno. */
static int extract_entry(struct xctx *x, char type, const char *raw, const char *link,
			 uint64_t mode, uint64_t size)
{
	bool reg = type == '0' || type == '\0' || type == '7'; /* '7' (contiguous) reads as regular */
	bool dir = type == '5' || (reg && raw[0] && raw[strlen(raw) - 1] == '/'); /* old tars */
	char *path = NULL, *leaf = NULL;
	int dfd = -1, rc, consumed = 0;

	if (!reg && !dir && type != '2')
		return 0; /* hard links, devices, FIFOs, unknown types: skipped */
	if ((rc = clean_path(x, raw, &path)) == 0 && (rc = open_parent(x, path, &dfd, &leaf)) == 0) {
		if (dir) {
			rc = make_dir(x, dfd, leaf, mode);
		} else if (type == '2') {
			if (symlinkat(link, dfd, leaf) < 0 &&
			    (errno != EEXIST || unlink_old(dfd, leaf) < 0 || symlinkat(link, dfd, leaf) < 0))
				rc = sysfail(&x->rep, "cannot create symlink");
		} else if ((rc = make_file(x, dfd, leaf, mode, size)) == 0) {
			consumed = 1;
		}
		if (dfd != x->dest)
			close(dfd);
	}
	free(path);
	return rc < 0 ? rc : consumed;
}

static int one_entry(struct xctx *x, const uint8_t *h, struct meta *m)
{
	char type = (char)h[156], name[257], link[101], *d;
	uint64_t size, mode;
	int rc;

	if (!cksum_ok(h))
		return fail(&x->rep, -EINVAL, "bad tar header checksum (header #%lu)", x->entries);
	if (parse_num(h + 124, 12, &size) || parse_num(h + 100, 8, &mode))
		return fail(&x->rep, -EINVAL, "invalid numeric field in tar header #%lu", x->entries);
	if (type == 'L' || type == 'K' || type == 'x') { /* data describes the next entry */
		if (size > MAX_META)
			return fail(&x->rep, -EFBIG, "'%c' extended header too large", type);
		if (!(d = malloc(size + 1)))
			return fail(&x->rep, -ENOMEM, "out of memory");
		if (!(rc = src_exact(x, (uint8_t *)d, size)))
			rc = src_skip(x, pad512(size));
		d[size] = 0;
		if (!rc && type == 'x')
			rc = parse_pax(x, d, size, m);
		if (rc || type == 'x') {
			free(d);
			return rc;
		}
		char **slot = type == 'L' ? &m->lname : &m->llink;
		free(*slot);
		*slot = d;
		return 0;
	}
	if (type == 'g') /* pax global header: ignored */
		return (rc = src_skip(x, size)) ? rc : src_skip(x, pad512(size));
	if (m->has_size)
		size = m->size;
	if (!m->path && !m->lname) { /* POSIX ustar ("ustar\0") may split it as prefix/name */
		size_t pl = 0, nl = strnlen((const char *)h, 100);
		if (!memcmp(h + 257, "ustar", 6) && h[345]) {
			memcpy(name, h + 345, pl = strnlen((const char *)h + 345, 155));
			name[pl++] = '/';
		}
		memcpy(name + pl, h, nl);
		name[pl + nl] = 0;
	}
	memcpy(link, h + 157, 100);
	link[100] = 0;
	x->rep.entry = m->path ? m->path : m->lname ? m->lname : name;
	rc = extract_entry(x, type, x->rep.entry, m->link ? m->link : m->llink ? m->llink : link,
			   mode, size);
	if (rc == 0)
		rc = src_skip(x, size);
	if (rc >= 0)
		rc = src_skip(x, pad512(size));
	x->rep.entry = NULL;
	meta_reset(m);
	return rc;
}

static bool all_zero(const uint8_t *b)
{
	for (int i = 0; i < 512; i++)
		if (b[i])
			return false;
	return true;
}

static int extract_all(struct xctx *x)
{
	struct meta m = {0};
	uint8_t h[512];
	long r;
	int rc = 0;

	while (rc == 0) {
		if ((r = src_read(x, h, 512)) >= 0 && r < 512)
			r = fail(&x->rep, -EINVAL, "unexpected end of archive (no end-of-archive marker)");
		if (r < 0) {
			rc = (int)r;
		} else if (all_zero(h)) { /* end: a second zero block, EOF, or (like GNU tar) a lone one */
			if ((r = src_read(x, h, 512)) > 0 && r < 512)
				r = fail(&x->rep, -EINVAL, "truncated end-of-archive marker");
			rc = r < 0 ? (int)r : 0;
			break;
		} else if (++x->entries > MAX_ENTRIES) {
			rc = fail(&x->rep, -EFBIG, "more than %lu archive entries", MAX_ENTRIES);
		} else {
			rc = one_entry(x, h, &m);
		}
	}
	meta_reset(&m);
	/* Decompress what follows the tar end (record padding) so the gzip CRC gets checked. */
	while (rc == 0 && x->gz && (r = gz_read(x, x->dbuf, IOSZ)) != 0)
		rc = r < 0 ? (int)r : 0;
	return rc;
}

int rd_archive_extract(int in_fd, int dest_dirfd, char *err, size_t errlen)
{
	struct xctx *x = calloc(1, sizeof *x);
	uint8_t fl[288 + 32];
	long n;

	if (err && errlen)
		*err = 0;
	if (!x)
		return fail(&(struct report){err, errlen, 0, NULL}, -ENOMEM, "out of memory");
	x->rep = (struct report){err, errlen, 0, NULL};
	x->in = in_fd;
	x->dest = dest_dirfd;
	crc_table(x->crctab);
	/* fixed codes (RFC 1951 3.2.6); all 32 five-bit distance codes, 30 and 31 rejected later */
	memset(fl, 8, 144), memset(fl + 144, 9, 112), memset(fl + 256, 7, 24), memset(fl + 280, 8, 8);
	memset(fl + 288, 5, 32);
	build(&x->fixlit, fl, 288, false);
	build(&x->fixdist, fl + 288, 32, false);
	if ((n = in_peek(x, 2)) == 0)
		n = fail(&x->rep, -EINVAL, "empty archive");
	x->gz = n >= 2 && x->ibuf[0] == 0x1f && x->ibuf[1] == 0x8b;
	int rc = n < 0 ? (int)n : extract_all(x);
	free(x);
	return rc;
}

/* ------------------------------------------------------------------------------ deflate */

#define BUFSZ (4 * WSIZE) /* LZ77 buffer: history (>= 32 KiB) plus new input */
#define HBITS 15
#define LOOKAHEAD 262     /* longest match (258), the lazy step and the 3 hashed bytes */
#define MAX_CHAIN 128     /* match-search effort, similar to gzip -6 ... */
#define GOOD_LEN 8        /* ... which also searches less hard after a match this long */
#define LAZY_LEN 16
#define NICE_LEN 128

struct htab { /* Huffman code for encoding: bit-reversed codes and their lengths */
	uint16_t code[288];
	uint8_t len[288];
};

struct zctx {
	struct report rep;
	int out, werr;               /* werr: first write error (sticky) */
	size_t fill, pos, blk, ins;  /* in buf: data end, next to encode, block start, next to hash */
	size_t nsyms, olen;
	uint64_t bits, extra;        /* pending output bits; extra bits of the pending block */
	unsigned nbits;
	uint32_t crc, isize, lfreq[286], dfreq[30], crctab[256];
	struct htab fixl, fixd;
	int32_t head[1 << HBITS], prev[WSIZE]; /* hash chains of buffer positions, -1 = none */
	uint32_t syms[BUFSZ];        /* pending block: literal << 16, or length << 16 | distance */
	uint8_t buf[BUFSZ], obuf[IOSZ], fbuf[IOSZ];
};

static void out_flush(struct zctx *z)
{
	int rc = write_all(z->out, z->obuf, z->olen);
	z->werr = z->werr ? z->werr : rc;
	z->olen = 0;
}

static void out_byte(struct zctx *z, uint8_t b)
{
	if (z->olen == IOSZ)
		out_flush(z);
	z->obuf[z->olen++] = b;
}

static void put_bits(struct zctx *z, uint32_t v, unsigned n)
{
	z->bits |= (uint64_t)v << z->nbits;
	for (z->nbits += n; z->nbits >= 8; z->nbits -= 8, z->bits >>= 8)
		out_byte(z, (uint8_t)z->bits);
}

/* Assigns canonical codes to the lengths t->len[0..n) (RFC 1951 3.2.2), stored bit-reversed
 * because Huffman codes are sent most significant bit first into an LSB-first stream. */
static void make_codes(struct htab *t, int n)
{
	unsigned count[16] = {0}, next[16], code = 0;

	for (int i = 0; i < n; i++)
		count[t->len[i]]++;
	count[0] = 0;
	for (int b = 1; b < 16; b++)
		next[b] = code = (code + count[b - 1]) << 1;
	for (int i = 0; i < n; i++) {
		unsigned c = next[t->len[i]]++, r = 0;
		for (int k = 0; k < t->len[i]; k++, c >>= 1)
			r = r << 1 | (c & 1);
		t->code[i] = (uint16_t)r;
	}
}

/* Huffman code lengths for freq[0..n), at most maxbits long.  Built with the two-queue method
 * over leaves sorted by frequency; if the tree is too deep the frequencies are flattened
 * (halved, staying non-zero) and it is built again. */
static void huff_lengths(const uint32_t *freq, int n, unsigned maxbits, uint8_t *len)
{
	uint32_t f[288];
	uint64_t w[576];
	int16_t leaf[288], parent[576];
	uint8_t depth[576];
	int nl, li, nn, qi, k, a[2];

	for (memcpy(f, freq, (size_t)n * sizeof *f);; ) {
		unsigned maxd = 0;
		for (int i = nl = 0; i < n; i++) { /* stable insertion sort of the used symbols */
			for (len[i] = 0, k = f[i] ? nl++ : 0; f[i] && k > 0 && f[leaf[k - 1]] > f[i]; k--)
				leaf[k] = leaf[k - 1];
			if (f[i])
				leaf[k] = (int16_t)i;
		}
		if (nl < 2) { /* a lone code would be incomplete: give it a partner */
			f[0] |= 1, f[1] |= 1;
			continue;
		}
		for (k = 0; k < nl; k++)
			w[k] = f[leaf[k]];
		/* nodes 0..nl-1 are the leaves; internal nodes are created in non-decreasing weight
		 * order, so the two lightest nodes are at the heads of the two queues */
		for (nn = qi = nl, li = 0; nn < 2 * nl - 1; nn++) {
			for (k = 0; k < 2; k++)
				a[k] = li < nl && (qi >= nn || w[li] <= w[qi]) ? li++ : qi++;
			w[nn] = w[a[0]] + w[a[1]];
			parent[a[0]] = parent[a[1]] = (int16_t)nn;
		}
		depth[nn - 1] = 0;
		for (k = nn - 2; k >= 0; k--) /* parents always come after their children */
			depth[k] = (uint8_t)(depth[parent[k]] + 1);
		for (k = 0; k < nl; k++)
			maxd = depth[k] > maxd ? depth[k] : maxd;
		if (maxd <= maxbits) {
			for (k = 0; k < nl; k++)
				len[leaf[k]] = depth[k];
			return;
		}
		for (int i = 0; i < n; i++)
			f[i] = f[i] ? (f[i] >> 1) | 1 : 0;
	}
}

static int len_code(unsigned len)
{
	int c = 28;
	while (len_base[c] > len)
		c--;
	return c;
}

static int dist_code(unsigned dist)
{
	int c = 29;
	while (dist_base[c] > dist)
		c--;
	return c;
}

static unsigned cl_extra(unsigned sym) /* extra bits of code-length symbols 16, 17, 18 */
{
	return sym < 16 ? 0 : sym == 16 ? 2 : sym == 17 ? 3 : 7;
}

/* Emits the pending symbols as one block: stored, fixed or dynamic Huffman, whichever is
 * smallest. */
static void flush_block(struct zctx *z, bool final)
{
	struct htab dl, dd, cl;
	uint8_t all[286 + 30], rs[286 + 30], rx[286 + 30];
	uint32_t cfreq[19] = {0};
	int hlit = 286, hdist = 30, hclen = 19, nr = 0, i, run;
	size_t n = z->pos - z->blk, off = z->blk;

	z->lfreq[256] = 1;
	huff_lengths(z->lfreq, 286, 15, dl.len);
	huff_lengths(z->dfreq, 30, 15, dd.len);
	while (hlit > 257 && !dl.len[hlit - 1])
		hlit--;
	while (hdist > 1 && !dd.len[hdist - 1])
		hdist--;
	/* Run-length encode the code lengths with symbols 16 (repeat the previous length 3..6
	 * times), 17 (3..10 zeros) and 18 (11..138 zeros). */
	memcpy(all, dl.len, (size_t)hlit);
	memcpy(all + hlit, dd.len, (size_t)hdist);
	for (i = 0; i < hlit + hdist; i += run) {
		for (run = 1; i + run < hlit + hdist && all[i + run] == all[i]; run++)
			;
		if (!all[i] && run >= 3) {
			run = run > 138 ? 138 : run;
			rs[nr] = run >= 11 ? 18 : 17, rx[nr++] = (uint8_t)(run - (run >= 11 ? 11 : 3));
		} else if (all[i] && run >= 4) {
			run = run > 7 ? 7 : run;
			rs[nr] = all[i], rx[nr++] = 0;
			rs[nr] = 16, rx[nr++] = (uint8_t)(run - 4);
		} else {
			rs[nr] = all[i], rx[nr++] = 0, run = 1;
		}
	}
	for (i = 0; i < nr; i++)
		cfreq[rs[i]]++;
	huff_lengths(cfreq, 19, 7, cl.len);
	while (hclen > 4 && !cl.len[cl_order[hclen - 1]])
		hclen--;
	make_codes(&dl, 286), make_codes(&dd, 30), make_codes(&cl, 19);

	/* sizes in bits; stored blocks are counted with their worst-case alignment padding */
	uint64_t fixed = 3 + z->extra, dyn = 3 + 14 + 3 * (uint64_t)hclen + z->extra;
	uint64_t stored = 8 * (uint64_t)n + (n / 65535 + 1) * (3 + 7 + 32);
	for (i = 0; i < 286; i++)
		fixed += (uint64_t)z->lfreq[i] * z->fixl.len[i], dyn += (uint64_t)z->lfreq[i] * dl.len[i];
	for (i = 0; i < 30; i++)
		fixed += (uint64_t)z->dfreq[i] * 5, dyn += (uint64_t)z->dfreq[i] * dd.len[i];
	for (i = 0; i < nr; i++)
		dyn += cl.len[rs[i]] + cl_extra(rs[i]);

	if (stored < fixed && stored < dyn) {
		do { /* a stored block holds at most 65535 bytes */
			size_t k = n > 65535 ? 65535 : n;
			n -= k;
			put_bits(z, final && !n, 3);
			put_bits(z, 0, (8 - z->nbits) % 8); /* to a byte boundary */
			put_bits(z, (uint32_t)k, 16);
			put_bits(z, (uint32_t)~k & 0xffff, 16);
			while (k--)
				out_byte(z, z->buf[off++]);
		} while (n);
	} else {
		const struct htab *lt = dyn < fixed ? &dl : &z->fixl, *dt = dyn < fixed ? &dd : &z->fixd;
		put_bits(z, final | (dyn < fixed ? 2u : 1u) << 1, 3);
		if (dyn < fixed) {
			put_bits(z, (uint32_t)(hlit - 257), 5);
			put_bits(z, (uint32_t)(hdist - 1), 5);
			put_bits(z, (uint32_t)(hclen - 4), 4);
			for (i = 0; i < hclen; i++)
				put_bits(z, cl.len[cl_order[i]], 3);
			for (i = 0; i < nr; i++) {
				put_bits(z, cl.code[rs[i]], cl.len[rs[i]]);
				put_bits(z, rx[i], cl_extra(rs[i]));
			}
		}
		for (size_t s = 0; s < z->nsyms; s++) {
			unsigned v = z->syms[s] >> 16, dist = z->syms[s] & 0xffff;
			if (!dist) {
				put_bits(z, lt->code[v], lt->len[v]);
				continue;
			}
			int lc = len_code(v), dc = dist_code(dist);
			put_bits(z, lt->code[257 + lc], lt->len[257 + lc]);
			put_bits(z, v - len_base[lc], len_extra[lc]);
			put_bits(z, dt->code[dc], dt->len[dc]);
			put_bits(z, dist - dist_base[dc], dist_extra[dc]);
		}
		put_bits(z, lt->code[256], lt->len[256]);
	}
	memset(z->lfreq, 0, sizeof z->lfreq);
	memset(z->dfreq, 0, sizeof z->dfreq);
	z->nsyms = z->extra = 0;
	z->blk = z->pos;
}

static unsigned hash3(const uint8_t *p)
{
	return ((unsigned)p[0] << 10 ^ (unsigned)p[1] << 5 ^ p[2]) & ((1u << HBITS) - 1);
}

/* Longest earlier match for position p (a length < 3 means none).  First inserts into the
 * hash chains every position before p not yet there; p itself goes in after the search. */
static unsigned longest(struct zctx *z, size_t p, int chain, unsigned *dist)
{
	unsigned best = 2, maxlen = z->fill - p < 258 ? (unsigned)(z->fill - p) : 258, h;
	const uint8_t *b = z->buf + p;

	if (maxlen < 3)
		return 0;
	for (; z->ins < p; z->ins++) {
		h = hash3(z->buf + z->ins);
		z->prev[z->ins & WMASK] = z->head[h];
		z->head[h] = (int32_t)z->ins;
	}
	h = hash3(b);
	/* chains hold strictly decreasing positions; stop once beyond the window */
	for (int32_t c = z->head[h]; c >= 0 && p - (size_t)c <= WSIZE && chain--; c = z->prev[c & WMASK]) {
		const uint8_t *a = z->buf + c;
		unsigned l = 0;
		if (a[best] != b[best] || a[0] != b[0] || a[1] != b[1])
			continue;
		for (l = 2; l < maxlen && a[l] == b[l];)
			l++;
		if (l > best) {
			best = l, *dist = (unsigned)(p - (size_t)c);
			if (l >= maxlen || l >= NICE_LEN)
				break;
		}
	}
	z->prev[p & WMASK] = z->head[h];
	z->head[h] = (int32_t)p;
	z->ins = p + 1;
	return best;
}

static void rec_lit(struct zctx *z, uint8_t c)
{
	z->syms[z->nsyms++] = (uint32_t)c << 16;
	z->lfreq[c]++;
}

/* LZ77 with one-step lazy matching: a match is deferred when the next position has a longer
 * one.  Without `flush`, stops LOOKAHEAD bytes before the end of the buffered data. */
static void lz_run(struct zctx *z, bool flush)
{
	size_t limit = flush ? z->fill : z->fill - LOOKAHEAD, p;

	for (; (p = z->pos) < limit; z->pos = p) {
		unsigned d = 0, d2 = 0, len = longest(z, p, MAX_CHAIN, &d), len2;
		while (len >= 3 && len < LAZY_LEN && p + 1 < limit &&
		       (len2 = longest(z, p + 1, len < GOOD_LEN ? MAX_CHAIN : MAX_CHAIN / 4, &d2)) > len) {
			rec_lit(z, z->buf[p++]);
			len = len2, d = d2;
		}
		if (len < 3) {
			rec_lit(z, z->buf[p++]);
			continue;
		}
		int lc = len_code(len), dc = dist_code(d);
		z->syms[z->nsyms++] = (uint32_t)len << 16 | d;
		z->lfreq[257 + lc]++;
		z->dfreq[dc]++;
		z->extra += len_extra[lc] + dist_extra[dc];
		p += len;
	}
}

/* Appends uncompressed bytes; compresses a block and slides the buffer whenever it fills.
 * The slide is a multiple of WSIZE so that prev[] slots (position & WMASK) stay valid. */
static void z_feed(struct zctx *z, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		z->crc = crc_byte(z->crctab, z->crc, p[i]);
	z->isize += (uint32_t)n;
	for (size_t k; n; p += k, n -= k) {
		k = BUFSZ - z->fill < n ? BUFSZ - z->fill : n;
		memcpy(z->buf + z->fill, p, k);
		if ((z->fill += k) < BUFSZ)
			continue;
		lz_run(z, false);
		flush_block(z, false);
		size_t d = (z->pos - WSIZE) / WSIZE * WSIZE;
		memmove(z->buf, z->buf + d, z->fill - d);
		z->fill -= d, z->pos -= d, z->blk -= d, z->ins -= d;
		for (size_t i = 0; i < (1u << HBITS); i++)
			z->head[i] = z->head[i] >= (int32_t)d ? z->head[i] - (int32_t)d : -1;
		for (size_t i = 0; i < WSIZE; i++)
			z->prev[i] = z->prev[i] >= (int32_t)d ? z->prev[i] - (int32_t)d : -1;
	}
}

/* --------------------------------------------------------------------------- tar writing */

/* Octal with a trailing NUL when the value fits, else GNU base-256. */
static void tw_num(uint8_t *f, size_t n, uint64_t v)
{
	if (v >> (3 * (n - 1))) {
		for (f[0] = 0x80; --n > 0; v >>= 8)
			f[n] = (uint8_t)v;
	} else {
		for (f[--n] = 0; n-- > 0; v >>= 3)
			f[n] = (uint8_t)('0' + (v & 7));
	}
}

static void tw_pad(struct zctx *z, uint64_t n)
{
	static const uint8_t zero[512];
	z_feed(z, zero, pad512(n));
}

static void tw_header(struct zctx *z, const char *name, char type, uint64_t mode, uint64_t size,
		      uint64_t mtime, const char *link)
{
	uint8_t h[512] = {0};
	unsigned sum = 0;

	memcpy(h, name, strnlen(name, 100));
	tw_num(h + 100, 8, mode);
	tw_num(h + 108, 8, 0); /* uid */
	tw_num(h + 116, 8, 0); /* gid */
	tw_num(h + 124, 12, size);
	tw_num(h + 136, 12, mtime);
	memset(h + 148, ' ', 8); /* the checksum field counts as spaces while summing */
	h[156] = (uint8_t)type;
	memcpy(h + 157, link, strnlen(link, 100));
	memcpy(h + 257, "ustar  ", 8); /* GNU magic and version */
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	tw_num(h + 148, 7, sum); /* six digits and a NUL, then the space already there */
	z_feed(z, h, 512);
}

/* One entry; a name or link target over 100 bytes is preceded by a GNU 'L' / 'K' entry. */
static void tw_entry(struct zctx *z, const char *name, char type, const struct stat *st,
		     uint64_t size, const char *link)
{
	const char *longs[2] = {name, link};

	for (int k = 0; k < 2; k++) {
		size_t n = strlen(longs[k]) + 1;
		if (n <= 101)
			continue;
		tw_header(z, "././@LongLink", k ? 'K' : 'L', 0, n, 0, "");
		z_feed(z, (const uint8_t *)longs[k], n);
		tw_pad(z, n);
	}
	tw_header(z, name, type, st->st_mode & 07777, size, st->st_mtime > 0 ? (uint64_t)st->st_mtime : 0,
		  link);
}

static int tw_file(struct zctx *z, int dfd, const char *name, const char *path)
{
	struct stat st;
	int rc = 0, fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = sysfail(&z->rep, "cannot open");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (S_ISREG(st.st_mode)) { /* (it could have been replaced since the directory scan) */
		tw_entry(z, path, '0', &st, (uint64_t)st.st_size, "");
		for (uint64_t left = (uint64_t)st.st_size; left && !rc;) {
			ssize_t r = read(fd, z->fbuf, left < IOSZ ? (size_t)left : IOSZ);
			if (r < 0 && errno != EINTR)
				rc = sysfail(&z->rep, "read error");
			else if (r == 0)
				rc = fail(&z->rep, -EIO, "file shrank while being archived");
			else if (r > 0)
				z_feed(z, z->fbuf, (size_t)r), left -= (uint64_t)r;
		}
		tw_pad(z, (uint64_t)st.st_size);
	}
	close(fd);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int tw_dir(struct zctx *z, int dfd, const char *prefix);

static int tw_one(struct zctx *z, int dfd, const char *prefix, const char *name)
{
	size_t pl = strlen(prefix), nl = strlen(name);
	char *path = malloc(pl + nl + 2), *target = (char *)z->fbuf; /* free while not in tw_file */
	struct stat st;
	ssize_t r;
	int rc = 0, sub;

	if (!path)
		return fail(&z->rep, -ENOMEM, "out of memory");
	memcpy(path, prefix, pl);
	memcpy(path + pl, name, nl + 1);
	z->rep.entry = path;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = sysfail(&z->rep, "cannot stat");
	} else if (S_ISREG(st.st_mode)) {
		rc = tw_file(z, dfd, name, path);
	} else if (S_ISLNK(st.st_mode)) {
		if ((r = readlinkat(dfd, name, target, IOSZ - 1)) < 0) { /* Linux limit: 4095 */
			rc = sysfail(&z->rep, "cannot read symlink");
		} else {
			target[r] = 0;
			tw_entry(z, path, '2', &st, 0, target);
		}
	} else if (S_ISDIR(st.st_mode)) {
		memcpy(path + pl + nl, "/", 2); /* directory names end with "/" */
		tw_entry(z, path, '5', &st, 0, "");
		if ((sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rc = sysfail(&z->rep, "cannot open directory");
		else
			rc = tw_dir(z, sub, path);
		if (sub >= 0)
			close(sub);
	} /* other types are skipped */
	z->rep.entry = NULL;
	free(path);
	return rc;
}

/* Archives the contents of dfd (not dfd itself), sorted by name for reproducible output. */
static int tw_dir(struct zctx *z, int dfd, const char *prefix)
{
	char **names = NULL, **nn;
	size_t n = 0, cap = 0;
	int rc = 0, fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		rc = fail(&z->rep, -errno, "cannot read directory '%s': %s", prefix, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	rewinddir(d); /* the dup shares its offset with dfd */
	while (!rc && (errno = 0, de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap && (nn = realloc(names, (cap ? 2 * cap : 64) * sizeof *names)) != NULL)
			names = nn, cap = cap ? 2 * cap : 64;
		if (n < cap && (names[n] = strdup(de->d_name)) != NULL)
			n++;
		else
			rc = fail(&z->rep, -ENOMEM, "out of memory");
	}
	if (!rc && errno)
		rc = fail(&z->rep, -errno, "cannot read directory '%s': %s", prefix, strerror(errno));
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_name);
	for (size_t i = 0; i < n; free(names[i++])) {
		if (!rc && z->werr)
			rc = fail(&z->rep, z->werr, "write error: %s", strerror(-z->werr));
		if (!rc)
			rc = tw_one(z, dfd, prefix, names[i]);
	}
	free(names);
	return rc;
}

int rd_archive_create(int src_dirfd, int out_fd, char *err, size_t errlen)
{
	static const uint8_t gzip_header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}; /* mtime 0, Unix */
	static const uint8_t end[1024];
	struct zctx *z = calloc(1, sizeof *z);
	int rc;

	if (err && errlen)
		*err = 0;
	if (!z)
		return fail(&(struct report){err, errlen, 0, NULL}, -ENOMEM, "out of memory");
	z->rep = (struct report){err, errlen, 0, NULL};
	z->out = out_fd;
	z->crc = 0xffffffffu;
	crc_table(z->crctab);
	memset(z->head, 0xff, sizeof z->head);
	memset(z->prev, 0xff, sizeof z->prev);
	memset(z->fixl.len, 8, 144), memset(z->fixl.len + 144, 9, 112);
	memset(z->fixl.len + 256, 7, 24), memset(z->fixl.len + 280, 8, 8);
	memset(z->fixd.len, 5, 30);
	make_codes(&z->fixl, 288), make_codes(&z->fixd, 30);
	for (int i = 0; i < 10; i++)
		out_byte(z, gzip_header[i]);
	if (!(rc = tw_dir(z, src_dirfd, ""))) {
		z_feed(z, end, sizeof end); /* two zero blocks end the archive */
		lz_run(z, true);
		flush_block(z, true);
		put_bits(z, 0, (8 - z->nbits) % 8);
		for (int i = 0; i < 8; i++) /* trailer: CRC-32 and size mod 2^32, little-endian */
			out_byte(z, (uint8_t)((i < 4 ? ~z->crc : z->isize) >> (8 * (i % 4))));
		out_flush(z);
		if (z->werr)
			rc = fail(&z->rep, z->werr, "write error: %s", strerror(-z->werr));
	}
	free(z);
	return rc;
}
