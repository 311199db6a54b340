/*
 * kernel.c — kernel-surface and syscall-filter bypass attempts: io_uring,
 * the 32-bit and x32 syscall ABIs, clone3, bpf, perf, userfaultfd, keyrings,
 * personality flags, kexec/module loading and a seccomp listener.
 * Where a call would need privilege the test identity lacks, a variant with
 * arguments the kernel rejects *before* any privilege check (EINVAL, EFAULT)
 * shows whether an EPERM came from the filter or from the kernel.
 */
#include "probe.h"
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmd_io_uring(char **a) {
  struct io_uring_params p;
  (void)a;
  memset(&p, 0, sizeof p);
  return outcome(syscall(SYS_io_uring_setup, 4, &p));
}

/* getpid through the i386 entry (`int $0x80`, i386 number 20): a filter
 * written for the x86_64 table must not let it through (arch check). */
static int cmd_int80(char **a) {
  long ret;
  (void)a;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "r8", "r9", "r10", "r11");
  if (ret == getpid()) printf("OK\n");
  else { errno = (int)-ret; outcome(-1); }
  return 0;
}

/* getpid with the x32 bit set: same arch token, a different table. */
static int cmd_x32(char **a) {
  (void)a;
  return outcome(syscall(SYS_getpid | 0x40000000));
}

static int reap(long pid) {
  int status = 0;
  if (pid == 0) _exit(0);
  if (pid > 0 && (waitpid((pid_t)pid, &status, 0) < 0 || !WIFEXITED(status))) return setup_failed("waitpid");
  return outcome(pid);
}

/* clone3 with a fork-like argument block (CLONE_ARGS_SIZE_VER0 = 64 bytes). */
static int cmd_clone3(char **a) {
  uint64_t args[8] = {0};
  (void)a;
  args[4] = SIGCHLD; /* exit_signal */
  return reap(syscall(SYS_clone3, args, sizeof args));
}

static int cmd_fork(char **a) {
  (void)a;
  return reap(fork());
}

static void *thread_body(void *arg) { return arg; }

/* glibc tries clone3 for threads and falls back to clone(2) on ENOSYS. */
static int cmd_thread(char **a) {
  pthread_t t;
  (void)a;
  int rc = pthread_create(&t, NULL, thread_body, NULL);
  if (rc == 0) pthread_join(t, NULL);
  errno = rc;
  return outcome(rc == 0 ? 0 : -1);
}

static int cmd_bpf(char **a) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 4;
  attr.max_entries = 1;
  /* "invalid": a command number the kernel does not know → EINVAL. */
  int cmd = strcmp(a[0], "invalid") == 0 ? 9999 : BPF_MAP_CREATE;
  return outcome(syscall(SYS_bpf, cmd, &attr, sizeof attr));
}

/* Count this process's own user-space task clock: allowed to everyone at
 * perf_event_paranoid <= 2. "invalid": a NULL attr → EFAULT. */
static int cmd_perf(char **a) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return outcome(syscall(SYS_perf_event_open, strcmp(a[0], "invalid") == 0 ? NULL : &attr, 0, -1, -1, 0));
}

/* UFFD_USER_MODE_ONLY (1): allowed unprivileged whatever vm.unprivileged_userfaultfd says. */
static int cmd_userfaultfd(char **a) {
  (void)a;
  return outcome(syscall(SYS_userfaultfd, O_CLOEXEC | 1));
}

#define KEY_SPEC_PROCESS_KEYRING (-2)
#define KEY_SPEC_SESSION_KEYRING (-3)

static int cmd_keyctl(char **a) {
  (void)a;
  return outcome(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, KEY_SPEC_SESSION_KEYRING, 0));
}

static long add_probe_key(void) {
  return syscall(SYS_add_key, "user", "cordon-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING);
}

static int cmd_add_key(char **a) {
  (void)a;
  return outcome(add_probe_key());
}

static int cmd_request_key(char **a) {
  (void)a;
  add_probe_key(); /* so the request finds it when nothing filters */
  return outcome(syscall(SYS_request_key, "user", "cordon-probe", NULL, KEY_SPEC_PROCESS_KEYRING));
}

static int cmd_personality(char **a) {
  return outcome(syscall(SYS_personality, strtoul(a[0], NULL, 0)));
}

/* More segments than KEXEC_SEGMENT_MAX and unknown flags: EINVAL (or ENOSYS
 * without CONFIG_KEXEC) for root; nothing is ever loaded or unloaded. */
static int cmd_kexec(char **a) {
  (void)a;
  return outcome(syscall(SYS_kexec_load, 0UL, 1000UL, NULL, 0xdead0000UL));
}

/* An empty image: ENOEXEC/EFAULT (or ENOSYS without CONFIG_MODULES) for root. */
static int cmd_init_module(char **a) {
  (void)a;
  return outcome(syscall(SYS_init_module, NULL, 0UL, ""));
}

/* Install an allow-everything filter with a user-notification listener. */
static int cmd_seccomp_listener(char **a) {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  (void)a;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return setup_failed("no_new_privs");
  return outcome(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
}

static const struct probe_cmd cmds[] = {
  {"io-uring", 0, cmd_io_uring},
  {"int80", 0, cmd_int80},
  {"x32", 0, cmd_x32},
  {"clone3", 0, cmd_clone3},
  {"fork", 0, cmd_fork},
  {"thread", 0, cmd_thread},
  {"bpf", 1, cmd_bpf},
  {"perf", 1, cmd_perf},
  {"userfaultfd", 0, cmd_userfaultfd},
  {"keyctl", 0, cmd_keyctl},
  {"add-key", 0, cmd_add_key},
  {"request-key", 0, cmd_request_key},
  {"personality", 1, cmd_personality},
  {"kexec", 0, cmd_kexec},
  {"init-module", 0, cmd_init_module},
  {"seccomp-listener", 0, cmd_seccomp_listener},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
