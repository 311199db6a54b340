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

int step_seccomp(const struct plan *p, struct applied *a, struct cordon_err *e) {
  struct sock_fprog prog;
  a->seccomp_rules = -1;
  if (!p->seccomp) return 0;
  /* A truncated or padded program is corrupt: refuse rather than load a
   * filter that is not the one the report describes. */
  if (p->sc_len == 0 || p->sc_len % sizeof(struct sock_filter) || p->sc_len / sizeof(struct sock_filter) > BPF_MAXINSNS_KERNEL) {
    cordon_err_set(e, "seccomp", "validate", EINVAL);
    return -1;
  }
  prog.len = (unsigned short)(p->sc_len / sizeof(struct sock_filter));
  prog.filter = (struct sock_filter *)(void *)p->sc_bpf;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
    cordon_err_set(e, "seccomp", "seccomp(SECCOMP_SET_MODE_FILTER)", errno);
    return -1;
  }
  a->seccomp_rules = p->sc_count;
  return 0;
}
