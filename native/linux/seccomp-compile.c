/*
 * seccomp-compile.c — compile cordon's seccomp rules to a BPF program with
 * libseccomp (seccomp_init(3), seccomp_rule_add(3), seccomp_export_bpf(3)),
 * in the *addon*, once per rule set.
 *
 * Why here and not in the launcher: libseccomp's compiler takes milliseconds
 * for cordon's ~60 rules, several times the whole per-spawn budget. The
 * launcher loads the finished program with seccomp(2) instead; the program
 * is the same bytes libseccomp would have loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cordon.h"

static enum scmp_compare to_scmp_op(int op) {
  switch (op) {
    case CORDON_OP_EQ: return SCMP_CMP_EQ;
    case CORDON_OP_NE: return SCMP_CMP_NE;
    case CORDON_OP_MASKED_EQ: return SCMP_CMP_MASKED_EQ;
    case CORDON_OP_GT: return SCMP_CMP_GT;
    default: return SCMP_CMP_LT;
  }
}

/* Syscalls newer than the libseccomp cordon links (Debian 12's 2.5.4 knows
 * nothing past Linux 6.7). Leaving one out would leave it open: setxattrat
 * sets an extended attribute as setxattr does, past a filter that names
 * only setxattr. Since Linux 5.1 (pidfd_send_signal, 424) a new syscall gets
 * the same number on every architecture but alpha (the "unified" numbering
 * of asm-generic/unistd.h and syscall_64.tbl), so one number serves every
 * architecture cordon builds for. */
static const struct { const char *name; int nr; } newer_syscalls[] = {
  {"setxattrat", 463},    /* Linux 6.13 */
  {"removexattrat", 466}, /* Linux 6.13 */
  {"open_tree_attr", 467}, /* Linux 6.15: open_tree(2) with mount attributes */
  {"file_setattr", 469},   /* Linux 6.17: chattr-style attribute flags by path */
};

static int resolve_syscall(const char *name) {
  int nr = seccomp_syscall_resolve_name(name);
  for (size_t i = 0; nr == __NR_SCMP_ERROR && i < sizeof newer_syscalls / sizeof *newer_syscalls; i++)
    if (strcmp(newer_syscalls[i].name, name) == 0) nr = newer_syscalls[i].nr;
  return nr;
}

static uint32_t action_of(const struct cordon_sc_rule *r) {
  if (r->kill) return SCMP_ACT_KILL_PROCESS;
  /* The metadata filter: the launcher's supervisor answers (seccomp_unotify(2)). */
  if (r->notify) return SCMP_ACT_NOTIFY;
  return SCMP_ACT_ERRNO((uint32_t)r->err);
}

static int add_rule(scmp_filter_ctx ctx, const struct cordon_sc_rule *r, struct cordon_err *e) {
  struct scmp_arg_cmp cmp[3];
  int nr = resolve_syscall(r->syscall);
  uint32_t action = action_of(r);
  /* A name this libseccomp does not know is a rules-file error, not a rule
   * to skip: skipping would leave that syscall open while the report says
   * it is filtered (fail closed). */
  if (nr == __NR_SCMP_ERROR) {
    cordon_err_set(e, "seccomp", "seccomp_syscall_resolve_name", EINVAL);
    snprintf(e->detail, sizeof e->detail, "%s", r->syscall);
    return -1;
  }
  for (unsigned i = 0; i < r->nargs; i++) {
    /* MASKED_EQ takes (mask, value); the other ops take (value). */
    cmp[i].arg = r->args[i].arg;
    cmp[i].op = to_scmp_op(r->args[i].op);
    cmp[i].datum_a = r->args[i].op == CORDON_OP_MASKED_EQ ? r->args[i].mask : r->args[i].value;
    cmp[i].datum_b = r->args[i].op == CORDON_OP_MASKED_EQ ? r->args[i].value : 0;
  }
  int rc = seccomp_rule_add_array(ctx, action, nr, r->nargs, cmp);
  if (rc < 0) {
    cordon_err_set(e, "seccomp", "seccomp_rule_add", -rc);
    snprintf(e->detail, sizeof e->detail, "%s", r->syscall);
    return -1;
  }
  return 0;
}

/* Syscalls from any other ABI (32-bit `int 0x80`, x32 on x86_64) kill the
 * process: their numbers differ, so a filter written for the native table
 * would not apply to them. libseccomp only adds the native arch. */
static int configure(scmp_filter_ctx ctx, struct cordon_err *e) {
  /* libseccomp accepts SCMP_ACT_NOTIFY only when it finds user
   * notification in this process: it tries seccomp(NEW_LISTENER) here,
   * which a parent cordon sandbox refuses (EPERM), and would then fail
   * the whole compile. The program is only exported, never loaded by
   * libseccomp, so tell it the API level instead (5: notify, Linux 5.0;
   * Landlock mode needs 5.13 anyway). */
  if (seccomp_api_get() < 5) seccomp_api_set(5);
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc < 0) { cordon_err_set(e, "seccomp", "seccomp_attr_set", -rc); return -1; }
  return 0;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* Linux 6.3, <linux/memfd.h> */
#endif

/* seccomp_export_bpf writes to an fd: use an anonymous memory file. A
 * non-executable one where the kernel has them (Linux 6.3): inside a cordon
 * sandbox (a nested run) the filter refuses executable memfds with ENOSYS
 * (seccomp.rules), and vm.memfd_noexec=2 hosts refuse them too, as for the
 * plan's memfd (zygote-client.c). */
static int export_bpf(scmp_filter_ctx ctx, uint8_t **out, size_t *len, struct cordon_err *e) {
  int fd = memfd_create("cordon-bpf", MFD_CLOEXEC | MFD_NOEXEC_SEAL), rc;
  if (fd < 0 && errno == EINVAL) fd = memfd_create("cordon-bpf", MFD_CLOEXEC);
  off_t size;
  if (fd < 0) { cordon_err_set(e, "seccomp", "memfd_create", errno); return -1; }
  if ((rc = seccomp_export_bpf(ctx, fd)) < 0) { close(fd); cordon_err_set(e, "seccomp", "seccomp_export_bpf", -rc); return -1; }
  size = lseek(fd, 0, SEEK_END);
  *out = size > 0 ? malloc((size_t)size) : NULL;
  if (!*out || pread(fd, *out, (size_t)size, 0) != size) {
    free(*out);
    close(fd);
    cordon_err_set(e, "seccomp", "pread", errno ? errno : EIO);
    return -1;
  }
  *len = (size_t)size;
  close(fd);
  return 0;
}

int cordon_seccomp_compile(const struct cordon_sc_rule *rules, size_t n, uint8_t **out, size_t *len, struct cordon_err *e) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  int rc;
  if (!ctx) { cordon_err_set(e, "seccomp", "seccomp_init", ENOMEM); return -1; }
  rc = configure(ctx, e);
  for (size_t i = 0; i < n && rc == 0; i++) rc = add_rule(ctx, &rules[i], e);
  if (rc == 0) rc = export_bpf(ctx, out, len, e);
  seccomp_release(ctx);
  return rc;
}
