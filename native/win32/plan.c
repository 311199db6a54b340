/*
 * plan.c — read the launch plan from the plan pipe.
 *
 * Format: UTF-8 fields separated by NUL, read as KEY VALUE pairs, first
 * `v 1`, last the single field `end`. NUL cannot occur in a Windows path,
 * a command line or an environment string (they are NUL-terminated in
 * every Win32 API), so no escaping is needed and no value can be cut short
 * or forged by its content. The pipe stays open after `end`: it is the
 * stop channel (main.c), so nothing may follow `end` in the same write.
 * Unknown keys are an error: a plan from a newer TypeScript side is never
 * half-understood.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "launcher.h"

#define PLAN_MAX (64u << 20) /* a plan is kilobytes: refuse rather than read without bound */

WCHAR *utf8_to_wide(const char *s, size_t n) {
  /* MB_ERR_INVALID_CHARS: malformed UTF-8 is an error, never a guess (MSDN, MultiByteToWideChar). */
  int len = n ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, NULL, 0) : 0;
  if (n && len <= 0) return NULL;
  WCHAR *w = calloc((size_t)len + 1, sizeof(WCHAR));
  if (w && len) MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, w, len);
  return w;
}

/* The length of the plan through its `end` key (a key: an even field), or 0 while incomplete. */
static size_t complete_length(const char *buf, size_t n) {
  size_t field = 0;
  for (const char *s = buf, *stop = buf + n; s < stop; field++) {
    const char *nul = memchr(s, 0, (size_t)(stop - s));
    if (!nul) return 0;
    if (field % 2 == 0 && nul - s == 3 && memcmp(s, "end", 3) == 0) return (size_t)(nul + 1 - buf);
    s = nul + 1;
  }
  return 0;
}

/* Read up to and including the `end` field; the pipe is left open. */
static char *read_plan_bytes(HANDLE h, size_t *len, struct werr *e) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) { werr_set(e, "plan", "malloc", ERROR_NOT_ENOUGH_MEMORY); return NULL; }
    size_t whole = complete_length(buf, n);
    if (whole && whole != n) { free(buf); werr_set(e, "plan", "ReadFile", ERROR_INVALID_DATA); return NULL; }
    if (whole) break;
    if (n == cap) {
      if (cap >= PLAN_MAX) { free(buf); werr_set(e, "plan", "ReadFile", ERROR_BUFFER_OVERFLOW); return NULL; }
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
      continue;
    }
    DWORD got = 0;
    /* The sender writes the plan and then nothing (the pipe is the stop channel), so bytes after `end` are an error above. */
    if (!ReadFile(h, buf + n, (DWORD)(cap - n), &got, NULL) || got == 0) {
      free(buf);
      werr_set(e, "plan", "ReadFile", got == 0 ? ERROR_HANDLE_EOF : GetLastError());
      return NULL;
    }
    n += got;
  }
  *len = n;
  return buf;
}

static int push(struct wlist *l, WCHAR *w) {
  WCHAR **items = realloc(l->items, (l->len + 2) * sizeof *items);
  if (!items) return -1;
  l->items = items;
  l->items[l->len++] = w;
  l->items[l->len] = NULL;
  return 0;
}

static int number(const char *v, ULONGLONG *out) {
  char *end;
  *out = strtoull(v, &end, 10);
  return *v && !*end ? 0 : -1;
}

/* One KEY VALUE pair into the plan; -1 for an unknown key or a bad value. */
static int field(struct wplan *p, const char *k, const char *v) {
  ULONGLONG n = 0;
  if (!strcmp(k, "procs") || !strcmp(k, "memory") || !strcmp(k, "cpu")) {
    if (number(v, &n)) return -1;
    if (!strcmp(k, "procs")) p->procs = (ULONG)(n > 0xffffffffull ? 0xffffffffull : n);
    else if (!strcmp(k, "memory")) p->memory = n;
    else p->cpu_seconds = n;
    return 0;
  }
  if (!strcmp(k, "integrity")) {
    if (strcmp(v, "low") && strcmp(v, "medium")) return -1;
    p->low_integrity = !strcmp(v, "low");
    return 0;
  }
  WCHAR *w = utf8_to_wide(v, strlen(v));
  if (!w) return -1;
  WCHAR **one = !strcmp(k, "app") ? &p->app : !strcmp(k, "cmdline") ? &p->cmdline : !strcmp(k, "cwd") ? &p->cwd
              : !strcmp(k, "sid") ? &p->sid : !strcmp(k, "journal") ? &p->journal : NULL;
  if (one) { free(*one); *one = w; return 0; }
  struct wlist *l = !strcmp(k, "env") ? &p->env : !strcmp(k, "allow") ? &p->allow : !strcmp(k, "deny") ? &p->deny
                  : !strcmp(k, "guard") ? &p->guard : !strcmp(k, "noreadup") ? &p->noreadup : NULL;
  if (l && push(l, w) == 0) return 0;
  free(w);
  return -1;
}

static int parse(char *buf, size_t len, struct wplan *p, struct werr *e) {
  char *s = buf, *end = buf + len - 4; /* the final "end\0" */
  if (len < 9 || memcmp(buf, "v\0" "1\0", 4) != 0) return werr_set(e, "plan", "version", ERROR_INVALID_DATA);
  for (s += 4; s < end;) {
    char *k = s, *v = k + strlen(k) + 1;
    if (v >= end) return werr_set(e, "plan", "parse", ERROR_INVALID_DATA);
    if (field(p, k, v)) {
      werr_set(e, "plan", "parse", ERROR_INVALID_DATA);
      snprintf(e->detail, sizeof e->detail, "bad field %s", k);
      return -1;
    }
    s = v + strlen(v) + 1;
  }
  if (!p->app || !p->cmdline || !p->cwd || !p->sid || !p->journal) return werr_set(e, "plan", "parse", ERROR_INVALID_DATA);
  return 0;
}

int plan_read(HANDLE h, struct wplan *p, struct werr *e) {
  size_t len = 0;
  memset(p, 0, sizeof *p);
  char *buf = read_plan_bytes(h, &len, e);
  if (!buf) return -1;
  int rc = parse(buf, len, p, e);
  free(buf);
  return rc;
}
