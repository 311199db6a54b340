/*
 * procs.c — process and privilege escape attempts: reaching the parent
 * (ptrace, process_vm_readv, /proc/<pid>/mem|environ), signalling an outside
 * process, reading the capability/no_new_privs state, inherited fds,
 * rlimits, the session, TIOCSTI, and the mount/namespace calls.
 *
 * Calls that need privilege first take it the way the identity can: root
 * enters a private mount namespace, an unprivileged user a new user
 * namespace too, so an unconfined run succeeds without touching host mounts.
 * Inside the sandbox that preparation fails and the call under test is
 * still attempted, so its own denial is what gets printed.
 */
#include "probe.h"
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void gain_privilege(void) {
  int flags = CLONE_NEWNS | CLONE_NEWUTS;
  if (geteuid() != 0) flags |= CLONE_NEWUSER;
  /* Private propagation first: nothing mounted below may reach the host. */
  if (unshare(flags) == 0) mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* "comm" of a process, or "" when it cannot be read. */
static void comm_of(pid_t pid, char *out, size_t n) {
  char path[64];
  out[0] = 0;
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "re");
  if (f) { if (!fgets(out, (int)n, f)) out[0] = 0; fclose(f); }
  out[strcspn(out, "\n")] = 0;
}

static pid_t ppid_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = 0;
  char *close_paren = strrchr(buf, ')');
  int ppid = 0;
  if (!close_paren || sscanf(close_paren + 2, "%*c %d", &ppid) != 1) return 0;
  return ppid;
}

/* The process that asked cordon to run us: our parent when unconfined; the
 * parent of cordon's supervisor when confined (0 when it is not visible,
 * as from inside a pid namespace). */
static pid_t caller_pid(void) {
  char comm[32];
  pid_t parent = getppid();
  comm_of(parent, comm, sizeof comm);
  return strcmp(comm, "cordon-launcher") == 0 ? ppid_of(parent) : parent;
}

static int cmd_ptrace_parent(char **a) {
  (void)a;
  return outcome(ptrace(PTRACE_SEIZE, caller_pid(), 0, 0)); /* no stop: detached at exit */
}

/* Address of the parent's first mapping when /proc says it, else a guess. */
static unsigned long parent_address(void) {
  char path[64];
  unsigned long addr = 0x10000;
  snprintf(path, sizeof path, "/proc/%d/maps", (int)caller_pid());
  FILE *f = fopen(path, "re");
  if (f) { if (fscanf(f, "%lx", &addr) != 1) addr = 0x10000; fclose(f); }
  return addr;
}

static int cmd_vmread_parent(char **a) {
  char buf[8];
  (void)a;
  struct iovec local = {buf, sizeof buf}, remote = {(void *)parent_address(), sizeof buf};
  return outcome(process_vm_readv(caller_pid(), &local, 1, &remote, 1, 0));
}

/* Set the caller's RLIMIT_NOFILE to what it is now (its own values when
 * they cannot be read): harmless unconfined, while a real attack sets CPU to
 * one second and kills the caller. */
static int cmd_prlimit_parent(char **a) {
  struct rlimit cur;
  /* Namespace mode hides the caller (its pid reads as 0, which would mean
   * "myself"): the supervisor, the nearest process outside the command, is
   * the target there. */
  pid_t target = caller_pid() > 0 ? caller_pid() : getppid();
  (void)a;
  if (prlimit(target, RLIMIT_NOFILE, NULL, &cur) < 0) getrlimit(RLIMIT_NOFILE, &cur);
  return outcome(prlimit(target, RLIMIT_NOFILE, &cur, NULL));
}

static int cmd_proc_parent(char **a) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)caller_pid(), a[0]);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return outcome(-1);
  char buf[64];
  long rc = strcmp(a[0], "mem") == 0 ? 0 : read(fd, buf, sizeof buf); /* mem: opening is the attack */
  close(fd);
  return outcome(rc); /* never print the content: it holds the parent's secrets */
}

static int cmd_kill(char **a) { return outcome(kill((pid_t)atoi(a[0]), SIGTERM)); }

/* SIGCONT to our direct parent: harmless to a running process, but a
 * permission check like any signal. Confined, the parent is cordon's
 * supervisor, which the command must not be able to kill. */
static int cmd_signal_parent(char **a) {
  (void)a;
  return outcome(kill(getppid(), SIGCONT));
}

/* `OK CapInh=… CapPrm=… CapEff=… CapBnd=… CapAmb=… NoNewPrivs=…` */
static int cmd_status(char **a) {
  char line[256], key[32], val[64];
  (void)a;
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return setup_failed("status");
  printf("OK");
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%31[^:]:%63s", key, val) == 2 && (strncmp(key, "Cap", 3) == 0 || strcmp(key, "NoNewPrivs") == 0))
      printf(" %s=%s", key, val);
  printf("\n");
  fclose(f);
  return 0;
}

static int cmd_fd(char **a) { return outcome(fcntl(atoi(a[0]), F_GETFD)); }

