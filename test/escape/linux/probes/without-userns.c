/*
 * without-userns PROGRAM [ARG...]: runs PROGRAM under a seccomp filter that
 * refuses new user namespaces — unshare(2) and clone(2) with CLONE_NEWUSER
 * fail with EPERM, clone3(2) with ENOSYS (its flags live in memory a filter
 * cannot read; libc then falls back to clone) — as a parent sandbox or a
 * container runtime does. A fault injector, not a probe: it is how a caller
 * that probed namespace mode once finds itself somewhere they no longer work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG0_LOW offsetof(struct seccomp_data, args[0])

int main(int argc, char **argv) {
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
    /* CLONE_NEWUSER is in the low 32 bits of the flags (x86-64 little endian). */
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (argc < 2) {
    fprintf(stderr, "usage: without-userns PROGRAM [ARG...]\n");
    return 2;
  }
  /* An unprivileged caller may install a filter only with no_new_privs set. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("without-userns: seccomp");
    return 125;
  }
  execvp(argv[1], argv + 1);
  perror("without-userns: execvp");
  return 127;
}
