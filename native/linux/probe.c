/*
 * probe.c — what this kernel can enforce, asked without changing anything
 * in the calling process (the user namespace test runs in a throwaway child).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cordon.h"
#include "landlock-abi.h"

static int read_int(const char *path) {
  int v = -1;
  FILE *f = fopen(path, "re");
  if (f) { if (fscanf(f, "%d", &v) != 1) v = -1; fclose(f); }
  return v;
}

static void probe_landlock(struct cordon_probe *p) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  p->landlock_abi = v < 0 ? -1 : (int)v;
  p->landlock_errno = v < 0 ? errno : 0;
  /* Errata (fixed kernel bugs) are queryable since 6.15; EINVAL before. */
  v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_ERRATA);
  p->landlock_errata = v < 0 ? -1 : (int)v;
}

static void probe_seccomp(struct cordon_probe *p) {
  /* SECCOMP_GET_ACTION_AVAIL for KILL_PROCESS (4.14): the action cordon uses
   * for foreign-arch syscalls. Answers without installing anything. */
  unsigned action = SECCOMP_RET_KILL_PROCESS;
  long r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
  p->seccomp = r == 0;
  p->seccomp_errno = r == 0 ? 0 : errno;
}

/* In a forked child (only async-signal-safe calls: unshare, mount, _exit),
 * create a user+mount namespace and make a mount change, the two things
 * bubblewrap needs. AppArmor's userns restriction (Ubuntu >= 23.10) lets
 * unshare succeed but denies the mount, so both are tested. */
static void probe_userns(struct cordon_probe *p) {
  int status = 0;
  pid_t pid = fork();
  if (pid == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) _exit(errno & 0x7f);
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) _exit(0x80 | (errno & 0x7f));
    _exit(0);
  }
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
    p->userns = 0; p->userns_errno = pid < 0 ? errno : ECHILD; p->userns_step = "fork";
    return;
  }
  int code = WEXITSTATUS(status);
  p->userns = code == 0;
  p->userns_errno = code & 0x7f;
  p->userns_step = code == 0 ? NULL : (code & 0x80) ? "mount" : "unshare";
}

void cordon_probe_run(struct cordon_probe *p, int with_userns) {
  struct utsname u;
  memset(p, 0, sizeof *p);
  probe_landlock(p);
  probe_seccomp(p);
  p->userns = -1;
  if (with_userns) probe_userns(p);
  p->max_user_namespaces = read_int("/proc/sys/user/max_user_namespaces");
  p->unprivileged_userns_clone = read_int("/proc/sys/kernel/unprivileged_userns_clone");
  p->apparmor_restrict_userns = read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  p->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
  if (uname(&u) == 0) {
    snprintf(p->kernel, sizeof p->kernel, "%s", u.release);
    snprintf(p->machine, sizeof p->machine, "%s", u.machine);
  }
}
