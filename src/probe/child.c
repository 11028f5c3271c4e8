/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rd_probe_run_contained (see probe.h): the probe in a child process, under a watchdog.
 *
 * The child runs rd_probe_run with a progress hook that writes, before each verbs call, what it
 * has finished and where it is (probe/wire.h) to a pipe; the parent reads with poll until the
 * deadline, then kills the child with SIGKILL and always reaps it.  The child never returns into
 * the caller: it ends with _exit (no atexit handler, no stdio flush, no leak check run twice). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"
#include "probe/wire.h"

static long long mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct rd_probe_step *add_step(struct rd_probe_step **steps, size_t *n, const char *name)
{
	*steps = rd_xrealloc(*steps, (*n + 1) * sizeof **steps);
	struct rd_probe_step *s = &(*steps)[(*n)++];
	memset(s, 0, sizeof *s);
	s->name = name;
	return s;
}

/* ---- the child ----------------------------------------------------------------------------- */

struct child {
	int fd;
	size_t hsteps_sent, ports_sent, devices_sent;
	bool library_sent;
	struct rd_buf b;
};

static void child_flush(struct child *c)
{
	if (rd_write_all(c->fd, c->b.data, c->b.len) < 0)
		_exit(3); /* the parent is gone */
	c->b.len = 0;
}

/* What is finished and not yet sent: host steps, then ports (all but the one being probed). */
static void child_send_done(struct child *c, const struct rd_probe_result *r, bool in_port)
{
	if (!c->library_sent && r->library) {
		rd_probe_wire_library(&c->b, r->library);
		c->library_sent = true;
	}
	for (; c->hsteps_sent < r->nsteps; c->hsteps_sent++)
		rd_probe_wire_step(&c->b, "hstep", &r->steps[c->hsteps_sent]);
	for (; c->devices_sent < r->devices.n; c->devices_sent++)
		rd_probe_wire_device(&c->b, r->devices.v[c->devices_sent]);
	size_t done = in_port && r->nports ? r->nports - 1 : r->nports;
	for (; c->ports_sent < done; c->ports_sent++)
		rd_probe_wire_port(&c->b, &r->ports[c->ports_sent], false);
}

static void child_progress(void *arg, const struct rd_probe_result *r, const char *device, unsigned port,
			   const char *step, const char *call)
{
	struct child *c = arg;
	bool in_port = port > 0 && r->nports > 0;
	child_send_done(c, r, in_port);
	if (in_port && c->ports_sent < r->nports)
		rd_probe_wire_port(&c->b, &r->ports[r->nports - 1], true);
	rd_probe_wire_at(&c->b, device, port, step, call);
	child_flush(c);
}

static _Noreturn void child_main(const struct rd_probe_opts *opts, int timeout_ms, int fd, pid_t parent)
{
	/* killed with the parent, whatever the library does; nothing it prints reaches the report */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	struct child c = {.fd = fd};
	struct rd_probe_opts o = *opts;
	o.progress = child_progress;
	o.progress_arg = &c;
	struct rd_probe_result res;
	/* its own source of the live host: a reader thread of the parent's would not exist here */
	struct rd_source *src = NULL;
	char err[512] = "";
	int e = rd_source_open(NULL, &src, err, sizeof err);
	if (e < 0) {
		memset(&res, 0, sizeof res);
		res.size = opts->size ? opts->size : RD_PROBE_DEFAULT_SIZE;
		struct rd_probe_step *s = add_step(&res.steps, &res.nsteps, "load");
		s->error = rd_xasprintf("cannot read the live host: %s", err[0] ? err : strerror(-e));
		s->err = -e;
		res.error = rd_xstrdup(s->error);
	} else {
		if (timeout_ms > 0) /* one read may take 2 s (a wedged HCA), all of them the watchdog's time */
			rd_source_set_deadlines(src, timeout_ms < 2000 ? timeout_ms : 2000, timeout_ms);
		rd_probe_run(src, &o, &res); /* the size is checked before the fork: no -EINVAL */
		rd_source_close(src);    /* its reader thread stopped: nothing left running at _exit */
	}
	child_send_done(&c, &res, false);
	rd_probe_wire_end(&c.b, &res);
	child_flush(&c);
	rd_buf_free(&c.b);
	rd_probe_result_free(&res);
	close(fd);
	_exit(0);
}

