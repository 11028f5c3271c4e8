/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "model/umad.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLASS "sys/class/infiniband"

/* sys_read_string: one read of at most max bytes, keep max-1, cut at the last newline. */
static int read_string(struct rd_umad *u, const char *dir, const char *file, char *buf, size_t max)
{
	struct rd_text t;
	char stack[256];
	size_t dn = strlen(dir), fn = strlen(file);
	char *path = dn + fn + 2 <= sizeof stack ? stack : rd_xmalloc(dn + fn + 2);
	memcpy(path, dir, dn);
	path[dn] = '/';
	memcpy(path + dn + 1, file, fn + 1);
	int r = rd_read_prefix(u->src, path, max, &t);
	if (path != stack)
		free(path);
	if (r < 0) {
		/* reading a directory opens fine and then fails in read() */
		u->last_err = t.err == RD_ENOTREG ? EISDIR : t.err;
		return -u->last_err;
	}
	size_t n = t.len < max ? t.len : max - 1;
	memcpy(buf, t.data, n);
	buf[n] = '\0';
	char *nl = strrchr(buf, '\n');
	if (nl)
		*nl = '\0';
	rd_text_free(&t);
	return 0;
}

/* sys_read_uint into *v; the text read is left in buf (32 bytes) */
static int read_uint_text(struct rd_umad *u, const char *dir, const char *file, unsigned *v, char *buf)
{
	int r = read_string(u, dir, file, buf, 32);
	if (r < 0)
		return r;
	errno = 0;
	*v = (unsigned)strtoul(buf, NULL, 0);
	if (errno)
		u->last_err = errno;
	return 0;
}

static int read_uint(struct rd_umad *u, const char *dir, const char *file, unsigned *v)
{
	char buf[32];
	return read_uint_text(u, dir, file, v, buf);
}

/* strsep on ": \t\n", each token strtoul base 16 masked to 16 bits. */
static int split_words(struct rd_umad *u, char *buf, unsigned n, uint16_t *words)
{
	char *s = buf;
	for (unsigned i = 0; i < n; i++) {
		char *tok = strsep(&s, ": \t\n");
		if (!tok)
			return -EINVAL;
		errno = 0;
		words[i] = (uint16_t)(strtoul(tok, NULL, 16) & 0xffff);
		if (errno)
			u->last_err = errno;
	}
	return 0;
}

static int read_guid(struct rd_umad *u, const char *dir, const char *file, uint64_t *guid)
{
	char buf[32];
	uint16_t w[4];
	int r = read_string(u, dir, file, buf, sizeof buf);
	if (r < 0 || (r = split_words(u, buf, 4, w)) < 0)
		return r;
	*guid = ((uint64_t)w[0] << 48) | ((uint64_t)w[1] << 32) | ((uint64_t)w[2] << 16) | w[3];
	return 0;
}

static int read_gid_guid(struct rd_umad *u, const char *dir, const char *file, uint64_t *guid)
{
	char buf[64];
	uint16_t w[8];
	int r = read_string(u, dir, file, buf, sizeof buf);
	if (r < 0 || (r = split_words(u, buf, 8, w)) < 0)
		return r;
	*guid = ((uint64_t)w[4] << 48) | ((uint64_t)w[5] << 32) | ((uint64_t)w[6] << 16) | w[7];
	return 0;
}

static int list(struct rd_umad *u, const char *dir, struct rd_strv *names)
{
	int r = rd_list_dir(u->src, dir, names);
	if (r < 0)
		u->last_err = r == -RD_ENOTREG ? ENOTDIR : -r;
	return r;
}

int rd_umad_list(struct rd_umad *u, struct rd_strv *names)
{
	struct rd_strv all = {0};
	int r = list(u, CLASS, &all);
	if (r < 0) {
		rd_strv_free(&all);
		if (r == -ENOENT) {
			u->last_err = 0;
			return 0;
		}
		return r;
	}
	for (size_t i = 0; i < all.n; i++) {
		char *dir = rd_xasprintf(CLASS "/%s", all.v[i]);
		unsigned type;
		if (read_uint(u, dir, "node_type", &type) == 0 && type >= 1 && type <= 3)
			rd_strv_push(names, all.v[i]);
		free(dir);
	}
	rd_strv_free(&all);
	rd_strv_sort(names);
	u->last_err = 0;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int get_port(struct rd_umad *u, const struct rd_umad_ca *ca, const char *pdir, int portnum,
		    struct rd_umad_port *p)
{
	static const char *const uints[] = {"lid_mask_count", "sm_lid", "sm_sl", "lid",
					    "state", "phys_state", "rate", "cap_mask"};
	unsigned *dst[] = {&p->lmc, &p->sm_lid, &p->sm_sl, &p->base_lid,
			   &p->state, &p->phys_state, &p->rate, &p->capmask};
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < sizeof uints / sizeof uints[0]; i++) {
		char buf[32];
		if (read_uint_text(u, pdir, uints[i], dst[i], buf) < 0)
			return -EIO;
		if (dst[i] == &p->rate)
			memcpy(p->rate_text, buf, sizeof p->rate_text);
	}
	if (read_string(u, pdir, "link_layer", p->link_layer, sizeof p->link_layer) < 0)
		strcpy(p->link_layer, "IB");
	if (read_gid_guid(u, pdir, "gids/0", &p->port_guid) < 0)
		return -EIO;

	char *kdir = rd_xasprintf("%s/pkeys", pdir);
	struct rd_strv names = {0};
	size_t count = 0;
	if (list(u, kdir, &names) == 0)
		for (size_t i = 0; i < names.n; i++)
			count += all_digits(names.v[i]);
	int r = 0;
	if (count == 0) {
		rd_buf_printf(&u->warnings, "get_port: no pkeys found for %s:%d (at dir /%s)...\n", ca->name, portnum,
			      kdir);
		r = -EIO;
	}
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		unsigned v;
		if (all_digits(names.v[i]) && read_uint(u, kdir, names.v[i], &v) < 0)
			r = -EIO;
	}
	rd_strv_free(&names);
	free(kdir);
	if (r == 0)
		p->present = true;
	return r;
}

