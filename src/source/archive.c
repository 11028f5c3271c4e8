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
static const uint8_t cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* ------------------------------------------------------------------------------ shared */

struct report {
	char *err;
	size_t errlen;
	int rc;            /* first error (negative errno), 0 while none */
	const char *entry; /* archive entry being handled, prefixed to messages */
};

/* Records the first error as "entry: reason" (control characters replaced so it stays one
 * line) and returns its code; later failures keep the first message and code. */
__attribute__((format(printf, 3, 4))) static int fail(struct report *r, int rc, const char *fmt, ...)
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
	if (r->entry)
		snprintf(r->err, r->errlen, "%s: %s", r->entry, msg);
	else
		snprintf(r->err, r->errlen, "%s", msg);
	for (char *p = r->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return rc;
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

/* CRC-32 register update (init 0xffffffff, final value is the complement). */
static inline uint32_t crc_byte(const uint32_t *t, uint32_t c, uint8_t b)
{
	return t[(c ^ b) & 0xff] ^ (c >> 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------------------------------ inflate side */

struct huff {              /* canonical Huffman code, decoded one bit at a time */
	uint16_t count[16];    /* number of codes of each bit length */
	uint16_t sym[288];     /* symbols ordered by (code length, symbol value) */
};

enum { ST_MEMBER, ST_BLOCK, ST_STORED, ST_CODES, ST_END };

struct xctx {
	struct report rep;
	int in, dest;
	size_t ipos, ilen;            /* unread input is ibuf[ipos..ilen) */
	bool gz, last;                /* gzip input; current block is the final one */
	int state;
	uint32_t bitbuf, bitcnt;      /* bits not yet consumed, LSB first (always < 8 between calls) */
	uint32_t stored, copy_len, copy_dist;
	uint64_t mtotal;              /* bytes produced by the current gzip member */
	uint32_t crc;
	uint64_t written;             /* file bytes extracted so far */
	unsigned long entries;
	const struct huff *lcode, *dcode;
	struct huff fixlit, fixdist, dynlit, dyndist;
	uint32_t crctab[256];
	uint8_t win[WSIZE];           /* last 32 KiB of output, for back-references */
	uint8_t ibuf[IOSZ];
	uint8_t dbuf[IOSZ];
};

/* Refills the drained input buffer: bytes read, 0 at end of input, or a negative errno. */
static long in_fill(struct xctx *x)
{
	ssize_t r;

	x->ipos = x->ilen = 0;
	do
		r = read(x->in, x->ibuf, IOSZ);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		int e = errno;
		return fail(&x->rep, -e, "read error: %s", strerror(e));
	}
	x->ilen = (size_t)r;
	return r;
}

/* The next input byte, or -1 at end of input (or after a read error, already reported). */
static inline int in_byte(struct xctx *x)
{
	if (x->ipos == x->ilen && in_fill(x) <= 0)
		return -1;
	return x->ibuf[x->ipos++];
}

/* Makes at least `need` unread bytes available if the input has them; returns how many are. */
static long in_peek(struct xctx *x, size_t need)
{
	memmove(x->ibuf, x->ibuf + x->ipos, x->ilen - x->ipos);
	x->ilen -= x->ipos;
	x->ipos = 0;
	while (x->ilen < need) {
		ssize_t r = read(x->in, x->ibuf + x->ilen, IOSZ - x->ilen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			return fail(&x->rep, -e, "read error: %s", strerror(e));
		}
		if (r == 0)
			break;
		x->ilen += (size_t)r;
	}
	return (long)x->ilen;
}

static int truncated(struct xctx *x)
{
	return fail(&x->rep, -EINVAL, "truncated gzip data");
}

static int corrupt(struct xctx *x, const char *what)
{
	return fail(&x->rep, -EINVAL, "corrupt gzip data: %s", what);
}

/* Takes n (<= 16) bits from the stream, least significant first. */
static int bits(struct xctx *x, unsigned n, uint32_t *v)
{
	while (x->bitcnt < n) {
		int c = in_byte(x);
		if (c < 0)
			return truncated(x);
		x->bitbuf |= (uint32_t)c << x->bitcnt;
		x->bitcnt += 8;
	}
	*v = x->bitbuf & ((1u << n) - 1);
	x->bitbuf >>= n;
	x->bitcnt -= n;
	return 0;
}

/* Decodes one symbol.  Canonical codes of one length are consecutive integers, so after each
 * bit we check whether the code read so far falls inside the range of codes of that length. */
static int decode(struct xctx *x, const struct huff *h)
{
	int code = 0, first = 0, index = 0;

	for (int len = 1; len < 16; len++) {
		if (!x->bitcnt) {
			int c = in_byte(x);
			if (c < 0)
				return truncated(x);
			x->bitbuf = (uint32_t)c;
			x->bitcnt = 8;
		}
		code |= (int)(x->bitbuf & 1);
		x->bitbuf >>= 1;
		x->bitcnt--;
		int count = h->count[len];
		if (code - first < count)
			return h->sym[index + code - first];
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return corrupt(x, "invalid Huffman code");
}

/* Builds a decoding table from n code lengths.  Over-subscribed sets are rejected; incomplete
 * ones too, except (when lenient) an empty set or a single one-bit code, which RFC 1951
 * permits for distances and zlib accepts.  Returns 0 or -1. */
static int build(struct huff *h, const uint8_t *len, int n, bool lenient)
{
	uint16_t offs[16];
	int left = 1;

	memset(h->count, 0, sizeof h->count);
	for (int i = 0; i < n; i++)
		h->count[len[i]]++;
	int used = n - h->count[0];
	for (int l = 1; l < 16; l++) {
		left = (left << 1) - h->count[l];
		if (left < 0)
			return -1;
	}
	if (left > 0 && !(lenient && (used == 0 || (used == 1 && h->count[1] == 1))))
		return -1;
	offs[1] = 0;
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
	uint8_t lens[286 + 30], cll[19] = {0};
	uint32_t hlit, hdist, hclen, v;
	struct huff cl;
	int rc;

	if ((rc = bits(x, 5, &hlit)) || (rc = bits(x, 5, &hdist)) || (rc = bits(x, 4, &hclen)))
		return rc;
	hlit += 257, hdist += 1, hclen += 4;
	if (hlit > 286 || hdist > 30)
		return corrupt(x, "too many length or distance codes");
	for (uint32_t i = 0; i < hclen; i++) {
		if ((rc = bits(x, 3, &v)))
			return rc;
		cll[cl_order[i]] = (uint8_t)v;
	}
	if (build(&cl, cll, 19, false))
		return corrupt(x, "invalid code-length code");
	for (uint32_t i = 0; i < hlit + hdist;) {
		int sym = decode(x, &cl);
		uint32_t rep;
		uint8_t val = 0;
		if (sym < 0)
			return sym;
		if (sym < 16) {
			lens[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) { /* repeat the previous length 3..6 times */
			if (!i)
				return corrupt(x, "length repeat with no previous length");
			val = lens[i - 1];
			rc = bits(x, 2, &v), rep = 3 + v;
		} else if (sym == 17) { /* 3..10 zeros */
			rc = bits(x, 3, &v), rep = 3 + v;
		} else { /* 11..138 zeros */
			rc = bits(x, 7, &v), rep = 11 + v;
		}
		if (rc)
			return rc;
		if (rep > hlit + hdist - i)
			return corrupt(x, "code lengths overflow");
		while (rep--)
			lens[i++] = val;
	}
	if (!lens[256])
		return corrupt(x, "no end-of-block code");
	if (build(&x->dynlit, lens, (int)hlit, true) || build(&x->dyndist, lens + hlit, (int)hdist, true))
		return corrupt(x, "invalid literal/length or distance code lengths");
	x->lcode = &x->dynlit;
	x->dcode = &x->dyndist;
	return 0;
}

static int block_header(struct xctx *x)
{
	uint32_t v, nlen;
	int rc = bits(x, 3, &v);

	if (rc)
		return rc;
	x->last = v & 1;
	switch (v >> 1) {
	case 0: /* stored: skip to a byte boundary, then LEN and its complement NLEN */
		x->bitbuf = x->bitcnt = 0;
		if ((rc = bits(x, 16, &v)) || (rc = bits(x, 16, &nlen)))
			return rc;
		if (v != (~nlen & 0xffff))
			return corrupt(x, "stored block length check failed");
		x->stored = v;
		x->state = ST_STORED;
		return 0;
	case 1:
		x->lcode = &x->fixlit;
		x->dcode = &x->fixdist;
		x->state = ST_CODES;
		return 0;
	case 2:
		x->state = ST_CODES;
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
#define HBYTE()                                                                          \
	do {                                                                             \
		if ((c = in_byte(x)) < 0)                                                \
			return fail(&x->rep, -EINVAL, "truncated gzip header");          \
		crc = crc_byte(x->crctab, crc, (uint8_t)c);                              \
	} while (0)
	for (int i = 0; i < 10; i++) {
		HBYTE();
		h[i] = (uint8_t)c;
	}
	if (h[0] != 0x1f || h[1] != 0x8b)
		return fail(&x->rep, -EINVAL, "not a gzip stream");
	if (h[2] != 8)
		return fail(&x->rep, -EINVAL, "unsupported gzip compression method %u", h[2]);
	if (h[3] & 0xe0)
		return fail(&x->rep, -EINVAL, "reserved gzip header flags set");
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
		if (lo < 0 || hi < 0)
			return fail(&x->rep, -EINVAL, "truncated gzip header");
		if ((uint32_t)(lo | hi << 8) != (~crc & 0xffff))
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
	uint8_t t[8];

	x->bitbuf = x->bitcnt = 0; /* the trailer starts at the next byte boundary */
	for (int i = 0; i < 8; i++) {
		int c = in_byte(x);
		if (c < 0)
			return fail(&x->rep, -EINVAL, "truncated gzip trailer");
		t[i] = (uint8_t)c;
	}
	if (le32(t) != ~x->crc)
		return fail(&x->rep, -EINVAL, "gzip CRC mismatch (stored %08x, computed %08x)",
			    le32(t), ~x->crc);
	if (le32(t + 4) != (uint32_t)x->mtotal)
		return fail(&x->rep, -EINVAL, "gzip length mismatch");
	/* Another member may follow (concatenated gzip files); other trailing bytes are ignored,
	 * as gzip(1) does. */
	long n = in_peek(x, 2);
	if (n < 0)
		return (int)n;
	x->state = n >= 2 && x->ibuf[0] == 0x1f && x->ibuf[1] == 0x8b ? ST_MEMBER : ST_END;
	return 0;
}

static inline void put(struct xctx *x, uint8_t *out, size_t *o, uint8_t b)
{
	x->win[x->mtotal++ & WMASK] = b;
	x->crc = crc_byte(x->crctab, x->crc, b);
	out[(*o)++] = b;
}

/* Decompresses up to n bytes; fewer only at the end of the gzip stream.  A resumable state
 * machine: a pending back-reference copy or stored block continues on the next call. */
static long gz_read(struct xctx *x, uint8_t *out, size_t n)
{
	size_t o = 0;
	uint32_t v;
	int rc = 0, c;

	while (o < n && rc == 0) {
		if (x->copy_len) {
			x->copy_len--;
			put(x, out, &o, x->win[(x->mtotal - x->copy_dist) & WMASK]);
			continue;
		}
		switch (x->state) {
		case ST_END:
			return (long)o;
		case ST_MEMBER:
			rc = gz_header(x);
			break;
		case ST_BLOCK:
			rc = x->last ? gz_trailer(x) : block_header(x);
			break;
		case ST_STORED:
			if (!x->stored) {
				x->state = ST_BLOCK;
			} else if ((c = in_byte(x)) < 0) {
				rc = truncated(x);
			} else {
				x->stored--;
				put(x, out, &o, (uint8_t)c);
			}
			break;
		default: { /* ST_CODES */
			int sym = decode(x, x->lcode), d;
			if (sym < 0)
				return sym;
			if (sym < 256) {
				put(x, out, &o, (uint8_t)sym);
				break;
			}
			if (sym == 256) {
				x->state = ST_BLOCK;
				break;
			}
			if ((sym -= 257) >= 29)
				return corrupt(x, "invalid length symbol");
			if ((rc = bits(x, len_extra[sym], &v)))
				break;
			x->copy_len = len_base[sym] + v;
			if ((d = decode(x, x->dcode)) < 0)
				return d;
			if (d >= 30)
				return corrupt(x, "invalid distance symbol");
			if ((rc = bits(x, dist_extra[d], &v)))
				break;
			x->copy_dist = dist_base[d] + v;
			if (x->copy_dist > x->mtotal)
				return corrupt(x, "distance too far back");
		}
		}
	}
	return rc ? rc : (long)o;
}

/* ---------------------------------------------------------------------- tar extraction */

/* Reads up to n bytes of the tar stream; fewer only at its end. */
static long src_read(struct xctx *x, uint8_t *buf, size_t n)
{
	size_t o = 0;

	if (x->gz)
		return gz_read(x, buf, n);
	while (o < n) {
		if (x->ipos == x->ilen) {
			long r = in_fill(x);
			if (r <= 0) {
				if (r < 0)
					return r;
				break;
			}
		}
		size_t k = x->ilen - x->ipos < n - o ? x->ilen - x->ipos : n - o;
		memcpy(buf + o, x->ibuf + x->ipos, k);
		x->ipos += k;
		o += k;
	}
	return (long)o;
}

static int src_exact(struct xctx *x, uint8_t *buf, size_t n)
{
	long r = src_read(x, buf, n);

	if (r < 0)
		return (int)r;
	return (size_t)r < n ? fail(&x->rep, -EINVAL, "unexpected end of archive") : 0;
}

static int src_skip(struct xctx *x, uint64_t n)
{
	while (n) {
		size_t k = n < IOSZ ? (size_t)n : IOSZ;
		int rc = src_exact(x, x->dbuf, k);
		if (rc)
			return rc;
		n -= k;
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
		for (v = f[0] & 0x3f, i = 1; i < n; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
	} else {
		while (i < n && f[i] == ' ')
			i++;
		for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
			if (v >> 60)
				return -1;
			v = v << 3 | (uint64_t)(f[i] - '0');
		}
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
		u += c;
		s += (int8_t)c;
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
 * and size, ignores other keys. */
static int parse_pax(struct xctx *x, char *d, size_t n, struct meta *m)
{
	for (size_t i = 0, len; i < n; i += len) {
		size_t j = i;
		for (len = 0; j < n && d[j] >= '0' && d[j] <= '9' && len <= n; j++)
			len = len * 10 + (size_t)(d[j] - '0');
		if (j == i || j >= n || d[j] != ' ' || len > n - i || len < j - i + 3 || d[i + len - 1] != '\n')
			return fail(&x->rep, -EINVAL, "malformed pax header");
		char *key = d + j + 1, *end = d + i + len - 1, *eq = memchr(key, '=', (size_t)(end - key));
		if (!eq)
			return fail(&x->rep, -EINVAL, "malformed pax record");
		*eq = *end = 0;
		char *val = eq + 1, **slot = NULL;
		if (!strcmp(key, "path"))
			slot = &m->path;
		else if (!strcmp(key, "linkpath"))
			slot = &m->link;
		if (slot || !strcmp(key, "size")) {
			if (strlen(val) != (size_t)(end - val))
				return fail(&x->rep, -EINVAL, "NUL byte in pax %s", key);
		}
		if (slot) { /* an empty value cancels the keyword */
			free(*slot);
			*slot = *val ? strdup(val) : NULL;
			if (*val && !*slot)
				return fail(&x->rep, -ENOMEM, "out of memory");
		} else if (!strcmp(key, "size")) {
			uint64_t v = 0;
			for (char *p = val; *p; p++) {
				if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
					return fail(&x->rep, -EINVAL, "invalid pax size");
				v = v * 10 + (uint64_t)(*p - '0');
			}
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
	if (!*in)
		return fail(&x->rep, -EINVAL, "empty file name");
	if (*in == '/')
		return fail(&x->rep, -EPERM, "absolute file name refused");
	char *p = malloc(strlen(in) + 1), *w = p;
	if (!p)
		return fail(&x->rep, -ENOMEM, "out of memory");
	for (const char *s = in, *e; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, '/');
		size_t l = (size_t)(e - s);
		if (l == 2 && s[0] == '.' && s[1] == '.') {
			free(p);
			return fail(&x->rep, -EPERM, "'..' in file name refused");
		}
		if (l == 0 || (l == 1 && s[0] == '.'))
			continue;
		if (w != p)
			*w++ = '/';
		memcpy(w, s, l);
		w += l;
	}
	*w = 0;
	if (w == p) {
		free(p);
		return 1;
	}
	*out = p;
	return 0;
}

/* Opens (creating as needed) the directory holding the last component of path, never
 * following a symlink: each component is opened with O_NOFOLLOW|O_DIRECTORY. */
static int open_parent(struct xctx *x, char *path, int *dfd, char **leaf)
{
	int fd = x->dest;
	char *s = path, *slash;

	for (; (slash = strchr(s, '/')); s = slash + 1) {
		*slash = 0;
		int nfd = -1, e = 0;
		if (mkdirat(fd, s, 0755) < 0 && errno != EEXIST)
			e = errno;
		else if ((nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			e = errno;
		if (fd != x->dest)
			close(fd);
		if (nfd < 0) {
			if (e == ELOOP || e == ENOTDIR)
				return fail(&x->rep, -EPERM, "'%s' is a symlink or not a directory; "
					    "refusing to write through it", path);
			return fail(&x->rep, -e, "cannot create directory '%s': %s", path, strerror(e));
		}
		fd = nfd;
		*slash = '/';
	}
	*dfd = fd;
	*leaf = s;
	return 0;
}

/* Removes an existing non-directory so a later duplicate entry can replace it. */
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
	fd = openat(dfd, leaf, fl, 0600);
	if (fd < 0 && errno == EEXIST && unlink_old(dfd, leaf) == 0)
		fd = openat(dfd, leaf, fl, 0600);
	if (fd < 0) {
		int e = errno;
		return fail(&x->rep, -e, "cannot create file: %s", strerror(e));
	}
	if (fchmod(fd, (mode_t)((mode & 0755) | 0600)) < 0)
		rc = fail(&x->rep, -errno, "chmod failed: %s", strerror(errno));
	while (size && !rc) {
		size_t k = size < IOSZ ? (size_t)size : IOSZ;
		if (!(rc = src_exact(x, x->dbuf, k)) && (rc = write_all(fd, x->dbuf, k)))
			rc = fail(&x->rep, rc, "write error: %s", strerror(-rc));
		size -= k;
		x->written += k;
	}
	if (close(fd) < 0 && !rc)
		rc = fail(&x->rep, -errno, "write error: %s", strerror(errno));
	return rc;
}

static int make_dir(struct xctx *x, int dfd, const char *leaf, uint64_t mode)
{
	int fd, e;

	if (mkdirat(dfd, leaf, 0700) < 0 && errno != EEXIST) {
		e = errno;
		return fail(&x->rep, -e, "cannot create directory: %s", strerror(e));
	}
	if ((fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fail(&x->rep, -EEXIST, "exists and is not a directory");
	e = fchmod(fd, (mode_t)((mode & 0755) | 0700)) < 0 ? errno : 0;
	close(fd);
	return e ? fail(&x->rep, -e, "chmod failed: %s", strerror(e)) : 0;
}

/* Creates one entry.  Returns 1 when it consumed the entry's data, 0 when the caller must skip
 * it (entry ignored or data-less), or a negative errno. */
static int extract_entry(struct xctx *x, char type, const char *raw, const char *link,
			 uint64_t mode, uint64_t size)
{
	bool reg = type == '0' || type == '\0' || type == '7'; /* '7' (contiguous) reads as regular */
	bool dir = type == '5' || (reg && raw[0] && raw[strlen(raw) - 1] == '/'); /* old tars */
	char *path = NULL, *leaf = NULL;
	int dfd = -1, rc;

	if (!reg && !dir && type != '2')
		return 0; /* hard links, devices, FIFOs, unknown types: skipped */
	if ((rc = clean_path(x, raw, &path)))
		return rc > 0 ? 0 : rc;
	if (!(rc = open_parent(x, path, &dfd, &leaf))) {
		if (dir) {
			rc = make_dir(x, dfd, leaf, mode);
		} else if (type == '2') {
			if (symlinkat(link, dfd, leaf) < 0 &&
			    (errno != EEXIST || unlink_old(dfd, leaf) < 0 || symlinkat(link, dfd, leaf) < 0))
				rc = fail(&x->rep, -errno, "cannot create symlink: %s", strerror(errno));
		} else if (!(rc = make_file(x, dfd, leaf, mode, size))) {
			rc = 1;
		}
		if (dfd != x->dest)
			close(dfd);
	}
	free(path);
	return rc;
}

static int one_entry(struct xctx *x, const uint8_t *h, struct meta *m)
{
	char type = (char)h[156], name[257], link[101], *d;
	const char *nm = name;
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
		if (rc || type == 'x') {
			rc = rc ? rc : parse_pax(x, d, size, m);
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
	if (m->path || m->lname) {
		nm = m->path ? m->path : m->lname;
	} else { /* POSIX ustar (magic "ustar\0") may split the name into prefix "/" name */
		size_t pl = 0, nl = strnlen((const char *)h, 100);
		if (!memcmp(h + 257, "ustar", 6) && h[345]) {
			pl = strnlen((const char *)h + 345, 155);
			memcpy(name, h + 345, pl);
			name[pl++] = '/';
		}
		memcpy(name + pl, h, nl);
		name[pl + nl] = 0;
	}
	memcpy(link, h + 157, 100);
	link[100] = 0;
	x->rep.entry = nm;
	rc = extract_entry(x, type, nm, m->link ? m->link : m->llink ? m->llink : link, mode, size);
	if (rc == 0)
		rc = src_skip(x, size);
	else if (rc == 1)
		rc = 0;
	if (rc == 0)
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

	for (;;) {
		r = src_read(x, h, 512);
		if (r >= 0 && r < 512)
			r = fail(&x->rep, -EINVAL, "unexpected end of archive (no end-of-archive marker)");
		if (r < 0) {
			rc = (int)r;
			break;
		}
		if (all_zero(h)) { /* end: a second zero block, EOF, or (like GNU tar) a lone one */
			if ((r = src_read(x, h, 512)) < 0 || (r > 0 && r < 512))
				rc = r < 0 ? (int)r : fail(&x->rep, -EINVAL, "truncated end-of-archive marker");
			break;
		}
		if (++x->entries > MAX_ENTRIES) {
			rc = fail(&x->rep, -EFBIG, "more than %lu archive entries", MAX_ENTRIES);
			break;
		}
		if ((rc = one_entry(x, h, &m)))
			break;
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
	int rc;

	if (err && errlen)
		*err = 0;
	if (!x) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->rep.err = err;
	x->rep.errlen = errlen;
	x->in = in_fd;
	x->dest = dest_dirfd;
	crc_table(x->crctab);
	/* fixed codes (RFC 1951 3.2.6); all 32 five-bit distance codes, 30 and 31 rejected later */
	memset(fl, 8, 144), memset(fl + 144, 9, 112), memset(fl + 256, 7, 24), memset(fl + 280, 8, 8);
	memset(fl + 288, 5, 32);
	build(&x->fixlit, fl, 288, false);
	build(&x->fixdist, fl + 288, 32, false);
	long n = in_peek(x, 2);
	if (n < 0)
		rc = (int)n;
	else if (n == 0)
		rc = fail(&x->rep, -EINVAL, "empty archive");
	else {
		x->gz = n >= 2 && x->ibuf[0] == 0x1f && x->ibuf[1] == 0x8b;
		rc = extract_all(x);
	}
	free(x);
	return rc;
}

/* ------------------------------------------------------------------------ deflate side */

#define BUFSZ (4 * WSIZE) /* LZ77 buffer: history (>= 32 KiB) plus new input */
#define HBITS 15
#define LOOKAHEAD 262     /* longest match (258), the lazy step and the 3 hashed bytes */
#define MAX_CHAIN 128     /* match-search effort, similar to gzip -6 */
#define LAZY_LEN 16
#define NICE_LEN 128

struct htab { /* Huffman code for encoding: bit-reversed codes and their lengths */
	uint16_t code[288];
	uint8_t len[288];
};

struct zctx {
	struct report rep;
	int out, werr;               /* werr: first write error (sticky) */
	size_t fill, pos, blk, ins;  /* buf: data end, next to encode, block start, next to hash */
	size_t nsyms, olen;
	uint64_t bits, extra;        /* pending output bits; extra bits of the pending block */
	unsigned nbits;
	uint32_t crc, isize;
	uint32_t lfreq[286], dfreq[30];
	struct htab fixl, fixd;
	uint32_t crctab[256];
	int32_t head[1 << HBITS], prev[WSIZE]; /* hash chains: buffer positions, -1 = none */
	uint32_t syms[BUFSZ];        /* pending block: literal << 16, or length << 16 | distance */
	uint8_t buf[BUFSZ], obuf[IOSZ], fbuf[IOSZ];
};

static void out_flush(struct zctx *z)
{
	int rc = write_all(z->out, z->obuf, z->olen);
	if (rc && !z->werr)
		z->werr = rc;
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
 * (halved, keeping them non-zero) and it is built again. */
static void huff_lengths(const uint32_t *freq, int n, unsigned maxbits, uint8_t *len)
{
	uint32_t f[288];
	uint64_t w[576];
	int16_t leaf[288], parent[576];
	uint8_t depth[576];

	memcpy(f, freq, (size_t)n * sizeof *f);
	for (;;) {
		int nl = 0, li = 0, nn, qi, k;
		unsigned maxd = 0;
		for (int i = 0; i < n; i++) { /* stable insertion sort of the used symbols */
			len[i] = 0;
			if (!f[i])
				continue;
			for (k = nl++; k > 0 && f[leaf[k - 1]] > f[i]; k--)
				leaf[k] = leaf[k - 1];
			leaf[k] = (int16_t)i;
		}
		if (nl < 2) { /* one code alone would be incomplete: add a partner */
			f[0] |= 1, f[1] |= 1;
			continue;
		}
		for (int i = 0; i < nl; i++)
			w[i] = f[leaf[i]];
		/* nodes 0..nl-1 are leaves, nl.. internal nodes created in non-decreasing weight */
		for (nn = qi = nl; nn < 2 * nl - 1; nn++) {
			int a[2];
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

/* Emits the pending symbols as one block: stored, fixed or dynamic Huffman, whichever is
 * smallest. */
static void flush_block(struct zctx *z, bool final)
{
	struct htab dl, dd, cl;
	uint8_t all[286 + 30], rs[286 + 30], rx[286 + 30];
	uint32_t cfreq[19] = {0};
	int hlit = 286, hdist = 30, hclen = 19, nr = 0;
	size_t n = z->pos - z->blk;

	z->lfreq[256] = 1;
	huff_lengths(z->lfreq, 286, 15, dl.len);
	huff_lengths(z->dfreq, 30, 15, dd.len);
	while (hlit > 257 && !dl.len[hlit - 1])
		hlit--;
	while (hdist > 1 && !dd.len[hdist - 1])
		hdist--;
	/* Run-length encode the code lengths: 16 repeats the previous length 3..6 times, 17 and
	 * 18 give 3..10 and 11..138 zeros. */
	memcpy(all, dl.len, (size_t)hlit);
	memcpy(all + hlit, dd.len, (size_t)hdist);
	for (int i = 0, run; i < hlit + hdist; i += run) {
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
			run = 1;
			rs[nr] = all[i], rx[nr++] = 0;
		}
	}
	for (int i = 0; i < nr; i++)
		cfreq[rs[i]]++;
	huff_lengths(cfreq, 19, 7, cl.len);
	while (hclen > 4 && !cl.len[cl_order[hclen - 1]])
		hclen--;
	make_codes(&dl, 286), make_codes(&dd, 30), make_codes(&cl, 19);

	/* sizes in bits; a stored block also costs up to 7 alignment bits */
	uint64_t fixed = 3 + z->extra, dyn = 3 + 14 + 3 * (uint64_t)hclen + z->extra;
	uint64_t stored = 8 * (uint64_t)n + (n / 65535 + 1) * (3 + 7 + 32);
	for (int i = 0; i < 286; i++)
		fixed += (uint64_t)z->lfreq[i] * z->fixl.len[i], dyn += (uint64_t)z->lfreq[i] * dl.len[i];
	for (int i = 0; i < 30; i++)
		fixed += (uint64_t)z->dfreq[i] * 5, dyn += (uint64_t)z->dfreq[i] * dd.len[i];
	for (int i = 0; i < nr; i++)
		dyn += cl.len[rs[i]] + (rs[i] == 16 ? 2u : rs[i] == 17 ? 3u : rs[i] == 18 ? 7u : 0u);

	if (stored < fixed && stored < dyn) {
		size_t off = z->blk;
		do { /* stored blocks hold at most 65535 bytes each */
			size_t k = n > 65535 ? 65535 : n;
			n -= k;
			put_bits(z, final && !n, 3);
			if (z->nbits)
				put_bits(z, 0, 8 - z->nbits);
			put_bits(z, (uint32_t)k, 16);
			put_bits(z, (uint32_t)~k & 0xffff, 16);
			for (; k; k--)
				out_byte(z, z->buf[off++]);
		} while (n);
	} else {
		const struct htab *lt = &z->fixl, *dt = &z->fixd;
		if (dyn < fixed) {
			put_bits(z, final | 2u << 1, 3);
			put_bits(z, (uint32_t)(hlit - 257), 5);
			put_bits(z, (uint32_t)(hdist - 1), 5);
			put_bits(z, (uint32_t)(hclen - 4), 4);
			for (int i = 0; i < hclen; i++)
				put_bits(z, cl.len[cl_order[i]], 3);
			for (int i = 0; i < nr; i++) {
				put_bits(z, cl.code[rs[i]], cl.len[rs[i]]);
				if (rs[i] >= 16)
					put_bits(z, rx[i], rs[i] == 16 ? 2 : rs[i] == 17 ? 3 : 7);
			}
			lt = &dl, dt = &dd;
		} else {
			put_bits(z, final | 1u << 1, 3);
		}
		for (size_t i = 0; i < z->nsyms; i++) {
			unsigned v = z->syms[i] >> 16, dist = z->syms[i] & 0xffff;
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
	z->nsyms = 0;
	z->extra = 0;
	z->blk = z->pos;
}

static unsigned hash3(const uint8_t *p)
{
	return ((unsigned)p[0] << 10 ^ (unsigned)p[1] << 5 ^ p[2]) & ((1u << HBITS) - 1);
}

/* Longest earlier match for position p (lengths < 3 mean none).  Inserts every position up
 * to p into the hash chains first, p itself after the search. */
static unsigned longest(struct zctx *z, size_t p, unsigned *dist)
{
	unsigned best = 2, maxlen = z->fill - p < 258 ? (unsigned)(z->fill - p) : 258;
	int chain = MAX_CHAIN;

	if (maxlen < 3)
		return 0;
	for (; z->ins < p; z->ins++) {
		unsigned h = hash3(z->buf + z->ins);
		z->prev[z->ins & WMASK] = z->head[h];
		z->head[h] = (int32_t)z->ins;
	}
	unsigned h = hash3(z->buf + p);
	const uint8_t *b = z->buf + p;
	/* chains hold strictly decreasing positions; stop beyond the window */
	for (int32_t c = z->head[h]; c >= 0 && p - (size_t)c <= WSIZE && chain--; c = z->prev[c & WMASK]) {
		const uint8_t *a = z->buf + c;
		if (a[best] != b[best] || a[0] != b[0] || a[1] != b[1])
			continue;
		unsigned l = 2;
		while (l < maxlen && a[l] == b[l])
			l++;
		if (l > best) {
			best = l;
			*dist = (unsigned)(p - (size_t)c);
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
	size_t limit = flush ? z->fill : z->fill - LOOKAHEAD;

	while (z->pos < limit) {
		size_t p = z->pos;
		unsigned d = 0, d2 = 0, len = longest(z, p, &d), len2;
		while (len >= 3 && len < LAZY_LEN && p + 1 < limit && (len2 = longest(z, p + 1, &d2)) > len) {
			rec_lit(z, z->buf[p++]);
			len = len2, d = d2;
		}
		if (len >= 3) {
			int lc = len_code(len), dc = dist_code(d);
			z->syms[z->nsyms++] = (uint32_t)len << 16 | d;
			z->lfreq[257 + lc]++;
			z->dfreq[dc]++;
			z->extra += len_extra[lc] + dist_extra[dc];
			p += len;
		} else {
			rec_lit(z, z->buf[p++]);
		}
		z->pos = p;
	}
}

/* Appends uncompressed bytes; compresses a block and slides the buffer whenever it fills.
 * The slide is a multiple of WSIZE so that prev[] slots (indexed by position & WMASK) stay. */
static void z_feed(struct zctx *z, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		z->crc = crc_byte(z->crctab, z->crc, p[i]);
	z->isize += (uint32_t)n;
	while (n) {
		size_t k = BUFSZ - z->fill < n ? BUFSZ - z->fill : n;
		memcpy(z->buf + z->fill, p, k);
		z->fill += k, p += k, n -= k;
		if (z->fill < BUFSZ)
			break;
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

/* ------------------------------------------------------------------------- tar writing */

/* Octal with a trailing NUL when the value fits, else GNU base-256. */
static void tw_num(uint8_t *f, size_t n, uint64_t v)
{
	if (v >> (3 * (n - 1)) == 0) {
		f[n - 1] = 0;
		for (size_t i = n - 1; i-- > 0; v >>= 3)
			f[i] = (uint8_t)('0' + (v & 7));
	} else {
		f[0] = 0x80;
		for (size_t i = n - 1; i > 0; i--, v >>= 8)
			f[i] = (uint8_t)v;
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
	memset(h + 148, ' ', 8); /* checksum counts as spaces while summing */
	h[156] = (uint8_t)type;
	if (link)
		memcpy(h + 157, link, strnlen(link, 100));
	memcpy(h + 257, "ustar  ", 8); /* GNU magic and version */
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	tw_num(h + 148, 7, sum); /* six digits, NUL, and the space already there */
	z_feed(z, h, 512);
}

/* One entry; names or link targets over 100 bytes are preceded by GNU 'L' / 'K' entries. */
static void tw_entry(struct zctx *z, const char *name, char type, const struct stat *st,
		     uint64_t size, const char *link)
{
	const char *longs[2] = {name, link};

	for (int k = 0; k < 2; k++) {
		size_t n = longs[k] ? strlen(longs[k]) + 1 : 0;
		if (n <= 101)
			continue;
		tw_header(z, "././@LongLink", k ? 'K' : 'L', 0, n, 0, NULL);
		z_feed(z, (const uint8_t *)longs[k], n);
		tw_pad(z, n);
	}
	tw_header(z, name, type, st->st_mode & 07777, size, st->st_mtime > 0 ? (uint64_t)st->st_mtime : 0, link);
}

static int tw_file(struct zctx *z, int dfd, const char *name, const char *path)
{
	struct stat st;
	int rc = 0, e, fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return fail(&z->rep, -e, "cannot open: %s", strerror(e));
	}
	if (S_ISREG(st.st_mode)) {
		tw_entry(z, path, '0', &st, (uint64_t)st.st_size, NULL);
		for (uint64_t left = (uint64_t)st.st_size; left && !rc;) {
			ssize_t r = read(fd, z->fbuf, left < IOSZ ? (size_t)left : IOSZ);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				rc = fail(&z->rep, -errno, "read error: %s", strerror(errno));
			else if (r == 0)
				rc = fail(&z->rep, -EIO, "file shrank while being archived");
			else
				z_feed(z, z->fbuf, (size_t)r), left -= (uint64_t)r;
		}
		tw_pad(z, (uint64_t)st.st_size);
	}
	close(fd);
	return rc;
}

static int tw_link(struct zctx *z, int dfd, const char *name, const char *path, const struct stat *st)
{
	char *t = NULL, *nt;
	ssize_t r;

	for (size_t cap = 256;; cap *= 2) {
		if (!(nt = realloc(t, cap))) {
			free(t);
			return fail(&z->rep, -ENOMEM, "out of memory");
		}
		t = nt;
		if ((r = readlinkat(dfd, name, t, cap)) < 0) {
			int e = errno;
			free(t);
			return fail(&z->rep, -e, "cannot read symlink: %s", strerror(e));
		}
		if ((size_t)r < cap)
			break;
	}
	t[r] = 0;
	tw_entry(z, path, '2', st, 0, t);
	free(t);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int tw_dir(struct zctx *z, int dfd, const char *prefix);

static int tw_one(struct zctx *z, int dfd, const char *prefix, const char *name)
{
	size_t pl = strlen(prefix), nl = strlen(name);
	char *path = malloc(pl + nl + 2);
	struct stat st;
	int rc = 0, sub;

	if (!path)
		return fail(&z->rep, -ENOMEM, "out of memory");
	memcpy(path, prefix, pl);
	memcpy(path + pl, name, nl + 1);
	z->rep.entry = path;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = fail(&z->rep, -errno, "cannot stat: %s", strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		rc = tw_file(z, dfd, name, path);
	} else if (S_ISLNK(st.st_mode)) {
		rc = tw_link(z, dfd, name, path, &st);
	} else if (S_ISDIR(st.st_mode)) {
		memcpy(path + pl + nl, "/", 2); /* directories end with "/" */
		tw_entry(z, path, '5', &st, 0, NULL);
		if ((sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = fail(&z->rep, -errno, "cannot open directory: %s", strerror(errno));
		} else {
			rc = tw_dir(z, sub, path);
			close(sub);
		}
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
	int rc = 0, fd = dup(dfd), e;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return fail(&z->rep, -e, "cannot read directory '%s': %s", prefix, strerror(e));
	}
	rewinddir(d); /* the dup shares its offset with dfd */
	for (struct dirent *de;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				rc = fail(&z->rep, -errno, "cannot read directory '%s': %s", prefix, strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			nn = realloc(names, (cap ? 2 * cap : 64) * sizeof *names);
			if (!nn) {
				rc = fail(&z->rep, -ENOMEM, "out of memory");
				break;
			}
			names = nn;
			cap = cap ? 2 * cap : 64;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = fail(&z->rep, -ENOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc && z->werr)
			rc = fail(&z->rep, z->werr, "write error: %s", strerror(-z->werr));
		if (!rc)
			rc = tw_one(z, dfd, prefix, names[i]);
		free(names[i]);
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
	if (!z) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	z->rep.err = err;
	z->rep.errlen = errlen;
	z->out = out_fd;
	z->crc = 0xffffffffu;
	crc_table(z->crctab);
	memset(z->head, 0xff, sizeof z->head);
	memset(z->prev, 0xff, sizeof z->prev);
	memset(z->fixl.len, 8, 144), memset(z->fixl.len + 144, 9, 112);
	memset(z->fixl.len + 256, 7, 24), memset(z->fixl.len + 280, 8, 8);
	memset(z->fixd.len, 5, 30);
	make_codes(&z->fixl, 288);
	make_codes(&z->fixd, 30);
	for (int i = 0; i < 10; i++)
		out_byte(z, gzip_header[i]);
	if (!(rc = tw_dir(z, src_dirfd, ""))) {
		z_feed(z, end, sizeof end); /* two zero blocks end the archive */
		lz_run(z, true);
		flush_block(z, true);
		if (z->nbits)
			put_bits(z, 0, 8 - z->nbits);
		uint32_t t[2] = {~z->crc, z->isize};
		for (int i = 0; i < 8; i++)
			out_byte(z, (uint8_t)(t[i / 4] >> (8 * (i % 4))));
		out_flush(z);
		if (z->werr)
			rc = fail(&z->rep, z->werr, "write error: %s", strerror(-z->werr));
	}
	free(z);
	return rc;
}