/* ---- the parent ---------------------------------------------------------------------------- */

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "SIG%s (%s)", abbrev, strsignal(sig));
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* The child did not finish: what it sent, and a failed step where it stopped, saying why. */
static void conclude_died(struct rd_probe_wire *w, const struct rd_probe_opts *opts, uint64_t size,
			  const char *why, const char *tail, const char *fix, uint64_t usec, struct rd_probe_result *out)
{
	*out = w->r;
	memset(&w->r, 0, sizeof w->r);
	out->size = size;
	out->pass = false;
	free(out->error);
	const char *step = w->at_step ? w->at_step : "load";
	char *where = w->at_call ? rd_xasprintf(" in %s", w->at_call) : rd_xstrdup(" before it loaded libibverbs");
	struct rd_probe_step *s;
	if (w->at_device && (w->at_port > 0 || strcmp(step, "open") == 0)) {
		struct rd_probe_port *p;
		if (w->have_partial && w->at_port > 0) { /* the port it was in, with its steps so far */
			out->ports = rd_xrealloc(out->ports, (out->nports + 1) * sizeof *out->ports);
			p = &out->ports[out->nports++];
			*p = w->partial;
			memset(&w->partial, 0, sizeof w->partial);
			w->have_partial = false;
		} else {
			out->ports = rd_xrealloc(out->ports, (out->nports + 1) * sizeof *out->ports);
			p = &out->ports[out->nports++];
			memset(p, 0, sizeof *p);
			p->device = rd_xstrdup(w->at_device);
			p->port = w->at_port ? w->at_port : opts->port;
			p->gid_index = -1;
		}
		p->pass = false;
		s = add_step(&p->steps, &p->nsteps, step);
		s->error = rd_xasprintf("%s%s%s", why, where, tail);
		if (p->port)
			out->error = rd_xasprintf("%s port %u: %s", p->device, p->port, s->error);
		else
			out->error = rd_xasprintf("%s: %s", p->device, s->error);
	} else {
		s = add_step(&out->steps, &out->nsteps, step);
		s->error = rd_xasprintf("%s%s%s", why, where, tail);
		out->error = rd_xstrdup(s->error);
	}
	s->ok = false;
	s->usec = usec;
	if (w->at_device && w->at_port == 0 && strcmp(step, "unload") == 0)
		s->detail = rd_xasprintf("closing %s%s%s", w->at_device, out->library ? "; libibverbs is " : "",
					 out->library ? out->library : "");
	else if (out->library)
		s->detail = rd_xasprintf("libibverbs is %s", out->library);
	/* what it did not reach */
	struct rd_buf left = {0};
	for (size_t i = 0; i < out->devices.n; i++) {
		const char *d = out->devices.v[i];
		bool seen = w->at_device && strcmp(w->at_device, d) == 0;
		for (size_t k = 0; k < out->nports && !seen; k++)
			seen = strcmp(out->ports[k].device, d) == 0;
		if (!seen)
			rd_buf_printf(&left, "%s%s", left.len ? ", " : "", d);
	}
	if (left.len) {
		char *d = rd_xasprintf("%s%snot probed: %s", s->detail ? s->detail : "", s->detail ? "; " : "", left.data);
		free(s->detail);
		s->detail = d;
	}
	rd_buf_free(&left);
	if (fix)
		rd_strv_push(&s->fix, fix);
	free(where);
}

/* Feeds every complete line of buf[*used..len) to the parser; 0 or -EPROTO. */
static int feed(struct rd_probe_wire *w, struct rd_buf *b, size_t *used, long long *at_us, char *err, size_t errlen)
{
	while (*used < b->len) {
		char *start = b->data + *used, *nl = memchr(start, '\n', b->len - *used);
		if (!nl)
			return b->len - *used > RD_PROBE_WIRE_MAX_LINE ? -EPROTO : 0;
		unsigned ats = w->ats;
		int r = rd_probe_wire_line(w, start, (size_t)(nl - start), err, errlen);
		if (r < 0)
			return r;
		if (w->ats != ats)
			*at_us = mono_us();
		*used += (size_t)(nl - start) + 1;
	}
	return 0;
}

