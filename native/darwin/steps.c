/*
 * steps.c — the macOS launcher's steps before the profile is applied, and
 * the exec after it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "launcher.h"
#include "seatbelt-api.h"

/*
 * PT_DENY_ATTACH: no debugger may attach to the launcher while it holds the
 * plan (ptrace(2) on macOS: a later PT_ATTACH fails with EBUSY/EPERM, and a
 * process that is already traced is killed). RLIMIT_CORE 0: a crash of the
 * launcher or of the command leaves no core file with its memory (the
 * command's environment, what it read) on disk. Both before anything else.
 */
int darwin_harden(struct darwin_applied *a, struct cordon_err *e) {
  struct rlimit zero = {0, 0};
  if (ptrace(PT_DENY_ATTACH, 0, 0, 0) < 0) { cordon_err_set(e, "harden", "ptrace(PT_DENY_ATTACH)", errno); return -1; }
  a->deny_attach = 1;
  if (setrlimit(RLIMIT_CORE, &zero) < 0) { cordon_err_set(e, "harden", "setrlimit(RLIMIT_CORE)", errno); return -1; }
  a->core_zero = 1;
  return 0;
}

/* A session of its own, so the caller's stop() can signal the whole
 * process group. Node's `detached` spawn already made one: EPERM then means
 * "already a session leader", which is what this step wants. */
int darwin_session(struct cordon_err *e) {
  if (setsid() < 0 && errno != EPERM) { cordon_err_set(e, "session", "setsid", errno); return -1; }
  return 0;
}

/* Only stdio and the status record reach the command: any other descriptor
 * the caller leaked (a socket, a file outside the profile's paths) would be
 * a way around Seatbelt, which checks opens, not descriptors already held. */
int darwin_close_fds(int status_fd, struct cordon_err *e) {
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; fd++)
    if (fd != status_fd) close(fd);
  (void)e;
  return 0;
}

int darwin_rlimits(const struct darwin_plan *p, struct cordon_err *e) {
  for (size_t i = 0; i < p->n_rlimits; i++) {
    struct rlimit r = {(rlim_t)p->rlimits[i].soft, (rlim_t)p->rlimits[i].hard};
    if (setrlimit(p->rlimits[i].resource, &r) < 0) { cordon_err_set(e, "rlimits", "setrlimit", errno); return -1; }
  }
  return 0;
}

/* DYLD_INSERT_LIBRARIES and friends load code into every program the
 * command starts that is not SIP-protected: never pass them on, whatever
 * the caller's environment filter kept. */
int darwin_scrub_dyld(char **envp) {
  int removed = 0;
  char **out = envp;
  for (char **v = envp; *v; v++) {
    if (strncmp(*v, "DYLD_", 5) == 0) removed++;
    else *out++ = *v;
  }
  *out = NULL;
  return removed;
}

static const char *env_path(char **envp) {
  for (char **v = envp; *v; v++)
    if (strncmp(*v, "PATH=", 5) == 0) return *v + 5;
  return "/usr/bin:/bin:/usr/sbin:/sbin";
}

/* PATH search with the command's own PATH, after the profile is in force
 * (a program the profile may not exec is not found). Relative PATH entries
 * would resolve against a writable cwd: skipped. EACCES wins over ENOENT. */
int darwin_exec(const struct darwin_plan *p, struct cordon_err *e) {
  const char *name = p->argv[0];
  int saw_eacces = 0;
  if (strchr(name, '/')) execve(name, p->argv, p->envp);
  else {
    char full[PATH_MAX];
    for (const char *dir = env_path(p->envp); *dir;) {
      size_t len = strcspn(dir, ":");
      if (len > 0 && dir[0] == '/' && snprintf(full, sizeof full, "%.*s/%s", (int)len, dir, name) < (int)sizeof full) {
        execve(full, p->argv, p->envp);
        if (errno == EACCES) saw_eacces = 1;
      }
      dir += len + (dir[len] == ':');
    }
    errno = saw_eacces ? EACCES : ENOENT;
  }
  cordon_err_set(e, "execve", "execve", errno);
  snprintf(e->detail, sizeof e->detail, "%s", name);
  return -1;
}
