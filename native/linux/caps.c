/*
 * caps.c — drop every capability and set no_new_privs.
 *
 * The caller is often root (CI, containers). Without this step the command
 * would keep CAP_SYS_ADMIN, CAP_DAC_OVERRIDE, ... and could remount, read any
 * file regardless of mode bits, or load modules (capabilities(7)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "launcher.h"

static int last_cap(void) {
  int n = CAP_LAST_CAP;
  FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
  if (f) { if (fscanf(f, "%d", &n) != 1) n = CAP_LAST_CAP; fclose(f); }
  return n;
}

/* The bounding set limits what an execve of a setuid-root or file-capability
 * binary can regain. Dropping it needs CAP_SETPCAP: an unprivileged caller
 * has no capabilities to regain, and no_new_privs covers setuid binaries. */
static int drop_bounding(void) {
  int top = last_cap();
  for (int c = 0; c <= top; c++)
    if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL) return -1;
  return 0;
}

/* Verify instead of trusting the calls (capget(2)). The ambient set needs no
 * separate check: a capability can only be ambient while it is also
 * permitted and inheritable (capabilities(7)), and both are verified empty. */
static int caps_empty(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  if (syscall(SYS_capget, &h, d) < 0) return 0;
  for (int i = 0; i < 2; i++)
    if (d[i].effective || d[i].permitted || d[i].inheritable) return 0;
  return 1;
}

int step_drop_caps(struct applied *a, struct cordon_err *e) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  a->bounding_dropped = drop_bounding() == 0;
  /* EINVAL: kernel without ambient capabilities (< 4.3): nothing to clear. */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
    cordon_err_set(e, "capabilities", "prctl(PR_CAP_AMBIENT)", errno);
    return -1;
  }
  if (syscall(SYS_capset, &h, d) < 0) { cordon_err_set(e, "capabilities", "capset", errno); return -1; }
  if (!(a->caps_dropped = caps_empty())) { cordon_err_set(e, "capabilities", "capget", EPERM); return -1; }
  return 0;
}

/* no_new_privs: execve can never grant privileges again (setuid bits, file
 * capabilities), and it is what lets an unprivileged process install
 * Landlock and seccomp (prctl(2), PR_SET_NO_NEW_PRIVS). */
int step_no_new_privs(struct applied *a, struct cordon_err *e) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) { cordon_err_set(e, "no-new-privs", "prctl", errno); return -1; }
  a->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
  if (!a->no_new_privs) { cordon_err_set(e, "no-new-privs", "prctl(PR_GET_NO_NEW_PRIVS)", EPERM); return -1; }
  return 0;
}
