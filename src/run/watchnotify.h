/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* systemd's notification protocol without libsystemd (sd_notify(3)): one datagram to the unix
 * socket $NOTIFY_SOCKET names (a path, or an abstract name written with a leading '@'), and the
 * watchdog interval systemd asks for ($WATCHDOG_USEC, for this process when $WATCHDOG_PID is ours
 * or unset).  Nothing here prints.
 *
 * Ownership: borrows the strings; keeps nothing (a socket is opened and closed per message). */
#ifndef RD_WATCHNOTIFY_H
#define RD_WATCHNOTIFY_H

/* Sends state ("READY=1", "WATCHDOG=1", "STOPPING=1" ...) to sock (the value of NOTIFY_SOCKET).
 * Returns 1 when sent, 0 when sock is NULL or empty (not run by systemd), -errno when it cannot be
 * sent (-EINVAL: not a path or an '@' name, or too long for a unix socket address). */
int rd_sd_notify(const char *sock, const char *state);
/* How often to send WATCHDOG=1, in ms (half of WATCHDOG_USEC), from the values of WATCHDOG_USEC and
 * WATCHDOG_PID (either NULL) and this process's id; 0 when no watchdog is asked of this process. */
long long rd_sd_watchdog_ms(const char *usec, const char *pid, long self);

#endif
