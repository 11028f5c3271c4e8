/* `rdma-doctor snapshot -o DIR|FILE.tar.gz`: copy what the checks read into a directory laid out
 * like the host's root (sysfs links kept, device nodes as empty files, read errors and command
 * outputs recorded), so that `--root` on it gives the same answers as on the host. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/host.h"
#include "model/policy.h"
#include "render/out.h"
#include "source/archive.h"

#define MAX_DEPTH 12

struct snap {
	struct rd_source *src;
	int out;                 /* output directory fd */
	struct rd_buf errors;    /* rdma-doctor/read-errors */
	struct rd_strv done;     /* canonical trees already copied */
	unsigned files, links, failed;
	bool counters; /* --counters: also the port counters (each read can be a firmware command) */
};

/* What to copy.  TREE: everything below; SHALLOW: the files (and links) directly inside, plus
 * the listed links' targets (not recursively); FILE: one file; NAMES: names only, as empty files. */
enum kind { FILE1, TREE, SHALLOW, NAMES };
static const struct {
	const char *path;
	enum kind kind;
} plan[] = {
	{"proc/modules", FILE1},
	{"proc/sys/kernel/osrelease", FILE1},
	{"proc/sys/kernel/hostname", FILE1},
	{"proc/sys/kernel/dmesg_restrict", FILE1}, /* kernel.log: why dmesg gave nothing */
	{"proc/version", FILE1},
	{"proc/cmdline", FILE1},
	{"sys/class/infiniband", SHALLOW},
	{"sys/class/infiniband_verbs", SHALLOW},
	{"sys/class/infiniband_mad", SHALLOW},
	{"sys/class/misc/rdma_cm", SHALLOW},
	{"sys/class/net", SHALLOW},
	{"sys/kernel/mm/memory_peers", TREE},
	{"dev/infiniband", NAMES},
	{"etc/hostname", FILE1},
	{"etc/os-release", FILE1},
	{"usr/lib/os-release", FILE1},
	{"etc/modules", FILE1},
	{"etc/modules-load.d", TREE},
	{"run/modules-load.d", TREE},
	{"usr/lib/modules-load.d", TREE},
	{"lib/modules-load.d", TREE},
	{"etc/modprobe.d", TREE},
	{"etc/rdma", TREE},
	{"etc/infiniband", TREE},
	{"etc/security/limits.conf", FILE1},
	{"etc/security/limits.d", TREE},
	{"etc/systemd/system.conf", FILE1},
	{"etc/systemd/system.conf.d", TREE},
	{"etc/systemd/system", TREE},
	{"lib/systemd/system/openibd.service", FILE1},
	{"usr/lib/systemd/system/openibd.service", FILE1},
	{"etc/init.d/openibd", FILE1},
	{"var/lib/dpkg/status", FILE1},
	{"etc/rdma-doctor.conf", FILE1},
	{"var/lib/dkms", TREE},
};

/* Subdirectories of a device tree not worth copying (and links never followed there). */
static bool skip_name(const struct snap *s, const char *name)
{
	if (!s->counters && (strcmp(name, "counters") == 0 || strcmp(name, "hw_counters") == 0))
		return true; /* reading them makes the firmware answer MADs: only when asked */
	return strcmp(name, "power") == 0 || strcmp(name, "subsystem") == 0 ||
	       strcmp(name, "uevent") == 0 || strcmp(name, "msi_irqs") == 0;
}

/* ---- output side ---------------------------------------------------------------------------- */