int rd_umad_get_ca(struct rd_umad *u, const char *name, struct rd_umad_ca *ca)
{
	memset(ca, 0, sizeof *ca);
	size_t nl = strlen(name);
	if (nl >= sizeof ca->name)
		nl = sizeof ca->name - 1;
	memcpy(ca->name, name, nl);
	ca->name[nl] = '\0';
	char *dir = rd_xasprintf(CLASS "/%s", ca->name);
	int r = read_uint(u, dir, "node_type", &ca->node_type);
	if (r == 0) {
		if (read_string(u, dir, "fw_ver", ca->fw_ver, sizeof ca->fw_ver) < 0)
			ca->fw_ver[0] = '\0';
		if (read_string(u, dir, "hw_rev", ca->hw_rev, sizeof ca->hw_rev) < 0)
			ca->hw_rev[0] = '\0';
		if (read_string(u, dir, "hca_type", ca->ca_type, sizeof ca->ca_type) < 0)
			ca->ca_type[0] = '\0';
		r = read_guid(u, dir, "node_guid", &ca->node_guid);
	}
	if (r == 0)
		r = read_guid(u, dir, "sys_image_guid", &ca->system_guid);
	struct rd_strv ports = {0};
	char *pdir = rd_xasprintf("%s/ports", dir);
	if (r == 0)
		r = list(u, pdir, &ports);
	for (size_t i = 0; r == 0 && i < ports.n; i++) {
		int num;
		if (strcmp(ports.v[i], "0") == 0) {
			num = 0;
		} else {
			num = atoi(ports.v[i]);
			if (num <= 0 || num >= RD_UMAD_MAX_PORTS) {
				r = -EIO;
				break;
			}
		}
		char *one = rd_xasprintf("%s/%d", pdir, num);
		if (get_port(u, ca, one, num, &ca->ports[num]) < 0)
			r = -EIO;
		free(one);
		if (num > ca->numports)
			ca->numports = num;
	}
	rd_strv_free(&ports);
	free(pdir);
	free(dir);
	return r;
}

static bool says_fdr10(const char *rate)
{
	const char *paren = strchr(rate, ')');
	return paren && paren - rate >= 5 && strncasecmp(paren - 5, "fdr10", 5) == 0;
}

bool rd_umad_rate_is_fdr10(struct rd_umad *u, const char *ca_name, int port)
{
	char buf[32];
	char *dir = rd_xasprintf(CLASS "/%s/ports/%d", ca_name, port);
	int r = read_string(u, dir, "rate", buf, sizeof buf);
	free(dir);
	return r == 0 && says_fdr10(buf);
}

bool rd_umad_port_is_fdr10(const struct rd_umad_port *p)
{
	return says_fdr10(p->rate_text);
}

/* ---- the ibstatus script's view ----------------------------------------------------------- */

const char *const rd_umad_status_files[RD_UMAD_STATUS_NFILES] = {
	"gids/0", "lid", "sm_lid", "state", "phys_state", "rate", "link_layer",
};

static char *status_dir(const char *dev)
{
	return dev ? rd_xasprintf(CLASS "/%s/ports", dev) : rd_xstrdup(CLASS);
}

bool rd_umad_status_dir(struct rd_umad *u, const char *dev)
{
	char *dir = status_dir(dev);
	struct stat st;
	bool r = rd_stat(u->src, dir, true, &st) == 0 && S_ISDIR(st.st_mode);
	free(dir);
	return r;
}

void rd_umad_status_glob(struct rd_umad *u, const char *dev, struct rd_strv *out)
{
	char *dir = status_dir(dev);
	struct rd_strv all = {0};
	rd_list_dir(u->src, dir, &all);
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i][0] != '.')
			rd_strv_push(out, all.v[i]);
	rd_strv_free(&all);
	free(dir);
	if (!out->n)
		rd_strv_push(out, "*");
}

int rd_umad_status_read(struct rd_umad *u, const char *dev, const char *port, const char *file, struct rd_text *t)
{
	memset(t, 0, sizeof *t);
	char *path = rd_xasprintf(CLASS "/%s/ports/%s/%s", dev, port, file);
	int r = 0;
	if (rd_exists(u->src, path)) {
		r = rd_read_file(u->src, path, RD_CAP_FILE, t) == 0 ? 1
		    : -(t->err == RD_ENOTREG ? EISDIR : t->err == RD_EPARSE ? EIO : t->err);
		if (r < 0)
			rd_text_free(t);
	}
	free(path);
	return r;
}
