/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Packages: ofed_info -s and dpkg's status file (parse.h). */
#include "model/parse-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rd_parse_ofed_info(const char *text, struct rd_ofed_info *out)
{
	memset(out, 0, sizeof *out);
	if (!text)
		return -RD_EPARSE;
	const char *p = skip_blanks(text);
	static const struct {
		const char *prefix, *flavor;
	} forms[] = {{"MLNX_OFED_LINUX-", "MLNX_OFED"}, {"OFED-internal-", "OFED-internal"}};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t pl = strlen(forms[i].prefix);
		if (strncmp(p, forms[i].prefix, pl) != 0)
			continue;
		const char *v = p + pl;
		size_t n = strcspn(v, ": \t\n");
		if (n == 0 || n >= sizeof out->version)
			return -RD_EPARSE;
		for (size_t k = 0; k < n; k++)
			if (!isalnum((unsigned char)v[k]) && v[k] != '.' && v[k] != '-' && v[k] != '_')
				return -RD_EPARSE;
		strcpy(out->flavor, forms[i].flavor);
		memcpy(out->version, v, n);
		out->version[n] = '\0';
		return 0;
	}
	return -RD_EPARSE;
}

int rd_dpkg_package(const char *status_file, const char *package, char *version, size_t vlen)
{
	if (version && vlen)
		version[0] = '\0';
	if (!status_file)
		return -RD_EPARSE;
	size_t plen = strlen(package);
	for (const char *st = status_file; st && *st;) {
		/* one stanza: up to a blank line */
		const char *end = strstr(st, "\n\n");
		const char *stop = end ? end + 1 : st + strlen(st);
		bool match = false, named = false, installed = false;
		const char *ver = NULL;
		size_t verlen = 0;
		for (const char *line = st; line < stop;) {
			const char *nl = memchr(line, '\n', (size_t)(stop - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(stop - line);
			if (len > 9 && strncmp(line, "Package: ", 9) == 0 && !named) { /* the first Package: names the stanza */
				named = true;
				match = len == 9 + plen && strncmp(line + 9, package, plen) == 0;
			} else if (len > 9 && strncmp(line, "Package: ", 9) == 0)
				;
			else if (len > 8 && strncmp(line, "Status: ", 8) == 0)
				installed = len >= 8 + 20 && strncmp(line + len - 20, "install ok installed", 20) == 0;
			else if (len > 9 && strncmp(line, "Version: ", 9) == 0) {
				ver = line + 9;
				verlen = len - 9;
			}
			line = nl ? nl + 1 : stop;
		}
		if (match) {
			if (installed && ver && version && vlen) {
				size_t n = verlen < vlen - 1 ? verlen : vlen - 1;
				memcpy(version, ver, n);
				version[n] = '\0';
			}
			return installed ? 1 : 0;
		}
		st = end ? end + 2 : NULL;
	}
	return 0;
}

int rd_dpkg_packages(const char *status_file, const char *const *names, size_t n, int *found, char *versions,
		     size_t vlen)
{
	for (size_t i = 0; i < n; i++) {
		/* -1: not met yet (the first stanza of a name decides, as in rd_dpkg_package) */
		found[i] = status_file ? -1 : 0;
		if (vlen)
			versions[i * vlen] = '\0';
	}
	if (!status_file)
		return -RD_EPARSE;
	size_t left = n;
	for (const char *st = status_file; st && *st && left;) {
		const char *end = strstr(st, "\n\n");
		const char *stop = end ? end + 1 : st + strlen(st);
		const char *pkg = NULL, *ver = NULL;
		size_t pkglen = 0, verlen = 0;
		bool installed = false;
		for (const char *line = st; line < stop;) {
			const char *nl = memchr(line, '\n', (size_t)(stop - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(stop - line);
			if (len > 9 && strncmp(line, "Package: ", 9) == 0 && !pkg) {
				pkg = line + 9;
				pkglen = len - 9;
			} else if (len > 8 && strncmp(line, "Status: ", 8) == 0)
				installed = len >= 8 + 20 && strncmp(line + len - 20, "install ok installed", 20) == 0;
			else if (len > 9 && strncmp(line, "Version: ", 9) == 0) {
				ver = line + 9;
				verlen = len - 9;
			}
			line = nl ? nl + 1 : stop;
		}
		for (size_t i = 0; pkg && i < n; i++) {
			if (found[i] >= 0 || strlen(names[i]) != pkglen || strncmp(pkg, names[i], pkglen) != 0)
				continue;
			found[i] = installed ? 1 : 0;
			left--;
			if (installed && ver && vlen) {
				size_t c = verlen < vlen - 1 ? verlen : vlen - 1;
				memcpy(versions + i * vlen, ver, c);
				versions[i * vlen + c] = '\0';
			}
		}
		st = end ? end + 2 : NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (found[i] < 0)
			found[i] = 0;
	return 0;
}
