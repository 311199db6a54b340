/*
 * seccomp.c — the syscall filter, built with libseccomp (seccomp_init(3),
 * seccomp_rule_add(3)) and loaded LAST, right before execve, so no earlier
 * step needs a syscall the filter denies.
 *
 * The rule list is data (profiles/linux/seccomp.rules, one reason per line),
 * validated on the TypeScript side and delivered in the plan. This file only
 * knows the mechanics: native arch only, rules, load.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include "launcher.h"

static enum scmp_compare to_scmp_op(int op) {
  switch (op) {
    case OP_EQ: return SCMP_CMP_EQ;
    case OP_NE: return SCMP_CMP_NE;
    case OP_MASKED_EQ: return SCMP_CMP_MASKED_EQ;
    case OP_GT: return SCMP_CMP_GT;
    default: return SCMP_CMP_LT;
  }
}

static int add_rule(scmp_filter_ctx ctx, const struct sc_rule *r, struct cordon_err *e) {
  struct scmp_arg_cmp cmp[3];
  int nr = seccomp_syscall_resolve_name(r->syscall);
  uint32_t action = r->action == SC_KILL ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO((uint32_t)r->err);
  int rc;
  /* A syscall this arch does not have (e.g. a new one on an old libseccomp)
   * cannot be called through the native ABI either: nothing to filter. */
  if (nr == __NR_SCMP_ERROR) return 0;
  for (unsigned i = 0; i < r->nargs; i++) {
    /* MASKED_EQ takes (mask, value); the other ops take (value). */
    cmp[i].arg = r->args[i].arg;
    cmp[i].op = to_scmp_op(r->args[i].op);
    cmp[i].datum_a = r->args[i].op == OP_MASKED_EQ ? r->args[i].mask : r->args[i].value;
    cmp[i].datum_b = r->args[i].op == OP_MASKED_EQ ? r->args[i].value : 0;
  }
  rc = seccomp_rule_add_array(ctx, action, nr, r->nargs, cmp);
  if (rc < 0) {
    cordon_err_set(e, "seccomp", "seccomp_rule_add", -rc);
    snprintf(e->detail, sizeof e->detail, "%s", r->syscall);
    return -1;
  }
  return 0;
}

static int configure(scmp_filter_ctx ctx, struct cordon_err *e) {
  /* Syscalls from any other ABI (32-bit `int 0x80`, x32 on x86_64) kill the
   * process: their numbers differ, so a filter written for the native table
   * would not apply to them. libseccomp only adds the native arch. */
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  /* no_new_privs was already set by the caps step; do not rely on libseccomp. */
  if (rc == 0) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
  if (rc < 0) { cordon_err_set(e, "seccomp", "seccomp_attr_set", -rc); return -1; }
  return 0;
}

int step_seccomp(const struct plan *p, struct applied *a, struct cordon_err *e) {
  scmp_filter_ctx ctx;
  int rc = 0;
  a->seccomp_rules = -1;
  if (!p->seccomp) return 0;
  if (!(ctx = seccomp_init(SCMP_ACT_ALLOW))) { cordon_err_set(e, "seccomp", "seccomp_init", ENOMEM); return -1; }
  rc = configure(ctx, e);
  for (size_t i = 0; i < p->n_sc_rules && rc == 0; i++) rc = add_rule(ctx, &p->sc_rules[i], e);
  if (rc == 0 && (rc = seccomp_load(ctx)) < 0) {
    cordon_err_set(e, "seccomp", "seccomp_load", -rc);
    rc = -1;
  }
  seccomp_release(ctx);
  if (rc == 0) a->seccomp_rules = (int)p->n_sc_rules;
  return rc;
}
