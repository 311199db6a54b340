/*
 * pty.c — a pseudo-terminal of the command's own, so that it never holds
 * the caller's terminal.
 *
 * Why: a command given the caller's terminal as fds 0–2 can change that
 * terminal for the caller even from a session of its own (setsid(2) only
 * takes away the *controlling* terminal): TCSETS turns off echo or leaves
 * any other mode behind after the run, TIOCSWINSZ resizes it, TCFLSH
 * discards what the user typed. seccomp refuses TIOCSTI and TIOCLINUX
 * (keystroke injection), not the rest of tty_ioctl(4). So when the caller's stdio is a terminal, the
 * command gets a new PTY instead, and the caller relays between the two, as
 * script(1) and `sudo --use-pty` do (src/platform/linux/launch/pty.ts).
 *
 * Two halves, one mechanism:
 *  - the addon makes the PTY (cordon_pty_open), reads and sets window
 *    sizes, and tells whether a descriptor is a terminal (cordon_tty_info);
 *  - the launcher, in the command's process before Landlock and seccomp,
 *    puts the command in a session of its own with the PTY as controlling
 *    terminal (step_ctty), so that job control, ^C, ^Z and /dev/tty work
 *    inside as in any terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cordon.h"
#include "launcher.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41) /* Linux 4.13, <asm-generic/ioctls.h> */
#endif

/* ---------- the addon's half ---------- */

/* Never 0, 1 or 2: a caller that closed one of its standard descriptors
 * would get the PTY there, and a later run with stdio 'inherit' would hand
 * it on (zygote-client.c does the same for every descriptor it makes). */
static int above_std(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 3), err = errno;
  close(fd);
  errno = err;
  return high;
}

/* The slave end, opened through the master (TIOCGPTPEER): no lookup of
 * /dev/pts/N by name, which another devpts instance (a container) or a
 * process racing the open could answer with a different terminal. Before
 * Linux 4.13, the name (ptsname(3)). O_NOCTTY: cordon's process must not
 * acquire it as its own controlling terminal should it be a session leader
 * without one. */
static int open_slave(int master) {
  int fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd >= 0 || (errno != EINVAL && errno != ENOTTY)) return fd;
  char name[64];
  if (ptsname_r(master, name, sizeof name) != 0) return -1;
  return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

/* The command's terminal starts as the caller's: the same line settings
 * (erase and interrupt characters, UTF-8 input, …) and window size, as
 * script(1) does. The slave's settings are the line discipline the command
 * sees; the caller's own terminal is put in raw mode by the relay. */
static const char *copy_terminal(int like, int master, int slave) {
  struct termios t;
  struct winsize w;
  if (tcgetattr(like, &t) < 0) return "tcgetattr";
  if (tcsetattr(slave, TCSANOW, &t) < 0) return "tcsetattr";
  if (ioctl(like, TIOCGWINSZ, &w) == 0 && ioctl(master, TIOCSWINSZ, &w) < 0) return "ioctl(TIOCSWINSZ)";
  return NULL;
}

int cordon_pty_open(int like, int fds[2], struct cordon_err *e) {
  const char *failed = NULL;
  int slave = -1;
  /* posix_openpt(3) opens /dev/ptmx. grantpt(3) has nothing to do on
   * devpts (the slave is made with the caller's uid, mode 0620). The master
   * is non-blocking: cordon's side is an event loop, and a command that
   * stops reading its terminal must not stall it on a write. */
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (master < 0) failed = "posix_openpt";
  else if (unlockpt(master) < 0) failed = "unlockpt";
  else if ((slave = open_slave(master)) < 0) failed = "open(pts)";
  else if (like >= 0) failed = copy_terminal(like, master, slave);
  if (!failed && ((master = above_std(master)) < 0 || (slave = above_std(slave)) < 0)) failed = "fcntl(F_DUPFD_CLOEXEC)";
  if (failed) {
    int err = errno;
    if (master >= 0) close(master);
    if (slave >= 0) close(slave);
    cordon_err_set(e, "terminal", failed, err);
    return -1;
  }
  fds[0] = master;
  fds[1] = slave;
  return 0;
}

/* Whether the calling process may use `fd`'s terminal now: it is not our
 * controlling terminal (tcgetpgrp(3) says ENOTTY; job control does not
 * apply), or our process group is its foreground group. A background job
 * that sets modes or reads is stopped by SIGTTOU/SIGTTIN (termios(3),
 * "Canonical and noncanonical mode"). */
static int in_foreground(int fd) {
  pid_t fg = tcgetpgrp(fd);
  return fg < 0 ? errno == ENOTTY : fg == getpgrp();
}

int cordon_tty_info(int fd, struct cordon_tty *t) {
  struct termios mode;
  struct winsize w = {0, 0, 0, 0};
  if (tcgetattr(fd, &mode) < 0) return -1; /* ENOTTY: not a terminal (isatty(3)) */
  ioctl(fd, TIOCGWINSZ, &w); /* a terminal without a size reads as 0×0 */
  t->rows = w.ws_row;
  t->cols = w.ws_col;
  t->foreground = in_foreground(fd);
  return 0;
}

/* The kernel sends SIGWINCH to the terminal's foreground group itself
 * (tty_ioctl(4), TIOCSWINSZ) when the size changes. */
int cordon_tty_set_size(int fd, unsigned rows, unsigned cols, struct cordon_err *e) {
  struct winsize w = {(unsigned short)rows, (unsigned short)cols, 0, 0};
  if (rows > 0xffff || cols > 0xffff) { cordon_err_set(e, "terminal", "ioctl(TIOCSWINSZ)", EINVAL); return -1; }
  if (ioctl(fd, TIOCSWINSZ, &w) == 0) return 0;
  cordon_err_set(e, "terminal", "ioctl(TIOCSWINSZ)", errno);
  return -1;
}

/* ---------- the launcher's half ---------- */

/*
 * In the command's process, before Landlock and seccomp (supervise.c): a
 * session of its own, and the PTY on fd `p->ctty` as its controlling
 * terminal. The command is then the terminal's foreground process group:
 * ^C typed at the caller's terminal (which the relay keeps in raw mode)
 * reaches the command as SIGINT from the PTY's line discipline, and never
 * the supervisor, which is in the launcher's session — so nothing gets a
 * signal twice, and a stray ^Z cannot stop the supervisor.
 *
 * TIOCSCTTY with argument 0 never steals a terminal that is already some
 * session's controlling terminal (EPERM; tty_ioctl(4)): the caller's own
 * terminal, were it ever passed here, is refused rather than taken.
 */
int step_ctty(const struct plan *p, struct cordon_err *e) {
  if (p->ctty < 0) return 0;
  if (setsid() < 0) { cordon_err_set(e, "terminal", "setsid", errno); return -1; }
  if (ioctl(p->ctty, TIOCSCTTY, 0) < 0) { cordon_err_set(e, "terminal", "ioctl(TIOCSCTTY)", errno); return -1; }
  return 0;
}
