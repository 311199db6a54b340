/*
 * status.c — the status stream: one JSON object per line, read by
 * src/platform/win32/launch.ts. The setup record says what was applied,
 * the error record which step failed (Win32 error code, not errno), the
 * exit record how the command ended and whether the ACLs were restored.
 */
#include <stdio.h>
#include <string.h>
#include "launcher.h"

int werr_set(struct werr *e, const char *step, const char *call, DWORD code) {
  e->step = step;
  e->call = call;
  e->code = code;
  e->detail[0] = 0;
  return -1;
}

int werr_detail(struct werr *e, const WCHAR *detail) {
  /* The detail is UTF-8 in the record; a path that does not convert is left out, not mangled. */
  if (!WideCharToMultiByte(CP_UTF8, 0, detail, -1, e->detail, sizeof e->detail, NULL, NULL)) e->detail[0] = 0;
  return -1;
}

static void put(HANDLE h, const char *s, size_t n) {
  DWORD w;
  while (n > 0 && WriteFile(h, s, (DWORD)n, &w, NULL) && w > 0) { s += w; n -= w; }
}

/* A JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7). */
static void put_json_string(HANDLE h, const char *s) {
  char buf[8];
  put(h, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { buf[0] = '\\'; buf[1] = (char)c; put(h, buf, 2); }
    else if (c < 0x20) { snprintf(buf, sizeof buf, "\\u%04x", c); put(h, buf, 6); }
    else put(h, (const char *)&c, 1);
  }
  put(h, "\"", 1);
}

void status_ok(HANDLE h, const struct wplan *p, DWORD pid, int mitigations, HANDLE plan) {
  char line[320];
  int n = snprintf(line, sizeof line,
                   "{\"ok\":true,\"token\":\"write-restricted\",\"integrity\":\"%s\",\"job\":true,\"mitigations\":%s,\"pid\":%lu,"
                   "\"handles\":[%llu,%llu]}\n",
                   p->low_integrity ? "low" : "medium", mitigations ? "true" : "false", (unsigned long)pid,
                   (unsigned long long)(uintptr_t)plan, (unsigned long long)(uintptr_t)h);
  put(h, line, (size_t)n);
}

static void put_error_fields(HANDLE h, const struct werr *e) {
  char num[32];
  put(h, "\"step\":", 7);
  put_json_string(h, e->step ? e->step : "");
  put(h, ",\"call\":", 8);
  put_json_string(h, e->call ? e->call : "");
  snprintf(num, sizeof num, ",\"error\":%lu", (unsigned long)e->code);
  put(h, num, strlen(num));
  put(h, ",\"detail\":", 10);
  put_json_string(h, e->detail);
}

void status_err(HANDLE h, const struct werr *e) {
  put(h, "{\"ok\":false,", 12);
  put_error_fields(h, e);
  put(h, "}\n", 2);
}

void status_exit(HANDLE h, DWORD code, int stopped, const struct werr *restore) {
  char head[96];
  int n = snprintf(head, sizeof head, "{\"exit\":true,\"code\":%lu,\"stopped\":%s,\"restored\":%s",
                   (unsigned long)code, stopped ? "true" : "false", restore ? "false" : "true");
  put(h, head, (size_t)n);
  if (restore) {
    put(h, ",\"restoreError\":{", 17);
    put_error_fields(h, restore);
    put(h, "}", 1);
  }
  put(h, "}\n", 2);
}
