/*
 * terminal.c — changing the terminal the probe was given as stdio.
 *
 * A command that holds its caller's terminal can change it for the caller
 * without being its controlling process: TCSETS with ECHO cleared (what the
 * user types at the shell afterwards is invisible), TIOCSWINSZ. The test
 * checks the caller's terminal afterwards; the probe only reports what it
 * did.
 *
 *   probe-terminal tamper   on every one of fds 0–2 that is a terminal:
 *                           clear ECHO (TCSETS) and set a 7×13 window
 *                           (TIOCSWINSZ); prints `OK N` (N terminals
 *                           changed) or the errno of the first refusal
 *   probe-terminal state    prints `tty=012 echo=1 size=ROWSxCOLS sid=1 fg=1`:
 *                           which of fds 0–2 are terminals, and the
 *                           first one's echo flag and size; whether the
 *                           probe leads its session and is the foreground
 *                           group of its controlling terminal
 */
#include "probe.h"
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static int cmd_tamper(char **a) {
  int changed = 0;
  (void)a;
  for (int fd = 0; fd <= 2; fd++) {
    struct termios t;
    struct winsize w = {7, 13, 0, 0};
    if (!isatty(fd)) continue;
    if (ioctl(fd, TCGETS, &t) < 0) return setup_failed("TCGETS");
    t.c_lflag &= ~(tcflag_t)ECHO;
    if (ioctl(fd, TCSETS, &t) < 0 || ioctl(fd, TIOCSWINSZ, &w) < 0) return outcome(-1);
    changed++;
  }
  printf("OK %d\n", changed);
  return 0;
}

static int cmd_state(char **a) {
  struct termios t;
  struct winsize w = {0, 0, 0, 0};
  int first = -1;
  (void)a;
  printf("tty=");
  for (int fd = 0; fd <= 2; fd++)
    if (isatty(fd)) { printf("%d", fd); if (first < 0) first = fd; }
  if (first >= 0 && tcgetattr(first, &t) == 0) printf(" echo=%d", (t.c_lflag & ECHO) != 0);
  if (first >= 0 && ioctl(first, TIOCGWINSZ, &w) == 0) printf(" size=%dx%d", w.ws_row, w.ws_col);
  printf(" sid=%d fg=%d\n", getsid(0) == getpid(), first >= 0 && tcgetpgrp(first) == getpgrp());
  return 0;
}

int main(int argc, char **argv) {
  static const struct probe_cmd cmds[] = {
    {"tamper", 0, cmd_tamper},
    {"state", 0, cmd_state},
    {NULL, 0, NULL},
  };
  return probe_main(cmds, argc, argv);
}
