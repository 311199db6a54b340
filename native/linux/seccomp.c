/*
 * seccomp.c — install the syscall filter, LAST, right before execve, so no
 * earlier step needs a syscall the filter denies.
 *
 * The program was compiled by libseccomp in the addon (seccomp-compile.c)
 * from profiles/linux/seccomp.rules and arrives in the plan as base64. This
 * step only validates its shape and loads it (seccomp(2),
 * SECCOMP_SET_MODE_FILTER; no_new_privs is already set by then).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "launcher.h"

#define BPF_MAXINSNS_KERNEL 4096 /* BPF_MAXINSNS in linux/bpf_common.h */

/* Load a compiled program; 0, or -1 with `e` naming `step`. */
int cordon_seccomp_load(const uint8_t *bpf, size_t len, const char *step, struct cordon_err *e) {
  struct sock_fprog prog;
  /* A truncated or padded program is corrupt: refuse rather than load a
   * filter that is not the one the report describes. */
  if (len == 0 || len % sizeof(struct sock_filter) || len / sizeof(struct sock_filter) > BPF_MAXINSNS_KERNEL) {
    cordon_err_set(e, step, "validate", EINVAL);
    return -1;
  }
  prog.len = (unsigned short)(len / sizeof(struct sock_filter));
  prog.filter = (struct sock_filter *)(void *)bpf;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
    cordon_err_set(e, step, "seccomp(SECCOMP_SET_MODE_FILTER)", errno);
    return -1;
  }
  return 0;
}

int step_seccomp(const struct plan *p, struct applied *a, struct cordon_err *e) {
  a->seccomp_rules = -1;
  if (!p->seccomp) return 0;
  if (cordon_seccomp_load(p->sc_bpf, p->sc_len, "seccomp", e)) return -1;
  a->seccomp_rules = p->sc_count;
  return 0;
}
