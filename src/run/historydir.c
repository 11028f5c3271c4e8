/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The history directory: see historydir.h. */
#include "run/historydir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/state.h"
#include "run/statefile.h"
#include "source/atomic.h"
#include "util/util.h"

/* Decimal digits at *p with no leading zero (but "0"), at most 18: their value, p moved past. */
static bool digits(const char **p, long long *v)
{
	const char *s = *p;
	size_t n = 0;
	long long x = 0;
	while (s[n] >= '0' && s[n] <= '9') {
		if (n == 18)
			return false;
		x = x * 10 + (s[n] - '0');
		n++;
	}
	if (n == 0 || (n > 1 && s[0] == '0'))
		return false;
	*p = s + n;
	*v = x;
	return true;
}

bool rd_histdir_name(const char *name, long long *t)
{
	const char *p = name;
	bool tmp = *p == '.';
	long long v, pid, n;
	if (tmp)
		p++;
	if (!digits(&p, &v) || strncmp(p, ".json", 5) != 0)
		return false;
	p += 5;
	if (tmp && (strncmp(p, ".tmp-", 5) != 0 || !(p += 5, digits(&p, &pid)) || *p++ != '-' || !digits(&p, &n)))
		return false;
	if (*p)
		return false;
	*t = v;
	return true;
}

/* Removes the writer's files in hfd dated before `before`. */
static int prune(int hfd, const char *shown, long long before, size_t *pruned, char *err, size_t errlen)
{
	int fd = openat(hfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rd_set_err(err, errlen, "%s: cannot list it to remove old reports: %s", shown, rd_strerror(e));
		return -e;
	}
	int r = 0;
	size_t seen = 0;
	struct dirent *de;
	while (seen++ < RD_HISTDIR_SCAN_MAX && (de = readdir(d))) {
		long long t;
		struct stat sb;
		if (!rd_histdir_name(de->d_name, &t) || t >= before)
			continue;
		if (fstatat(hfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
			continue;
		if (unlinkat(hfd, de->d_name, 0) == 0) {
			(*pruned)++;
		} else if (errno != ENOENT && r == 0) {
			r = -errno;
			rd_set_err(err, errlen, "%s/%s: cannot remove this old report: %s", shown, de->d_name,
				   rd_strerror(-r));
		}
	}
	closedir(d);
	return r;
}

int rd_histdir_write(const char *dir, const char *host, long long t, long long days, void (*fill)(FILE *f, void *arg),
		     void *arg, size_t *pruned, char *err, size_t errlen)
{
	*pruned = 0;
	if (err && errlen)
		err[0] = '\0';
	char why[512] = "";
	int dfd = rd_dir_open_safe(dir, why, sizeof why);
	if (dfd == -ENOENT) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			rd_set_err(err, errlen, "%s: cannot make the history directory: %s", dir, rd_strerror(e));
			return -e;
		}
		dfd = rd_dir_open_safe(dir, why, sizeof why);
	}
	if (dfd < 0) {
		rd_set_err(err, errlen, "%s", why);
		return dfd;
	}
	char safe[RD_STATE_NAME_MAX * 4];
	rd_state_safe_name(host, safe, sizeof safe);
	char *hdir = rd_path_join(dir, safe);
	if (mkdirat(dfd, safe, 0755) < 0 && errno != EEXIST) {
		int e = errno;
		rd_set_err(err, errlen, "%s: cannot make the host's directory: %s", hdir, rd_strerror(e));
		free(hdir);
		close(dfd);
		return -e;
	}
	int hfd = openat(dfd, safe, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = hfd < 0 ? errno : 0;
	close(dfd);
	struct stat sb;
	char bad[128];
	if (hfd < 0) {
		rd_set_err(err, errlen, "%s: %s", hdir,
			   e == ELOOP || e == ENOTDIR ? "a symbolic link or not a directory: refusing to write through it"
						      : rd_strerror(e));
	} else if (fstat(hfd, &sb) < 0) {
		e = errno;
		rd_set_err(err, errlen, "%s: %s", hdir, rd_strerror(e));
	} else if (rd_statefile_unsafe(&sb, bad, sizeof bad)) {
		e = EPERM;
		rd_set_err(err, errlen,
			   "%s is refused: %s (another user could plant or remove reports; chown root %s and chmod go-w it)",
			   hdir, bad, hdir);
	}
	if (e) {
		if (hfd >= 0)
			close(hfd);
		free(hdir);
		return -e;
	}
	char perr[512] = "";
	int pr = prune(hfd, hdir, days > 0 && t > days * 86400 ? t - days * 86400 : 0, pruned, perr, sizeof perr);
	char name[40];
	snprintf(name, sizeof name, "%lld.json", t);
	bool made;
	int r = rd_file_replace(hfd, name, fill, arg, &made);
	if (r < 0) {
		rd_set_err(err, errlen, "%s/%s: %s%s", hdir, name, made ? "" : "cannot create a file in its directory: ",
			   rd_strerror(-r));
	} else if (pr < 0) {
		rd_set_err(err, errlen, "%s", perr);
		r = pr;
	}
	close(hfd);
	free(hdir);
	return r;
}