static void print_limit(const char *name, int resource) {
  struct rlimit r;
  getrlimit(resource, &r);
  printf(" %s=", name);
  if (r.rlim_cur == RLIM_INFINITY) printf("inf/"); else printf("%llu/", (unsigned long long)r.rlim_cur);
  if (r.rlim_max == RLIM_INFINITY) printf("inf"); else printf("%llu", (unsigned long long)r.rlim_max);
}

static int cmd_rlimit(char **a) {
  (void)a;
  printf("OK");
  print_limit("core", RLIMIT_CORE);
  print_limit("nofile", RLIMIT_NOFILE);
  printf("\n");
  return 0;
}

/* OK when our session is a new one cordon made (its leader is us or cordon's
 * supervisor): no controlling terminal of the caller to inject into. */
static int cmd_sid(char **a) {
  char comm[32];
  pid_t sid = getsid(0);
  (void)a;
  comm_of(sid, comm, sizeof comm);
  printf(sid == getpid() || strcmp(comm, "cordon-launcher") == 0 ? "OK\n" : "NOTLEADER\n");
  return 0;
}

/* A terminal of our own to inject into: a new pty made our controlling tty.
 * Where no pty can be opened (the sandbox cannot write /dev/ptmx), /dev/null
 * stands in: the kernel would answer ENOTTY, the filter answers EPERM. */
static int own_tty(void) {
  int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;
  if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
    setsid(); /* fails harmlessly when already a session leader */
    if ((s = open(ptsname(m), O_RDWR | O_CLOEXEC)) >= 0) {
      ioctl(s, TIOCSCTTY, 0);
      return s;
    }
  }
  return open("/dev/null", O_RDWR | O_CLOEXEC);
}

/* TIOCSTI, optionally with junk in the upper 32 bits of the request: the
 * kernel truncates the command to 32 bits, so the filter must too. */
static int cmd_tiocsti(char **a) {
  unsigned long req = strcmp(a[0], "high") == 0 ? 0xdeadbeef00005412UL : 0x5412UL;
  char c = ' ';
  return outcome(syscall(SYS_ioctl, own_tty(), req, &c));
}

static int cmd_mount(char **a) {
  gain_privilege();
  long rc = mount("none", a[0], "tmpfs", 0, "size=16k");
  if (rc == 0) umount2(a[0], MNT_DETACH);
  return outcome(rc);
}

static int cmd_umount(char **a) {
  gain_privilege();
  mount("none", a[0], "tmpfs", 0, "size=16k"); /* refused in the sandbox: umount is still tried */
  return outcome(umount2(a[0], 0));
}

static int cmd_pivot_root(char **a) {
  gain_privilege();
  mount("none", a[0], "tmpfs", 0, "size=16k");
  if (chdir(a[0]) < 0) return setup_failed("chdir");
  return outcome(syscall(SYS_pivot_root, ".", "."));
}

static int cmd_chroot(char **a) {
  gain_privilege();
  return outcome(chroot(a[0]));
}

static int cmd_fsopen(char **a) {
  (void)a;
  gain_privilege();
  return outcome(syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */));
}

static int cmd_open_tree(char **a) {
  gain_privilege();
  return outcome(syscall(SYS_open_tree, AT_FDCWD, a[0], 1 /* OPEN_TREE_CLONE */ | O_CLOEXEC));
}

/* open_tree_attr(2) (Linux 6.15): open_tree with mount attributes; NULL attributes = open_tree. */
static int cmd_open_tree_attr(char **a) {
  gain_privilege();
  return outcome(syscall(467, AT_FDCWD, a[0], 1 /* OPEN_TREE_CLONE */ | O_CLOEXEC, NULL, 0));
}

static int cmd_unshare_user(char **a) {
  (void)a;
  return outcome(unshare(CLONE_NEWUSER));
}

/* clone(2) with CLONE_NEWUSER; x86_64 takes the flags in the first argument. */
static int cmd_clone_user(char **a) {
  (void)a;
  long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid((pid_t)pid, NULL, 0);
  return outcome(pid);
}

static int cmd_setns(char **a) {
  (void)a;
  gain_privilege();
  int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return setup_failed("open-ns");
  return outcome(setns(fd, CLONE_NEWUTS));
}

static const struct probe_cmd cmds[] = {
  {"ptrace-parent", 0, cmd_ptrace_parent},
  {"vmread-parent", 0, cmd_vmread_parent},
  {"prlimit-parent", 0, cmd_prlimit_parent},
  {"proc-parent", 1, cmd_proc_parent},
  {"kill", 1, cmd_kill},
  {"signal-parent", 0, cmd_signal_parent},
  {"status", 0, cmd_status},
  {"fd", 1, cmd_fd},
  {"rlimit", 0, cmd_rlimit},
  {"sid", 0, cmd_sid},
  {"tiocsti", 1, cmd_tiocsti},
  {"mount", 1, cmd_mount},
  {"umount", 1, cmd_umount},
  {"pivot-root", 1, cmd_pivot_root},
  {"chroot", 1, cmd_chroot},
  {"fsopen", 0, cmd_fsopen},
  {"open-tree", 1, cmd_open_tree},
  {"open-tree-attr", 1, cmd_open_tree_attr},
  {"unshare-user", 0, cmd_unshare_user},
  {"clone-user", 0, cmd_clone_user},
  {"setns", 0, cmd_setns},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
