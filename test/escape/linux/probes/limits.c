/*
 * limits.c — resource-limit probes (threat-model.md § Resources): how many
 * processes the command can have at once, how much memory it can touch,
 * and whether a double-forked, setsid()'d process outlives the run.
 *
 *   fork N       fork N children that wait; print `OK N` when all were
 *                made, else the errno of the refused fork and how many were
 *                (`EAGAIN 61`); the children are then killed and reaped:
 *                bounded, never a real bomb.
 *   alloc MIB    touch MIB mebibytes one at a time; `OK MIB` when all were
 *                touched. Stopped by a memory limit, the OOM killer ends it
 *                (SIGKILL) — or malloc fails: `ENOMEM k`.
 *   spin MS      run a busy loop for MS milliseconds of wall-clock time;
 *                print `OK` and the milliseconds of CPU it got.
 *   join DIR     write itself ("0") into DIR/cgroup.procs: leave the run's
 *                cgroup for another one (`OK`, or the errno of open/write).
 *   daemon SECS  double fork; the grandchild calls setsid() and execs
 *                `sleep SECS` (a value the test makes unique, to find it in
 *                /proc afterwards); prints `OK` once it is running.
 */
#include "probe.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHILDREN 4096

static int cmd_fork(char **a) {
  long want = atol(a[0]);
  static pid_t kids[MAX_CHILDREN];
  long made = 0;
  int err = 0;
  if (want < 1 || want > MAX_CHILDREN) return 2;
  for (; made < want; made++) {
    pid_t pid = fork();
    if (pid == 0) { pause(); _exit(0); }
    if (pid < 0) { err = errno; break; }
    kids[made] = pid;
  }
  for (long i = 0; i < made; i++) kill(kids[i], SIGKILL);
  for (long i = 0; i < made; i++) waitpid(kids[i], NULL, 0);
  if (err) printf("%s %ld\n", strerrorname_np(err) ? strerrorname_np(err) : "EUNKNOWN", made);
  else printf("OK %ld\n", made);
  return 0;
}

static int cmd_alloc(char **a) {
  long mib = atol(a[0]);
  for (long i = 0; i < mib; i++) {
    char *p = malloc(1 << 20);
    if (!p) { printf("ENOMEM %ld\n", i); return 0; }
    memset(p, 0x5a, 1 << 20); /* touched: resident, charged to the cgroup */
  }
  printf("OK %ld\n", mib);
  return 0;
}

static int cmd_daemon(char **a) {
  int ready[2];
  if (pipe(ready) < 0) return setup_failed("pipe");
  pid_t child = fork();
  if (child < 0) return setup_failed("fork");
  if (child == 0) {
    if (fork() != 0) _exit(0); /* the middle process exits: the grandchild is orphaned */
    setsid();                  /* and leaves the command's session and process group */
    close(ready[0]);
    if (write(ready[1], "x", 1) != 1) _exit(1);
    close(ready[1]);
    /* As a daemon does: nothing ties it to the caller's pipes (an unconfined
     * run's output would otherwise stay open as long as it sleeps). */
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
    execlp("sleep", "sleep", a[0], (char *)NULL);
    _exit(127);
  }
  close(ready[1]);
  waitpid(child, NULL, 0);
  char c;
  ssize_t n = read(ready[0], &c, 1);
  return outcome(n == 1 ? 0 : -1);
}

static long now_ms(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static int cmd_spin(char **a) {
  long ms = atol(a[0]);
  long start = now_ms(CLOCK_MONOTONIC);
  volatile unsigned long x = 0;
  while (now_ms(CLOCK_MONOTONIC) - start < ms) x++;
  printf("OK %ld\n", now_ms(CLOCK_PROCESS_CPUTIME_ID));
  return 0;
}

static int cmd_join(char **a) {
  char path[4096];
  snprintf(path, sizeof path, "%s/cgroup.procs", a[0]);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return outcome(-1);
  long rc = write(fd, "0", 1);
  close(fd);
  return outcome(rc == 1 ? 0 : -1);
}

static const struct probe_cmd cmds[] = {
  {"join", 1, cmd_join},
  {"spin", 1, cmd_spin},
  {"fork", 1, cmd_fork},
  {"alloc", 1, cmd_alloc},
  {"daemon", 1, cmd_daemon},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
