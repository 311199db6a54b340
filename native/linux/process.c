/*
 * process.c — the process-level steps: session, parent death, inherited
 * descriptors, resource limits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "launcher.h"

/* A new session has no controlling terminal, so the sandboxed code cannot
 * push keystrokes into the caller's terminal with TIOCSTI/TIOCLINUX
 * (CVE-2017-5226 class; see setsid(2), tty_ioctl(4)). */
int step_setsid(struct cordon_err *e) {
  if (setsid() < 0) { cordon_err_set(e, "setsid", "setsid", errno); return -1; }
  return 0;
}

/* If the Node parent dies, the command is killed instead of running on
 * unsupervised. PDEATHSIG survives execve for non-setuid programs
 * (prctl(2)); the getppid() check closes the race where the parent died
 * before the prctl. */
int step_parent_death(struct cordon_err *e) {
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) { cordon_err_set(e, "parent-death", "prctl", errno); return -1; }
  if (getppid() != parent || parent == 1) { cordon_err_set(e, "parent-death", "getppid", ESRCH); return -1; }
  return 0;
}

static int is_kept(const struct plan *p, int fd) {
  for (size_t i = 0; i < p->n_keep; i++) if (p->keep_fds[i] == fd) return 1;
  return 0;
}

int cordon_close_from(int lo, int hi) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0) == 0) return 0;
  if (errno != ENOSYS) return -1;
#endif
  /* Kernels before 5.9: close one by one up to the fd limit. */
  for (long fd = lo; fd <= hi && fd < sysconf(_SC_OPEN_MAX); fd++) close((int)fd);
  return 0;
}

/* Close every descriptor >= 3 except the ones the caller passes through and
 * the status pipe (which is close-on-exec). An inherited fd is a capability
 * Landlock and seccomp cannot see: a secret file, a socket to a daemon, the
 * caller's terminal (see close_range(2)). */
int step_close_fds(const struct plan *p, int status_fd, struct cordon_err *e) {
  int lo = 3, hi = status_fd;
  /* Scan only up to the highest descriptor kept (this runs on every spawn). */
  for (size_t i = 0; i < p->n_keep; i++) if (p->keep_fds[i] > hi) hi = p->keep_fds[i];
  for (int fd = 3; fd <= hi && fd <= 65536; fd++) {
    if (fd != status_fd && !is_kept(p, fd)) continue;
    if (fd > lo && cordon_close_from(lo, fd - 1) < 0) { cordon_err_set(e, "close-fds", "close_range", errno); return -1; }
    lo = fd + 1;
  }
  if (cordon_close_from(lo, ~0U >> 1) < 0) { cordon_err_set(e, "close-fds", "close_range", errno); return -1; }
  return 0;
}

/* RLIMIT_CORE is always 0: a core dump of a confined process may contain
 * secrets it read, written where the sandbox cannot control (core(5)).
 * Other limits bound fork bombs and fd/memory/disk exhaustion. */
int step_rlimits(const struct plan *p, struct cordon_err *e) {
  struct rlimit zero = {0, 0};
  if (setrlimit(RLIMIT_CORE, &zero) < 0) { cordon_err_set(e, "rlimits", "setrlimit", errno); return -1; }
  for (size_t i = 0; i < p->n_rlimits; i++) {
    struct rlimit r = {(rlim_t)p->rlimits[i].soft, (rlim_t)p->rlimits[i].hard};
    if (setrlimit(p->rlimits[i].resource, &r) < 0) { cordon_err_set(e, "rlimits", "setrlimit", errno); return -1; }
  }
  return 0;
}
