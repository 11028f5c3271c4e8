/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* RPM hosts: the rpm database inside the root (EL9 rpmdb.sqlite, EL8 Packages in Berkeley DB, SUSE
 * Packages.db in ndb), /etc/os-release (which database to expect) and /etc/infiniband/info
 * (the kernel MLNX_OFED was installed for).
 *
 * How the database is read, and why so:
 *   * The files are read through the source layer (confined to the root, recorded by a snapshot,
 *     from an archive too) and copied into a private directory (mkdtemp, 0700) laid out as
 *     <tmp>/var/lib/rpm/<file>, removed afterwards on every path: the files are all read before
 *     the directory is made (a read that never returns leaves nothing), and while it exists
 *     SIGINT, SIGTERM and SIGHUP only set a flag (the child is killed, the directory removed, then
 *     the signal raised again).  What is copied is bounded before anything is read: the files
 *     together at most RD_RPMDB_CAP long and allocated, and no file with more than
 *     RD_RPMDB_HOLES of holes (a sparse file costs its length in memory and TMPDIR); past
 *     either, the reason says so (EFBIG).  librpm opens paths itself: handing it the
 *     root (or a /proc/self/fd/N path to the root's directory) would let a symlinked
 *     var/lib/rpm/rpmdb.sqlite in a hostile root make it read the host's database, and a
 *     read-only root would still get rpm's lock and -shm files written into it (as root, write
 *     bits do not stop it).  The copy holds only bytes the confined reader returned; whatever
 *     librpm writes (-shm, -wal, .rpm.lock) lands in the private directory.
 *   * librpm (librpm.so.9, Debian librpm9) is dlopen'ed in a child process (fork) only when the
 *     root has an rpm database or its os-release names an rpm distribution: a dpkg host never
 *     maps it, and a crash or a hang of librpm on a hostile database kills the child only.  The
 *     child is killed at the run's deadline (or RD_RPMDB_TIMEOUT_MS without one).
 *   * rpmReadConfigFiles is never called: nothing of the host's rpmrc, macros, /etc/rpm or
 *     ~/.rpmmacros is read.  The child defines the two macros the answer depends on, _dbpath
 *     (/var/lib/rpm, where Debian's macros would say ~/.rpmdb) and _db_backend (sqlite, bdb_ro or
 *     ndb, by the file found), opens the database O_RDONLY with digest and signature checks off
 *     (no keyring is read) and iterates the Packages table; every header's name is compared with
 *     the names below, and only those are sent back, one line each ("P\tname\tepoch\tversion\t
 *     release\tarch"), then "T\t<headers read>" (or "E\t<librpm's error>").
 *
 * Ownership: rd_rpmdb_load fills an rd_rpmdb that owns everything inside it; rd_rpmdb_free
 * releases it.  Library code: nothing is printed. */
#ifndef RD_RPMDB_H
#define RD_RPMDB_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"

struct rd_source;
struct rd_stack;

#define RD_RPMDB_SONAME "librpm.so.9"
#define RD_RPMDB_TIMEOUT_MS 20000 /* a run without a deadline still gives up on a hanging database */
#define RD_RPMDB_CAP (256u * 1024 * 1024) /* the database's files together: length and allocated size */
#define RD_RPMDB_HOLES (64u * 1024 * 1024) /* of a file's length not allocated on disk (sparse) */

/* The packages looked for, NULL-terminated (mlnx-ofa_kernel, kmod-mlnx-ofa_kernel, ...). */
extern const char *const rd_rpm_names[];

struct rd_rpm_pkg {
	char name[48];     /* one of rd_rpm_names */
	char version[64];
	char release[128];
	char arch[24];
	unsigned long epoch;
	char evr[224];     /* "[epoch:]version-release", as rpm -q shows it */
};

/* /etc/os-release: ID, ID_LIKE, VERSION_ID (values unquoted; "" when absent). */
struct rd_os_release {
	char id[32], id_like[64], version_id[32];
};
enum rd_rpm_backend { RD_RPMDB_NONE, RD_RPMDB_SQLITE, RD_RPMDB_BDB, RD_RPMDB_NDB };

struct rd_rpmdb {
	struct rd_attr os_release;     /* /etc/os-release (value kept) */
	struct rd_os_release os;       /* parsed, when os_release was read */
	enum rd_rpm_backend expect;    /* what os-release says this distribution uses (NONE: not rpm) */
	bool consulted;                /* an rpm host: a database file was found, or os-release expects one */
	enum rd_rpm_backend backend;   /* the database read (NONE when none was found) */
	char *path;                    /* "/var/lib/rpm/rpmdb.sqlite", or the expected one when absent */
	int err;                       /* 0: read; else an errno / RD_E* and reason says why */
	char reason[320];              /* one line naming the file: "... cannot be read: ..." */
	size_t headers;                /* headers librpm returned */
	struct rd_rpm_pkg *pkgs;       /* the packages of rd_rpm_names found, in database order */
	size_t npkgs;
	struct rd_attr ib_info;        /* /etc/infiniband/info (MLNX_OFED's installer writes it) */
	char ib_info_kernel[128];      /* its Kernel=, "" when none */
};

/* Reads os-release, infiniband/info and, on an rpm host, the database (see above).  dpkg_host:
 * the root has a readable dpkg status; then the rpm database is read only when os-release names
 * an rpm distribution. */
void rd_rpmdb_load(struct rd_source *src, bool dpkg_host, struct rd_rpmdb *out);
/* The same with the library named (tests: a shim that hangs or crashes). */
void rd_rpmdb_load_with(struct rd_source *src, bool dpkg_host, const char *soname, struct rd_rpmdb *out);
void rd_rpmdb_free(struct rd_rpmdb *r);
/* The first installed package of that name, or NULL. */
const struct rd_rpm_pkg *rd_rpmdb_find(const struct rd_rpmdb *r, const char *name);
/* "rpmdb.sqlite (sqlite)"-style name of a backend: "sqlite", "bdb_ro", "ndb", "none". */
const char *rd_rpm_backend_name(enum rd_rpm_backend b);

/* The installed stack an rpm host's database shows, into st (installed, version, installed_by,
 * unknown_why).  False when this is not an rpm host (nothing set).  DOCA-OFED: doca-ofed or
 * doca-ofed-userspace; MLNX_OFED: one of its mlnx-ofed-* meta packages; OFED: the kernel packages
 * (mlnx-ofa_kernel...) or an OFED rdma-core/libibverbs; else inbox. */
bool rd_rpmdb_stack(const struct rd_rpmdb *r, struct rd_stack *st);

/* ---- parsers (pure; unit tests and fuzz targets) ------------------------------------------- */
/* os-release lines KEY=value / KEY="value".  Returns 0 (fields "" when absent). */
int rd_parse_os_release(const char *text, struct rd_os_release *out);
/* The database os-release implies: EL/Fedora-likes 9+ (and Fedora 33+) sqlite, EL 8 and older
 * bdb, SUSE ndb; NONE for a non-rpm distribution or when it cannot tell. */
enum rd_rpm_backend rd_os_release_rpmdb(const struct rd_os_release *os);
/* /etc/infiniband/info: the value of its Kernel= line (also as `echo Kernel=...`).  Returns 0,
 * or -RD_EPARSE when it has none. */
int rd_parse_ib_info(const char *text, char *kver, size_t len);
/* The kernel named in a kmod package's release (mlnx-ofa_kernel-modules
 * "OFED.24.10.1.1.4.1.kver.5.14.0_427.13.1.el9_4.x86_64" -> "5.14.0-427.13.1.el9_4.x86_64": rpm
 * releases cannot hold '-', so the first '_' stands for it).  Returns 0 or -RD_EPARSE. */
int rd_rpm_release_kernel(const char *release, char *kver, size_t len);
/* The child's answer (the protocol above) into out->pkgs/npkgs/headers; an "E" line sets err
 * (RD_EPARSE) and reason.  Lines that are malformed or name an unknown package are ignored.
 * Returns 0, or -RD_EPARSE when there is no "T" or "E" line (the child died before the end). */
int rd_rpm_parse_answer(const char *text, size_t len, struct rd_rpmdb *out);
/* True for OFED's rdma-core/libibverbs versions ("2410mlnx54", "58mlnx43"). */
bool rd_rpm_version_is_ofed(const char *version);

#endif
