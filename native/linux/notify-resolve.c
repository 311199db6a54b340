/*
 * notify-resolve.c — is the object a notified call names beneath a write
 * root? (metadata.h)
 *
 * The write roots are the plan's Landlock rules with write access — exactly
 * where Landlock lets the command write, narrowing for denied paths
 * included — opened by the supervisor before the command starts, without
 * following a symlink (the rule paths are canonical; a symlink there was
 * planted after planning).
 *
 * The check is on the object, not on the spelling of its path: the object
 * is resolved first (any spelling, symlinks and .. included, as the kernel
 * would for the command), then its canonical path (the kernel's d_path,
 * /proc/self/fd/N) is matched against a root and re-opened beneath that
 * root's descriptor with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
 * RESOLVE_NO_SYMLINKS (openat2(2), Linux 5.6), and the two must be the same
 * inode (device and inode number; both descriptors pin it, so the number
 * cannot be reused meanwhile). A canonical path can lie — another mount
 * namespace's path through /proc/PID/root, a " (deleted)" suffix, a rename
 * between the two steps — but then the re-open beneath the root finds
 * another inode or nothing, and the answer is EPERM. The call is performed
 * on the descriptor opened beneath the root, never by path again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "metadata.h"

static int add_root(struct md_roots *roots, const char *path, struct cordon_err *e) {
  struct md_root *r = &roots->r[roots->n];
  struct stat st;
  r->fd = cordon_open_no_symlinks(path);
  /* Gone since planning: Landlock skips the rule too (fewer rights). */
  if (r->fd < 0 && errno == ENOENT) return 0;
  if (r->fd < 0 || fstat(r->fd, &st) < 0) {
    cordon_err_set(e, "metadata", "openat2", errno);
    snprintf(e->detail, sizeof e->detail, "%s", path);
    return -1;
  }
  r->dev = st.st_dev;
  r->ino = st.st_ino;
  r->path = path;
  r->len = strlen(path);
  while (r->len > 0 && path[r->len - 1] == '/') r->len--;
  roots->n++;
  return 0;
}

int md_roots_open(const struct plan *p, struct md_roots *roots, struct cordon_err *e) {
  roots->n = 0;
  roots->r = calloc(p->n_ll_rules + 1, sizeof *roots->r);
  if (!roots->r) { cordon_err_set(e, "metadata", "calloc", ENOMEM); return -1; }
  for (size_t i = 0; i < p->n_ll_rules; i++)
    if ((p->ll_rules[i].access & ACC_WRITE) && add_root(roots, p->ll_rules[i].path, e)) return -1;
  return 0;
}

/* The kernel's path of our fd; -1 for what has none (pipe:[N], anon_inode:…)
 * or one too long to compare. */
static int canonical(int fd, char *buf, size_t cap) {
  char self[32];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(self, buf, cap - 1);
  if (n <= 0 || (size_t)n >= cap - 1) return -1;
  buf[n] = 0;
  return buf[0] == '/' ? 0 : -1;
}

/* The part of `canon` below root r: "" for the root itself, NULL when
 * `canon` is not below it (as strings: the re-open decides). */
static const char *below(const char *canon, const struct md_root *r) {
  if (strncmp(canon, r->path, r->len) != 0) return NULL;
  if (canon[r->len] == 0) return "";
  return canon[r->len] == '/' ? canon + r->len + 1 : NULL;
}

static int open_beneath(const struct md_root *r, const char *rel) {
  /* The canonical path has no symlink and no ..: meeting one means the tree
   * changed under us, and the answer is no. */
  struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS};
  if (!*rel) return fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
  return (int)syscall(SYS_openat2, r->fd, rel, &how, sizeof how);
}

/* A descriptor beneath a write root on the same inode as `obj` (its stat
 * in *got), or -EPERM. */
static int beneath_root(const struct md_roots *roots, int obj, struct stat *got) {
  char canon[PATH_MAX];
  struct stat want;
  if (fstat(obj, &want) < 0 || canonical(obj, canon, sizeof canon) < 0) return -EPERM;
  for (size_t i = 0; i < roots->n; i++) {
    const char *rel = below(canon, &roots->r[i]);
    int fd = rel ? open_beneath(&roots->r[i], rel) : -1;
    if (fd < 0) continue;
    if (fstat(fd, got) == 0 && got->st_dev == want.st_dev && got->st_ino == want.st_ino) return fd;
    close(fd);
  }
  return -EPERM;
}

/* The object itself, as the kernel would find it for the command: magic
 * links allowed (/proc/TID/fd/N is how a dirfd or fd is named), a trailing
 * symlink followed or not as the call says. O_PATH: nothing is opened. */
static int find_object(const struct md_call *c, int base, const char *rest) {
  struct open_how how = {.flags = O_PATH | O_CLOEXEC | (c->follow ? 0 : O_NOFOLLOW), .resolve = 0};
  int fd = c->on_fd ? fcntl(base, F_DUPFD_CLOEXEC, 0) : (int)syscall(SYS_openat2, base, rest, &how, sizeof how);
  return fd < 0 ? -errno : fd;
}

int md_resolve(const struct md_roots *roots, const struct md_call *c, int base, const char *rest, struct stat *st) {
  int obj = find_object(c, base, rest);
  if (base >= 0) close(base);
  if (obj < 0) return obj;
  int fd = beneath_root(roots, obj, st);
  close(obj);
  return fd;
}
