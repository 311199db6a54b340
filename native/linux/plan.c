/*
 * plan.c — turn the JSON plan into `struct plan`.
 *
 * Unknown keys are an error, not ignored: if a newer TypeScript side asks for
 * a protection this launcher does not know, silently skipping it would be an
 * unconfined run that the report claims is confined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "cordon-wire.h"
#include "launcher.h"

static int bad(struct cordon_err *e, const char *what) {
  cordon_err_set(e, "plan", "parse", EINVAL);
  strncpy(e->detail, what, sizeof e->detail - 1);
  return -1;
}

static int only_keys(const struct json *obj, const char *const *allowed, struct cordon_err *e) {
  for (const struct json *c = obj->child; c; c = c->next) {
    int ok = 0;
    for (const char *const *k = allowed; *k; k++) ok |= strcmp(*k, c->key) == 0;
    if (!ok) return bad(e, c->key);
  }
  return 0;
}

static char **string_array(const struct json *arr, int allow_empty) {
  size_t n = json_len(arr), i = 0;
  char **out;
  if (!arr || arr->type != J_ARR || (!allow_empty && n == 0)) return NULL;
  out = calloc(n + 1, sizeof *out);
  for (const struct json *c = arr->child; out && c; c = c->next) {
    if (c->type != J_STR) { free(out); return NULL; }
    out[i++] = c->str;
  }
  return out;
}

static int get_bool(const struct json *o, const char *k, int dflt) {
  const struct json *v = json_get(o, k);
  return v && v->type == J_BOOL ? v->boolean : dflt;
}

/* 64-bit masks travel as hex strings: a JSON number (a double) would lose
 * precision above 2^53 and silently change a seccomp comparison. */
static int get_u64(const struct json *o, const char *k, uint64_t *out) {
  const struct json *v = json_get(o, k);
  char *end;
  if (!v) return 0;
  if (v->type != J_STR) return -1;
  errno = 0;
  *out = strtoull(v->str, &end, 0);
  return (errno || *end || end == v->str) ? -1 : 0;
}

static int rlimit_resource(const char *name) {
  static const struct { const char *n; int r; } map[] = {
    {"core", RLIMIT_CORE}, {"nproc", RLIMIT_NPROC}, {"nofile", RLIMIT_NOFILE},
    {"fsize", RLIMIT_FSIZE}, {"as", RLIMIT_AS}, {"cpu", RLIMIT_CPU},
    {"stack", RLIMIT_STACK}, {"memlock", RLIMIT_MEMLOCK}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(map[i].n, name) == 0) return map[i].r;
  return -1;
}

static int parse_rlimits(const struct json *arr, struct plan *p, struct cordon_err *e) {
  if (!arr) return 0;
  if (arr->type != J_ARR || json_len(arr) > 8) return bad(e, "rlimits");
  for (const struct json *c = arr->child; c; c = c->next) {
    const struct json *n = json_get(c, "resource");
    struct rlim *r = &p->rlimits[p->n_rlimits++];
    if (!n || n->type != J_STR || (r->resource = rlimit_resource(n->str)) < 0) return bad(e, "rlimits.resource");
    if (get_u64(c, "soft", &r->soft) || get_u64(c, "hard", &r->hard)) return bad(e, "rlimits.value");
  }
  return 0;
}

static unsigned access_bits(const struct json *arr) {
  unsigned bits = 0;
  for (const struct json *c = arr ? arr->child : NULL; c; c = c->next) {
    if (c->type != J_STR) return 0;
    if (!strcmp(c->str, "read")) bits |= ACC_READ;
    else if (!strcmp(c->str, "write")) bits |= ACC_WRITE;
    else if (!strcmp(c->str, "dev")) bits |= ACC_DEV;
    else if (!strcmp(c->str, "exec")) bits |= ACC_EXEC;
    else return 0;
  }
  return bits;
}

