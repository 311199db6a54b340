/*
 * metadata.h — Landlock mode's file-metadata filter (issue 12).
 *
 * Landlock (ABI <= 7) has no access right for chmod, chown, utimes or
 * extended attributes: under Landlock alone a command changes the mode bits,
 * group, timestamps, ACLs and xattrs of every file its user owns, inside the
 * write roots or not. cordon closes that gap with a second seccomp filter
 * whose action for those syscalls is SECCOMP_RET_USER_NOTIF
 * (seccomp_unotify(2)). The command's process installs it with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER before execve and hands the listener to
 * the launcher's supervisor, which sits outside the command's Landlock
 * domain. For each notification the supervisor
 *
 *  1. copies the call's arguments out of the command's memory, once
 *     (process_vm_readv(2)), and opens what the path is relative to
 *     (/proc/TID/cwd, /proc/TID/fd/N); then checks
 *     SECCOMP_IOCTL_NOTIF_ID_VALID, so everything it took belongs to the very
 *     task still blocked in that call (a pid recycled meanwhile fails it);
 *  2. resolves the object from its own copy of the path (openat2(2)), takes
 *     the object's canonical path, re-opens that path beneath a write root's
 *     descriptor with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
 *     RESOLVE_NO_SYMLINKS and compares device and inode: only an object that
 *     really lies beneath a write root qualifies;
 *  3. performs the call itself on that descriptor — with the command's
 *     credentials, which it shares (capabilities dropped in both) — and
 *     answers with its result. Anything else is answered EPERM.
 *
 * The command's memory is never read again after the check, and the answer
 * is never SECCOMP_USER_NOTIF_FLAG_CONTINUE: with it the kernel would run the
 * call itself and re-read the path from memory that another thread of the
 * command can rewrite after the supervisor looked (seccomp_unotify(2),
 * Documentation/userspace-api/seccomp_filter.rst: a TOCTOU, so CONTINUE must
 * never implement a security decision).
 *
 * Namespace mode has no such filter: its read-only mounts refuse all of
 * these calls (EROFS) in the kernel, with no round trip.
 *
 * With a network allowlist the same filter also sends connect(2) to the
 * supervisor, which connects only the proxy's address (notify-connect.c:
 * Landlock's TCP rule matches the port alone).
 *
 * Files: metadata-filter.c (the command's side, before execve), notify.c
 * (the supervisor's loop), notify-target.c (reading the blocked task),
 * notify-resolve.c (write roots, the beneath check), notify-ops.c (each
 * syscall's arguments and the call performed), notify-connect.c (connect).
 */
#ifndef CORDON_METADATA_H
#define CORDON_METADATA_H

#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "launcher.h"

/* A write root: a Landlock rule of the plan with write access. */
struct md_root {
  int fd;           /* O_PATH, opened without following a symlink */
  dev_t dev;
  ino_t ino;
  const char *path; /* canonical, as planned */
  size_t len;       /* of path without a trailing slash: 0 for / */
};

/* A network allowlist: the proxy's ports on 127.0.0.1, the one endpoint a
 * supervised connect(2) reaches (notify-connect.c). */
struct md_net {
  int ports[4];
  size_t n_ports;
};

/* What the supervisor decides against: the write roots, and the proxy. */
struct md_roots {
  struct md_root *r;
  size_t n;
  struct md_net net;
};

/* The task blocked in one notification. */
struct md_target {
  int listener;
  uint64_t id;
  pid_t tid; /* seccomp_notif.pid: the thread, in the supervisor's pid namespace */
};

/* What a notified call asks, copied out of the target (notify-ops.c). */
struct md_call {
  int kind;         /* enum md_kind (notify-ops.c) */
  int fd;           /* dirfd, or the fd an f-variant acts on; AT_FDCWD */
  int on_fd;        /* no path: the object is `fd` itself */
  int follow;       /* follow a trailing symlink */
  char path[PATH_MAX];
};

/* ---------- supervisor (notify.c) ---------- */
/* Before the command starts: open the write roots and the socket its
 * process hands the listener over. Nothing to do (0) when not planned. */
int md_prepare(const struct plan *p, struct md_roots *roots, int sock[2], struct cordon_err *e);
/* Right after the command started: the listener its process sent, or -1
 * (not planned, or refused outright); closes both sockets. */
int md_take_listener(int sock[2]);
/* Answer notifications until the command exits; returns its wait status
 * (-1: lost), like wait_command. */
int md_serve(int listener, pid_t command, const struct md_roots *roots);

/* ---------- the blocked task (notify-target.c) ---------- */
/* Copy len bytes at addr: 0 or an errno (EFAULT, ESRCH, EPERM). */
int md_read(const struct md_target *t, uint64_t addr, void *buf, size_t len);
/* A NUL-terminated string of at most cap bytes with its NUL, else too_long. */
int md_read_str(const struct md_target *t, uint64_t addr, char *buf, size_t cap, int too_long);
/* Open the base the call resolves from (its cwd, dirfd, or the fd itself):
 * *base is an fd of ours or AT_FDCWD (absolute path), *rest the path left. */
int md_open_base(const struct md_target *t, const struct md_call *c, int *base, const char **rest);
/* The target is still blocked in this very notification. */
int md_still_waiting(const struct md_target *t);

/* ---------- resolution (notify-resolve.c) ---------- */
int md_roots_open(const struct plan *p, struct md_roots *roots, struct cordon_err *e);
/* An O_PATH fd of ours on the object the call names, if it lies beneath a
 * write root (its stat in *st); else -errno (EPERM outside). Consumes base. */
int md_resolve(const struct md_roots *roots, const struct md_call *c, int base, const char *rest, struct stat *st);

/* ---------- connect with a network allowlist (notify-connect.c) ---------- */
/* Connect the command's socket to the proxy on its behalf: 0 or an errno
 * (EACCES for any other address). */
int md_connect(const struct md_target *t, const struct seccomp_data *d, const struct md_net *net);

/* ---------- the calls (notify-ops.c) ---------- */
/* Decide and, beneath a write root, perform one call: 0 or an errno. */
int md_answer(const struct md_target *t, const struct seccomp_data *d, const struct md_roots *roots);

#endif
