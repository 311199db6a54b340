/*
 * hardening.c — harden the *calling* process (the Node process that
 * orchestrates sandboxes), per OS.
 *
 * A confined child must not be able to read its parent's memory, which holds
 * API keys and approval state: PR_SET_DUMPABLE 0 makes /proc/<pid>/mem,
 * environ and ptrace attach require CAP_SYS_PTRACE (ptrace(2), "ptrace
 * access mode checking"); RLIMIT_CORE 0 keeps a crash from writing that
 * memory to disk; LD_ and DYLD_ variables are scrubbed so every process we
 * spawn starts without an injected library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __APPLE__
#include <sys/ptrace.h>
#endif
#include "cordon.h"

extern char **environ;

static int is_loader_var(const char *kv) {
  return strncmp(kv, "LD_", 3) == 0 || strncmp(kv, "DYLD_", 5) == 0;
}

/* unsetenv while iterating environ shifts entries: restart after each hit. */
static int scrub_loader_env(void) {
  int removed = 0;
  for (int again = 1; again;) {
    again = 0;
    for (char **v = environ; v && *v; v++) {
      if (!is_loader_var(*v)) continue;
      char name[256];
      size_t n = strcspn(*v, "=");
      if (n >= sizeof name) continue;
      memcpy(name, *v, n);
      name[n] = 0;
      unsetenv(name);
      removed++;
      again = 1;
      break;
    }
  }
  return removed;
}

static int no_dump(struct cordon_err *e) {
#ifdef __linux__
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) { cordon_err_set(e, "harden", "prctl(PR_SET_DUMPABLE)", errno); return -1; }
#elif defined(__APPLE__)
  /* PT_DENY_ATTACH: no debugger may attach to this process (ptrace(2) on macOS). */
  if (ptrace(PT_DENY_ATTACH, 0, 0, 0) < 0) { cordon_err_set(e, "harden", "ptrace(PT_DENY_ATTACH)", errno); return -1; }
#endif
  return 0;
}

int cordon_harden_self(struct cordon_hardening *h, struct cordon_err *e) {
  struct rlimit zero = {0, 0};
  memset(h, 0, sizeof *h);
  if (no_dump(e) < 0) return -1;
  h->dumpable_off = 1;
  if (setrlimit(RLIMIT_CORE, &zero) < 0) { cordon_err_set(e, "harden", "setrlimit(RLIMIT_CORE)", errno); return -1; }
  h->core_zero = 1;
  h->scrubbed = scrub_loader_env();
  return 0;
}