/* The network proxy's port(s): the only TCP connects Landlock lets through. */
static int parse_connect_ports(const struct json *ports, struct plan *p, struct cordon_err *e) {
  if (!ports) return 0;
  if (ports->type != J_ARR || json_len(ports) > sizeof p->ll_connect_ports / sizeof p->ll_connect_ports[0]) return bad(e, "landlock.connectPorts");
  for (const struct json *c = ports->child; c; c = c->next) {
    if (c->type != J_NUM || c->num < 1 || c->num > 65535 || c->num != (int)c->num) return bad(e, "landlock.connectPorts");
    p->ll_connect_ports[p->n_ll_connect_ports++] = (int)c->num;
  }
  return 0;
}

static int parse_landlock(const struct json *ll, struct plan *p, struct cordon_err *e) {
  static const char *const keys[] = {"rules", "networkOff", "connectPorts", "scopeSignal", "scopeAbstractUnix", "log", NULL};
  const struct json *rules;
  size_t i = 0;
  if (!ll || ll->type == J_NULL) return 0;
  if (ll->type != J_OBJ) return bad(e, "landlock");
  if (only_keys(ll, keys, e)) return -1;
  rules = json_get(ll, "rules");
  if (!rules || rules->type != J_ARR) return bad(e, "landlock.rules");
  p->landlock = 1;
  p->n_ll_rules = json_len(rules);
  p->ll_rules = calloc(p->n_ll_rules + 1, sizeof *p->ll_rules);
  for (const struct json *c = rules->child; c; c = c->next, i++) {
    const struct json *path = json_get(c, "path");
    if (!path || path->type != J_STR || path->str[0] != '/') return bad(e, "landlock.rules.path");
    p->ll_rules[i].path = path->str;
    if (!(p->ll_rules[i].access = access_bits(json_get(c, "access")))) return bad(e, "landlock.rules.access");
  }
  p->ll_network_off = get_bool(ll, "networkOff", 1);
  if (parse_connect_ports(json_get(ll, "connectPorts"), p, e)) return -1;
  p->ll_scope_signal = get_bool(ll, "scopeSignal", 1);
  p->ll_scope_abstract_unix = get_bool(ll, "scopeAbstractUnix", 1);
  p->ll_log = get_bool(ll, "log", 1);
  return 0;
}

static int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Strict base64 (RFC 4648, padded): any stray byte fails the plan. */
static int b64_decode(const char *in, uint8_t **out, size_t *len) {
  size_t n = strlen(in), o = 0;
  if (n % 4) return -1;
  *out = malloc(n / 4 * 3 + 1);
  for (size_t i = 0; *out && i < n; i += 4) {
    int v[4];
    for (int k = 0; k < 4; k++) v[k] = in[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64_value(in[i + k]);
    if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0) return -1;
    uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    (*out)[o++] = (uint8_t)(w >> 16);
    if (in[i + 2] != '=') (*out)[o++] = (uint8_t)(w >> 8);
    if (in[i + 3] != '=') (*out)[o++] = (uint8_t)w;
  }
  *len = o;
  return *out ? 0 : -1;
}

/* A compiled filter, { bpf: base64, rules: N }: 1 when present, 0 absent, -1 malformed. */
static int parse_program(const struct json *sc, const char *name, uint8_t **bpf_out, size_t *len, int *n,
                         struct cordon_err *e) {
  static const char *const keys[] = {"bpf", "rules", NULL};
  char what[32];
  if (!sc || sc->type == J_NULL) return 0;
  if (sc->type != J_OBJ) return bad(e, name);
  if (only_keys(sc, keys, e)) return -1;
  const struct json *bpf = json_get(sc, "bpf"), *count = json_get(sc, "rules");
  snprintf(what, sizeof what, "%s.bpf", name);
  if (!bpf || bpf->type != J_STR || b64_decode(bpf->str, bpf_out, len)) return bad(e, what);
  snprintf(what, sizeof what, "%s.rules", name);
  if (!count || count->type != J_NUM) return bad(e, what);
  *n = (int)count->num;
  return 1;
}