static int mkdirs(int dfd, const char *path)
{
	char *p = rd_xstrdup(path);
	int r = 0;
	for (char *s = p; r == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (*p && mkdirat(dfd, p, 0755) < 0 && errno != EEXIST)
			r = -errno;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

static int parent_dirs(int dfd, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return 0;
	char *dir = rd_xstrndup(path, (size_t)(slash - path));
	int r = mkdirs(dfd, dir);
	free(dir);
	return r;
}

static int write_out(struct snap *s, const char *path, const char *data, size_t len)
{
	if (parent_dirs(s->out, path) < 0)
		return -errno;
	int fd = openat(s->out, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		off += (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

static void record_error(struct snap *s, const char *canon, int err)
{
	const char *name = rd_errno_name(err);
	if (err == ENOENT)
		return; /* absent files are absent in the snapshot too */
	rd_buf_printf(&s->errors, "%s\t/%s\n", name ? name : "EIO", canon);
	s->failed++;
}

/* ---- source side ---------------------------------------------------------------------------- */

static void copy_any(struct snap *s, const char *path, int depth, bool recurse);

/* Recreates every symbolic link on the way to path, returns its canonical form (or NULL). */
static char *materialize(struct snap *s, const char *path)
{
	char *acc = rd_xstrdup("");
	const char *p = path;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		char *prefix = rd_xasprintf("%s%s%.*s", acc, *acc ? "/" : "", (int)n, p);
		struct stat st;
		if (rd_stat(s->src, prefix, false, &st) < 0) {
			free(prefix);
			free(acc);
			return NULL;
		}
		if (S_ISLNK(st.st_mode)) {
			char *target = NULL, *canon_parent = NULL;
			if (rd_read_link(s->src, prefix, &target) == 0 && rd_resolve(s->src, acc, &canon_parent) == 0) {
				char *linkpath = rd_xasprintf("%s%s%.*s", canon_parent, *canon_parent ? "/" : "", (int)n, p);
				if (parent_dirs(s->out, linkpath) == 0 && symlinkat(target, s->out, linkpath) == 0)
					s->links++;
				free(linkpath);
			}
			free(target);
			free(canon_parent);
		}
		free(acc);
		acc = prefix;
		p += n;
		while (*p == '/')
			p++;
	}
	char *canon = NULL;
	int r = rd_resolve(s->src, acc, &canon);
	free(acc);
	return r == 0 ? canon : NULL;
}

static void copy_file(struct snap *s, const char *canon)
{
	struct rd_text t;
	int r = rd_read_file(s->src, canon, RD_CAP_FILE, &t);
	if (r < 0) {
		record_error(s, canon, -r);
		return;
	}
	if (write_out(s, canon, t.data, t.len) == 0)
		s->files++;
	rd_text_free(&t);
}

/* Copies a directory's entries; links inside are recreated (not followed). */
static void copy_dir(struct snap *s, const char *canon, int depth, bool recurse)
{
	struct rd_strv names = {0};
	mkdirs(s->out, canon);
	if (rd_list_dir(s->src, canon, &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		if (skip_name(s, names.v[i]))
			continue;
		char *child = rd_path_join(canon, names.v[i]);
		struct stat st;
		if (rd_stat(s->src, child, false, &st) == 0) {
			if (S_ISLNK(st.st_mode)) {
				char *target = NULL;
				if (rd_read_link(s->src, child, &target) == 0 && symlinkat(target, s->out, child) == 0)
					s->links++;
				free(target);
			} else if (S_ISDIR(st.st_mode)) {
				if (recurse && depth < MAX_DEPTH)
					copy_dir(s, child, depth + 1, true);
			} else {
				copy_file(s, child);
			}
		}
		free(child);
	}
	rd_strv_free(&names);
}

static void copy_any(struct snap *s, const char *path, int depth, bool recurse)
{
	char *canon = materialize(s, path);
	if (!canon)
		return;
	if (recurse && rd_strv_contains(&s->done, canon)) {
		free(canon);
		return;
	}
	struct stat st;
	if (rd_stat(s->src, canon, true, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			if (recurse)
				rd_strv_push(&s->done, canon);
			copy_dir(s, canon, depth, recurse);
		} else {
			copy_file(s, canon);
		}
	}
	free(canon);
}

/* Names only: device nodes become empty regular files of the same name. */
static void copy_names(struct snap *s, const char *path)
{
	struct rd_strv names = {0};
	if (rd_list_dir(s->src, path, &names) < 0)
		return;
	mkdirs(s->out, path);
	for (size_t i = 0; i < names.n; i++) {
		char *child = rd_path_join(path, names.v[i]);
		write_out(s, child, "", 0);
		free(child);
	}
	rd_strv_free(&names);
}

/* A class directory: its links, and what each link points to. */
static void copy_class(struct snap *s, const char *path, bool deep)
{
	struct rd_strv names = {0};
	if (rd_list_dir(s->src, path, &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		char *child = rd_path_join(path, names.v[i]);
		copy_any(s, child, 0, deep);
		free(child);
	}
	rd_strv_free(&names);
}

/* The attributes of a PCI function worth keeping.  Never all of its files: resourceN and rom are
 * device memory, and reading them is not something a health check should do. */
static const char *const pci_attrs[] = {"vendor", "device", "class", "subsystem_vendor", "subsystem_device",
					"numa_node", "local_cpulist", "current_link_speed", "current_link_width",
					"max_link_speed", "max_link_width", "sriov_numvfs", "sriov_totalvfs", NULL};

static void copy_pci_function(struct snap *s, const char *canon)
{
	for (const char *const *a = pci_attrs; *a; a++) {
		char *p = rd_path_join(canon, *a);
		if (rd_exists(s->src, p))
			copy_file(s, p);
		free(p);
	}
	char *drv = rd_path_join(canon, "driver");
	copy_any(s, drv, 0, false);
	free(drv);
}

/* The parent of an RDMA device or netdev (a PCI function, or a virtual device): its attributes,
 * driver link and net/ entries. */
static void copy_parent_device(struct snap *s, const char *path)
{
	char *dev = rd_path_join(path, "device");
	char *canon = materialize(s, dev);
	if (canon) {
		mkdirs(s->out, canon);
		copy_pci_function(s, canon);
		char *net = rd_path_join(canon, "net");
		copy_class(s, net, false);
		free(net);
		free(canon);
	}
	free(dev);
}

/* sys/bus/pci/devices entries of Mellanox/NVIDIA functions: NICs and GPUs. */
static void copy_pci_bus(struct snap *s)
{
	struct rd_strv names = {0};
	if (rd_list_dir(s->src, "sys/bus/pci/devices", &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		char *p = rd_xasprintf("sys/bus/pci/devices/%s/vendor", names.v[i]);
		struct rd_text t;
		bool want = rd_read_attr(s->src, p, &t) == 0 && (strcmp(t.data, "0x15b3") == 0 || strcmp(t.data, "0x10de") == 0);
		rd_text_free(&t);
		free(p);
		if (!want)
			continue;
		char *link = rd_xasprintf("sys/bus/pci/devices/%s", names.v[i]);
		char *canon = materialize(s, link);
		if (canon) {
			mkdirs(s->out, canon);
			copy_pci_function(s, canon);
			free(canon);
		}
		free(link);
	}
	rd_strv_free(&names);
}

/* Unit files and drop-ins of the services whose limits the checks read (the policy's list). */
static void copy_service_units(struct snap *s)
{
	static const char *const dirs[] = {"etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system",
					   "lib/systemd/system", NULL};
	struct rd_policy pol;
	char err[256];
	rd_policy_load(NULL, s->src, &pol, err, sizeof err);
	for (size_t i = 0; i < pol.services.n; i++)
		for (const char *const *d = dirs; *d; d++) {
			char *unit = rd_xasprintf("%s/%s.service", *d, pol.services.v[i]);
			char *dropins = rd_xasprintf("%s/%s.service.d", *d, pol.services.v[i]);
			copy_any(s, unit, 0, false);
			copy_any(s, dropins, 0, true);
			free(unit);
			free(dropins);
		}
	rd_policy_free(&pol);
}

static void copy_modules(struct snap *s, const struct rd_host *h)
{
	for (size_t i = 0; i < h->nmodules; i++) {
		char *dir = rd_xasprintf("sys/module/%s", h->modules[i].name);
		copy_any(s, dir, 0, false);
		char *holders = rd_path_join(dir, "holders");
		copy_any(s, holders, 0, false);
		free(holders);
		free(dir);
	}
}

/* proc/self of the snapshot process, as a real directory (the memlock limit of the collector). */
static void copy_self(struct snap *s)
{
	static const char *const files[] = {"limits", "status", "cgroup"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *path = rd_xasprintf("proc/self/%s", files[i]);
		struct rd_text t;
		if (rd_read_file(s->src, path, RD_CAP_ATTR, &t) == 0) {
			write_out(s, path, t.data, t.len);
			rd_text_free(&t);
		}
		free(path);
	}
}

/* Processes of the services whose limits matter (slurmd and friends). */
static void copy_services(struct snap *s)
{
	static const char *const services[] = {"slurmd", "slurmstepd", "kubelet", "containerd", "dockerd", NULL};
	struct rd_strv pids = {0};
	if (rd_list_dir(s->src, "proc", &pids) < 0)
		return;
	for (size_t i = 0; i < pids.n; i++) {
		if (pids.v[i][0] < '1' || pids.v[i][0] > '9')
			continue;
		char *comm = rd_xasprintf("proc/%s/comm", pids.v[i]);
		struct rd_text t;
		if (rd_read_attr(s->src, comm, &t) == 0) {
			for (const char *const *sv = services; *sv; sv++)
				if (strcmp(t.data, *sv) == 0) {
					static const char *const files[] = {"comm", "limits", "status", "cmdline"};
					for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
						char *p = rd_xasprintf("proc/%s/%s", pids.v[i], files[f]);
						struct rd_text ft;
						if (rd_read_file(s->src, p, RD_CAP_ATTR, &ft) == 0) {
							write_out(s, p, ft.data, ft.len);
							rd_text_free(&ft);
						}
						free(p);
					}
				}
			rd_text_free(&t);
		}
		free(comm);
	}
	rd_strv_free(&pids);
}

static void copy_kernel_modules_index(struct snap *s, const struct rd_host *h)
{
	if (!rd_attr_ok(&h->osrelease) || strchr(h->osrelease.value, '/'))
		return;
	static const char *const files[] = {"modules.dep", "modules.builtin", "modules.order"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *p = rd_xasprintf("lib/modules/%s/%s", h->osrelease.value, files[i]);
		copy_any(s, p, 0, false);
		free(p);
	}
}

static void run_commands(struct snap *s)
{
	for (const struct rd_command *c = rd_commands; c->name; c++) {
		struct rd_text t;
		int r = rd_run_command(s->src, c->name, &t);
		char *p = rd_xasprintf("rdma-doctor/commands/%s", c->name);
		if (r == 0) {
			write_out(s, p, t.data, t.len);
			char *sp = rd_xasprintf("%s.status", p);
			char *st = rd_xasprintf("%d\n", t.status);
			write_out(s, sp, st, strlen(st));
			free(sp);
			free(st);
		} else if (t.err != RD_ENOTCAPTURED) {
			char *ep = rd_xasprintf("%s.error", p);
			const char *name = rd_errno_name(t.err);
			char *line = rd_xasprintf("%s\n", name ? name : "EIO");
			write_out(s, ep, line, strlen(line));
			free(line);
			free(ep);
		}
		rd_text_free(&t);
		free(p);
	}
}

/* The nodes of /dev/infiniband become empty files in the snapshot: their modes and owners, as the
 * host model read them, are kept in rdma-doctor/devnodes ("NAME MODE UID GID"). */
static void write_devnodes(struct snap *s, const struct rd_host *h)
{
	struct rd_buf b = {0};
	for (size_t i = 0; i < h->devnodes.n && h->devnode_perms; i++) {
		const struct rd_devnode_perm *pm = &h->devnode_perms[i];
		if (pm->mode != RD_MODE_UNKNOWN)
			rd_buf_printf(&b, "%s %04o %u %u\n", h->devnodes.v[i], pm->mode, pm->uid, pm->gid);
	}
	if (b.len)
		write_out(s, "rdma-doctor/devnodes", b.data, b.len);
	rd_buf_free(&b);
}

static void write_meta(struct snap *s, const struct rd_host *h)
{
	char *path = rd_xstrdup("rdma-doctor/meta.json");
	if (parent_dirs(s->out, path) == 0) {
		int fd = openat(s->out, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (f) {
			char when[64];
			time_t now = time(NULL);
			struct tm tm;
			strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
			struct rd_out o;
			rd_out_init(&o, f, true);
			rd_out_obj_begin(&o, NULL);
			rd_out_str(&o, "schema", NULL, "rdma-doctor/snapshot/v1");
			rd_out_str(&o, "host", NULL, rd_attr_ok(&h->hostname) ? h->hostname.value : NULL);
			rd_out_str(&o, "kernel", NULL, rd_attr_ok(&h->osrelease) ? h->osrelease.value : NULL);
			rd_out_str(&o, "time", NULL, when);
			rd_out_str(&o, "version", NULL, RD_VERSION);
			rd_out_str(&o, "source", NULL, rd_source_is_live(s->src) ? "live" : rd_source_root(s->src));
			rd_out_uint(&o, "files", NULL, s->files);
			rd_out_uint(&o, "links", NULL, s->links);
			rd_out_uint(&o, "read_errors", NULL, s->failed);
			rd_out_obj_end(&o);
			rd_out_finish(&o);
			fclose(f);
		} else if (fd >= 0) {
			close(fd);
		}
	}
	free(path);
}

static int collect(struct rd_source *src, int outfd, bool counters, struct snap *s)
{
	memset(s, 0, sizeof *s);
	s->counters = counters;
	s->src = src;
	s->out = outfd;
	struct rd_host h;
	rd_host_load(src, 0, &h);
	/* a snapshot always has /dev and /etc, so that what is absent there is absent on the host */
	mkdirs(outfd, "dev");
	mkdirs(outfd, "etc");

	for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
		switch (plan[i].kind) {
		case FILE1:
			copy_any(s, plan[i].path, 0, false);
			break;
		case TREE:
			copy_any(s, plan[i].path, 0, true);
			break;
		case SHALLOW:
			copy_any(s, plan[i].path, 0, false);
			copy_class(s, plan[i].path, strcmp(plan[i].path, "sys/class/infiniband") == 0);
			break;
		case NAMES:
			copy_names(s, plan[i].path);
			break;
		}
	}
	/* the parents of RDMA devices and of netdevs (PCI attributes, driver, NUMA node) */
	for (size_t i = 0; i < h.ndevices; i++) {
		char *p = rd_xasprintf("sys/class/infiniband/%s", h.devices[i].name);
		copy_parent_device(s, p);
		free(p);
	}
	struct rd_strv nets = {0};
	if (rd_list_dir(src, "sys/class/net", &nets) == 0)
		for (size_t i = 0; i < nets.n; i++) {
			char *p = rd_xasprintf("sys/class/net/%s", nets.v[i]);
			copy_parent_device(s, p);
			free(p);
		}
	rd_strv_free(&nets);
	copy_pci_bus(s);
	copy_service_units(s);
	copy_modules(s, &h);
	copy_kernel_modules_index(s, &h);
	copy_self(s);
	copy_services(s);
	run_commands(s);
	/* errors recorded in a snapshot we are re-snapshotting stay recorded */
	struct rd_text prev;
	if (!rd_source_is_live(src) && rd_read_file(src, "rdma-doctor/read-errors", RD_CAP_FILE, &prev) == 0) {
		rd_buf_add(&s->errors, prev.data, prev.len);
		rd_text_free(&prev);
	}
	write_out(s, "rdma-doctor/read-errors", s->errors.data ? s->errors.data : "", s->errors.len);
	write_devnodes(s, &h);
	write_meta(s, &h);
	rd_host_free(&h);
	rd_buf_free(&s->errors);
	rd_strv_free(&s->done);
	return 0;
}

static bool is_archive(const char *p)
{
	return rd_str_has_suffix(p, ".tar.gz") || rd_str_has_suffix(p, ".tgz");
}

int rd_cmd_snapshot(struct rd_ctx *ctx, int argc, char **argv)
{
	const char *out = NULL;
	bool counters = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--counters") == 0)
			counters = true;
		else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
			out = argv[++i];
		else if (strncmp(argv[i], "--output=", 9) == 0)
			out = argv[i] + 9;
		else {
			fprintf(ctx->err, "%s: snapshot: unknown argument '%s' (usage: snapshot -o DIR|FILE.tar.gz [--counters])\n",
				ctx->prog, argv[i]);
			return 2;
		}
	}
	if (!out) {
		fprintf(ctx->err, "%s: snapshot: -o DIR|FILE.tar.gz is required\n", ctx->prog);
		return 2;
	}
	struct rd_source *src;
	if (rd_ctx_open_source(ctx, &src) < 0)
		return 2;

	int rc = 2;
	char *dir = NULL, *tmp_archive = NULL;
	bool archive = is_archive(out);
	if (archive) {
		/* build in a private directory, pack to a temporary file beside the target, rename */
		const char *t = getenv("TMPDIR");
		dir = rd_xasprintf("%s/rdma-doctor-snap.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			fprintf(ctx->err, "%s: snapshot: cannot make a temporary directory: %s\n", ctx->prog, strerror(errno));
			goto done;
		}
	} else {
		dir = rd_xstrdup(out);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			fprintf(ctx->err, "%s: snapshot: cannot create %s: %s\n", ctx->prog, dir, strerror(errno));
			goto done;
		}
		struct rd_strv existing = {0};
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				rd_strv_push(&existing, de->d_name);
		if (d)
			closedir(d);
		size_t n = existing.n;
		rd_strv_free(&existing);
		if (n) {
			fprintf(ctx->err, "%s: snapshot: %s is not empty; give a new directory\n", ctx->prog, dir);
			goto done;
		}
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(ctx->err, "%s: snapshot: cannot open %s: %s\n", ctx->prog, dir, strerror(errno));
		goto done;
	}
	struct snap s;
	collect(src, dfd, counters, &s);
	if (archive) {
		tmp_archive = rd_xasprintf("%s.tmp.%ld", out, (long)getpid());
		int afd = open(tmp_archive, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		char why[512] = "";
		if (afd < 0) {
			fprintf(ctx->err, "%s: snapshot: cannot create %s: %s\n", ctx->prog, tmp_archive, strerror(errno));
		} else if (rd_archive_create(dfd, afd, why, sizeof why) < 0 || fsync(afd) < 0) {
			fprintf(ctx->err, "%s: snapshot: cannot write %s: %s\n", ctx->prog, out, why[0] ? why : strerror(errno));
			close(afd);
			unlink(tmp_archive);
		} else if (close(afd) < 0 || rename(tmp_archive, out) < 0) {
			fprintf(ctx->err, "%s: snapshot: cannot write %s: %s\n", ctx->prog, out, strerror(errno));
			unlink(tmp_archive);
		} else {
			rc = 0;
		}
		rd_remove_tree(AT_FDCWD, dir);
	} else {
		rc = 0;
	}
	close(dfd);
	if (rc == 0)
		fprintf(ctx->err, "%s: snapshot: wrote %s (%u files, %u links, %u read errors recorded)\n", ctx->prog,
			out, s.files, s.links, s.failed);
done:
	free(tmp_archive);
	free(dir);
	rd_source_close(src);
	return rc;
}