int rd_probe_run_contained(const struct rd_probe_opts *opts, int timeout_ms, struct rd_probe_result *r)
{
	memset(r, 0, sizeof *r);
	uint64_t size = opts->size ? opts->size : RD_PROBE_DEFAULT_SIZE;
	if (size < RD_PROBE_MIN_SIZE || size > RD_PROBE_MAX_SIZE || (uint64_t)(size_t)size != size)
		return rd_probe_run(NULL, opts, r); /* the options' error, before anything is read or loaded */

	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		struct rd_probe_step *s = add_step(&r->steps, &r->nsteps, "load");
		s->error = rd_xasprintf("cannot make a pipe for the probe process: %s", strerror(e));
		s->err = e;
		r->error = rd_xstrdup(s->error);
		r->size = size;
		return -EIO;
	}
	fflush(NULL); /* the child must not write what the parent has buffered a second time */
	long long t0 = rd_mono_ms();
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		struct rd_probe_step *s = add_step(&r->steps, &r->nsteps, "load");
		s->error = rd_xasprintf("cannot start the probe process: %s", strerror(e));
		s->err = e;
		r->error = rd_xstrdup(s->error);
		r->size = size;
		return -EIO;
	}
	if (pid == 0) {
		close(pfd[0]);
		child_main(opts, timeout_ms, pfd[1], parent);
	}
	close(pfd[1]);

	struct rd_probe_wire w;
	memset(&w, 0, sizeof w);
	struct rd_buf b = {0};
	size_t used = 0;
	long long at_us = mono_us(), deadline = timeout_ms > 0 ? t0 + timeout_ms : 0;
	char perrbuf[256] = "";
	bool timed_out = false, malformed = false, eof = false;
	int st = 0, io_err = 0;
	size_t total = 0;
	pid_t reaped = 0;
	while (!eof) {
		int left = -1;
		if (deadline) {
			long long l = deadline - rd_mono_ms();
			if (l <= 0) {
				timed_out = true;
				break;
			}
			left = (int)l;
		}
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int pr = poll(&p, 1, left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			io_err = errno;
			break;
		}
		if (pr == 0)
			continue; /* the deadline, checked above */
		char chunk[8192];
		ssize_t n = read(pfd[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			io_err = errno;
			break;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		total += (size_t)n;
		if (total > RD_PROBE_WIRE_MAX_BYTES) {
			snprintf(perrbuf, sizeof perrbuf, "more than %u bytes", RD_PROBE_WIRE_MAX_BYTES);
			malformed = true;
			break;
		}
		rd_buf_add(&b, chunk, (size_t)n);
		if (feed(&w, &b, &used, &at_us, perrbuf, sizeof perrbuf) < 0) {
			if (!perrbuf[0])
				snprintf(perrbuf, sizeof perrbuf, "a line longer than %u bytes", RD_PROBE_WIRE_MAX_LINE);
			malformed = true;
			break;
		}
		/* keep only the line not complete yet */
		memmove(b.data, b.data + used, b.len - used);
		b.len -= used;
		used = 0;
	}
	close(pfd[0]);
	/* the pipe is closed (the library may have closed it): the child still gets until the deadline */
	while (eof && !timed_out) {
		reaped = waitpid(pid, &st, WNOHANG);
		if (reaped == pid || (reaped < 0 && errno != EINTR))
			break;
		if (deadline && rd_mono_ms() >= deadline) {
			timed_out = true;
			break;
		}
		struct timespec nap = {0, 5 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
	if (reaped != pid) {
		kill(pid, SIGKILL);
		while ((reaped = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	uint64_t usec = (uint64_t)(mono_us() - at_us);
	if (eof && used < b.len && !malformed) {
		snprintf(perrbuf, sizeof perrbuf, "line %u: no newline at the end", w.lines + 1);
		malformed = true;
	}
	rd_buf_free(&b);

	int ret;
	char why[200], sig[64];
	if (!timed_out && !malformed && w.ended && reaped == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		*r = w.r;
		memset(&w.r, 0, sizeof w.r);
		ret = r->pass ? 0 : -EIO;
	} else {
		const char *fix = NULL;
		char tail[300] = "";
		if (timed_out) {
			snprintf(why, sizeof why, "timed out after %.3g s", timeout_ms / 1000.0);
			snprintf(tail, sizeof tail, ": the probe process was killed");
			fix = "dmesg | tail -50    # a verbs call that does not return is a wedged device, driver or firmware";
		} else if (malformed) {
			snprintf(why, sizeof why, "the probe process sent a malformed report");
			snprintf(tail, sizeof tail, " (%s)", perrbuf);
		} else if (io_err) {
			snprintf(why, sizeof why, "the probe process could not be read");
			snprintf(tail, sizeof tail, " (%s): it was killed", strerror(io_err));
		} else if (reaped == pid && WIFSIGNALED(st)) {
			snprintf(why, sizeof why, "the probe process was killed by %s",
				 signal_name(WTERMSIG(st), sig, sizeof sig));
			fix = "ibv_devinfo -v    # rdma-core's own tool on the same libibverbs and provider";
		} else if (reaped == pid && WIFEXITED(st)) {
			snprintf(why, sizeof why, "the probe process exited with status %d", WEXITSTATUS(st));
			snprintf(tail, sizeof tail, w.ended ? ", after its report (not trusted)" : ", before it reported a result");
			fix = "ibv_devinfo -v    # rdma-core's own tool on the same libibverbs and provider";
		} else {
			snprintf(why, sizeof why, "the probe process was lost");
			snprintf(tail, sizeof tail, " (%s)", strerror(ECHILD));
		}
		conclude_died(&w, opts, size, why, tail, fix, usec, r);
		ret = -EIO;
	}
	rd_probe_wire_free(&w);
	return ret;
}