static int parse_seccomp(const struct json *root, struct plan *p, struct cordon_err *e) {
  int rc = parse_program(json_get(root, "seccomp"), "seccomp", &p->sc_bpf, &p->sc_len, &p->sc_count, e);
  if (rc < 0) return -1;
  p->seccomp = rc;
  /* Landlock mode's metadata filter (metadata.h): absent in namespace mode. */
  rc = parse_program(json_get(root, "metadata"), "metadata", &p->md_bpf, &p->md_len, &p->md_count, e);
  if (rc < 0) return -1;
  p->metadata = rc;
  return 0;
}

/* "ctty": which of fds 0–2 carries the PTY cordon made for the command
 * (pty.c); absent when the command holds no terminal of cordon's. */
static int parse_ctty(const struct json *v, struct plan *p, struct cordon_err *e) {
  p->ctty = -1;
  if (!v) return 0;
  if (v->type != J_NUM || (v->num != 0 && v->num != 1 && v->num != 2)) return bad(e, "ctty");
  p->ctty = (int)v->num;
  return 0;
}

/* "forwarder": namespace mode with a network allowlist (forwarder.c): the
 * port to listen on in the sandbox and the proxy's unix socket there. */
static int parse_forwarder(const struct json *f, struct plan *p, struct cordon_err *e) {
  static const char *const keys[] = {"port", "socket", "seccomp", NULL};
  if (!f) return 0;
  if (f->type != J_OBJ || only_keys(f, keys, e)) return f->type != J_OBJ ? bad(e, "forwarder") : -1;
  const struct json *port = json_get(f, "port"), *sock = json_get(f, "socket");
  if (!port || port->type != J_NUM || port->num < 1 || port->num > 65535 || port->num != (int)port->num) return bad(e, "forwarder.port");
  /* sun_path holds 108 bytes with the NUL (unix(7)). */
  if (!sock || sock->type != J_STR || sock->str[0] != '/' || strlen(sock->str) >= 108) return bad(e, "forwarder.socket");
  p->fwd_port = (int)port->num;
  p->fwd_socket = sock->str;
  return parse_program(json_get(f, "seccomp"), "forwarder.seccomp", &p->fwd_bpf, &p->fwd_len, &p->fwd_count, e) < 0 ? -1 : 0;
}

static int parse_keep_fds(const struct json *arr, struct plan *p, struct cordon_err *e) {
  if (!arr) return 0;
  if (arr->type != J_ARR || json_len(arr) > 16) return bad(e, "keepFds");
  for (const struct json *c = arr->child; c; c = c->next) {
    if (c->type != J_NUM || c->num < 3 || c->num > 65535) return bad(e, "keepFds");
    p->keep_fds[p->n_keep++] = (int)c->num;
  }
  return 0;
}

int plan_from_json(const struct json *root, struct plan *p, struct cordon_err *e) {
  static const char *const keys[] = {"v", "argv", "env", "cwd", "keepFds", "compat", "rlimits", "landlock", "seccomp", "metadata", "ctty", "forwarder", NULL};
  const struct json *v = json_get(root, "v"), *cwd = json_get(root, "cwd"), *compat = json_get(root, "compat");
  memset(p, 0, sizeof *p);
  if (!root || root->type != J_OBJ) return bad(e, "plan");
  if (only_keys(root, keys, e)) return -1;
  if (!v || v->type != J_NUM || v->num != CORDON_PLAN_VERSION) return bad(e, "v (plan version)");
  if (!(p->argv = string_array(json_get(root, "argv"), 0))) return bad(e, "argv");
  if (!(p->envp = string_array(json_get(root, "env"), 1))) return bad(e, "env");
  if (!cwd || cwd->type != J_STR) return bad(e, "cwd");
  p->cwd = cwd->str;
  if (!compat || compat->type != J_STR) return bad(e, "compat");
  p->hard = strcmp(compat->str, "hard") == 0;
  if (parse_keep_fds(json_get(root, "keepFds"), p, e) || parse_rlimits(json_get(root, "rlimits"), p, e)) return -1;
  if (parse_ctty(json_get(root, "ctty"), p, e) || parse_forwarder(json_get(root, "forwarder"), p, e)) return -1;
  if (parse_landlock(json_get(root, "landlock"), p, e)) return -1;
  return parse_seccomp(root, p, e);
}
