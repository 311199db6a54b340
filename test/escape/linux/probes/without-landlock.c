/*
 * without-landlock PROGRAM [ARG...]: runs PROGRAM where the kernel seems to
 * have no Landlock — landlock_create_ruleset, landlock_add_rule and
 * landlock_restrict_self (444–446 on every architecture since the syscall
 * table was unified) fail with ENOSYS, as on a kernel built without
 * CONFIG_SECURITY_LANDLOCK. A fault injector, not a probe: it lets the
 * tests see what cordon does on such a host (seccomp(2), "SECCOMP_RET_ERRNO").
 * The filter is inherited by everything PROGRAM starts, the launcher included.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2),
    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (argc < 2) {
    fprintf(stderr, "usage: without-landlock PROGRAM [ARG...]\n");
    return 2;
  }
  /* An unprivileged caller may install a filter only with no_new_privs set. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("without-landlock: seccomp");
    return 125;
  }
  execvp(argv[1], argv + 1);
  perror("without-landlock: execvp");
  return 127;
}
