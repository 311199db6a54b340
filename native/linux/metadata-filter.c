/*
 * metadata-filter.c — the command's side of Landlock mode's metadata filter
 * (metadata.h): a pre-exec step in the command's process, after Landlock and
 * before step_seccomp.
 *
 * The filter (compiled by libseccomp in the addon from the `notify` rules of
 * profiles/linux/seccomp.rules) is loaded with SECCOMP_FILTER_FLAG_NEW_LISTENER
 * (Linux 5.0), which returns the listener in this process. It goes to the
 * supervisor over a socket pair (unix(7), SCM_RIGHTS) and is closed here:
 * a command holding its own listener could answer its own calls. The order
 * matters twice: step_seccomp's filter refuses seccomp(NEW_LISTENER) — so
 * that the command can never install a listener of its own — and would
 * refuse ours too if it came first; and the kernel allows one listener per
 * filter chain (EBUSY), so once ours is in, no other can be.
 *
 * This runs in the command's process, which shares the supervisor's memory
 * until execve (supervise.c, CLONE_VM | CLONE_VFORK): only system calls and
 * this function's own stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cordon.h"
#include "launcher.h"

/* The metadata program is about fifty instructions; this bounds the copy
 * that load_refusing makes on the stack. */
#define MD_MAX_INSNS 1024

static int program_of(const struct plan *p, struct sock_fprog *prog, struct cordon_err *e) {
  size_t n = p->md_len / sizeof(struct sock_filter);
  /* A truncated or padded program is corrupt: refuse rather than load a
   * filter that is not the one planned. */
  if (p->md_len == 0 || p->md_len % sizeof(struct sock_filter) || n > MD_MAX_INSNS) {
    cordon_err_set(e, "metadata", "validate", EINVAL);
    return -1;
  }
  prog->len = (unsigned short)n;
  prog->filter = (struct sock_filter *)(void *)p->md_bpf;
  return 0;
}

/*
 * No listener can be had here: a parent sandbox's filter refuses
 * NEW_LISTENER (a cordon sandbox inside a cordon sandbox: EPERM), or the
 * chain already has a listener (a container manager's, EBUSY). Then the
 * same program is loaded with each SECCOMP_RET_USER_NOTIF turned into
 * SECCOMP_RET_ERRNO | EPERM: the calls are refused everywhere, write roots
 * included — less function, never the gap (the status record says
 * metadata: 0). libseccomp returns only constants (BPF_RET | BPF_K); a
 * computed return could not be rewritten, and is refused.
 */
static int load_refusing(const struct sock_fprog *prog, struct applied *a, struct cordon_err *e) {
  struct sock_filter copy[MD_MAX_INSNS];
  struct sock_fprog refusing = {prog->len, copy};
  for (unsigned i = 0; i < prog->len; i++) {
    copy[i] = prog->filter[i];
    if (BPF_CLASS(copy[i].code) != BPF_RET) continue;
    if (BPF_RVAL(copy[i].code) != BPF_K) { cordon_err_set(e, "metadata", "validate", EINVAL); return -1; }
    if ((copy[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF) copy[i].k = SECCOMP_RET_ERRNO | EPERM;
  }
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &refusing) < 0) {
    cordon_err_set(e, "metadata", "seccomp(SECCOMP_SET_MODE_FILTER)", errno);
    return -1;
  }
  a->metadata = 0;
  return 0;
}

static int hand_over(int listener, int sock, struct applied *a, struct cordon_err *e) {
  int rc = cordon_send_fds(sock, "L", 1, &listener, 1), saved = errno;
  close(listener);
  close(sock);
  /* The filter stays without a listener: its calls now fail ENOSYS, and
   * the launch stops here anyway. */
  if (rc < 0) { cordon_err_set(e, "metadata", "sendmsg", saved); return -1; }
  a->metadata = 1;
  return 0;
}

int step_metadata(const struct plan *p, int sock, struct applied *a, struct cordon_err *e) {
  struct sock_fprog prog;
  a->metadata = -1;
  if (!p->metadata) return 0;
  if (program_of(p, &prog, e)) return -1;
  int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (listener < 0 && (errno == EPERM || errno == EBUSY)) return load_refusing(&prog, a, e);
  if (listener < 0) { cordon_err_set(e, "metadata", "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)", errno); return -1; }
  return hand_over(listener, sock, a, e);
}
