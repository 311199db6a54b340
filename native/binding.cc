// binding.cc — the only file that includes napi.h.
//
// It checks arguments, calls the plain C functions declared in cordon.h and
// maps their `struct cordon_err` to JS errors carrying { code, errno,
// syscall, step }. Exception policy: node-addon-api is built with
// NAPI_CPP_EXCEPTIONS disabled (NAPI_DISABLE_CPP_EXCEPTIONS); errors are
// thrown as pending JS exceptions and every function returns right after.
#include <napi.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "include/cordon.h"
#include "include/cordon-wire.h"
#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>
#include <uv.h>
#include "linux/host-facts.h"
#include "linux/relay.h"
#endif

namespace {

const char *errno_name(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
#ifdef EUSERS  // not in mingw-w64's errno.h
    case EUSERS: return "EUSERS";
#endif
    case ECHILD: return "ECHILD";
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EMSGSIZE: return "EMSGSIZE";
    case EMFILE: return "EMFILE";
    case EAGAIN: return "EAGAIN";
    case EBADF: return "EBADF";
    case E2BIG: return "E2BIG";
    case ELOOP: return "ELOOP";
    case ENOTDIR: return "ENOTDIR";
    case ENOTTY: return "ENOTTY";
    case EIO: return "EIO";
    case ENOTSOCK: return "ENOTSOCK";
    default: return "EUNKNOWN";
  }
}

Napi::Value ThrowCordonError(Napi::Env env, const cordon_err &e) {
  std::string msg = std::string(e.step ? e.step : "native") + ": " + (e.syscall ? e.syscall : "?") + ": " +
                    std::strerror(e.err);
  Napi::Error err = Napi::Error::New(env, msg);
  err.Set("code", Napi::String::New(env, errno_name(e.err)));
  err.Set("errno", Napi::Number::New(env, e.err));
  err.Set("syscall", Napi::String::New(env, e.syscall ? e.syscall : ""));
  err.Set("step", Napi::String::New(env, e.step ? e.step : ""));
  err.ThrowAsJavaScriptException();
  return env.Undefined();
}

// A TypeError for bad arguments, left pending; the caller returns its result at once.
Napi::Value ThrowTypeError(Napi::Env env, const std::string &msg) {
  Napi::TypeError::New(env, msg).ThrowAsJavaScriptException();
  return env.Undefined();
}

#ifndef _WIN32
Napi::Value NullableInt(Napi::Env env, int v) {
  return v < 0 ? env.Null() : Napi::Number::New(env, v);
}

Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() > 1 || (info.Length() == 1 && !info[0].IsBoolean()))
    return ThrowTypeError(env, "probe(withUserns?: boolean)");
  cordon_probe p;
  cordon_probe_run(&p, info.Length() == 1 && info[0].As<Napi::Boolean>().Value());
  Napi::Object o = Napi::Object::New(env);
  o.Set("landlockAbi", NullableInt(env, p.landlock_abi));
  o.Set("landlockErrno", Napi::Number::New(env, p.landlock_errno));
  o.Set("landlockErrata", NullableInt(env, p.landlock_errata));
  o.Set("seccomp", Napi::Boolean::New(env, p.seccomp != 0));
  o.Set("seccompErrno", Napi::Number::New(env, p.seccomp_errno));
  o.Set("userns", p.userns < 0 ? env.Null() : Napi::Value(Napi::Boolean::New(env, p.userns != 0)));
  o.Set("usernsErrno", Napi::Number::New(env, p.userns_errno));
  o.Set("usernsStep", p.userns_step ? Napi::Value(Napi::String::New(env, p.userns_step)) : env.Null());
  o.Set("maxUserNamespaces", NullableInt(env, p.max_user_namespaces));
  o.Set("unprivilegedUsernsClone", NullableInt(env, p.unprivileged_userns_clone));
  o.Set("apparmorRestrictUserns", NullableInt(env, p.apparmor_restrict_userns));
  o.Set("noNewPrivs", Napi::Boolean::New(env, p.no_new_privs != 0));
  o.Set("kernel", Napi::String::New(env, p.kernel));
  o.Set("machine", Napi::String::New(env, p.machine));
  return o;
}

Napi::Value HardenSelf(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  cordon_hardening h;
  cordon_err e{};
  if (cordon_harden_self(&h, &e) < 0) return ThrowCordonError(env, e);
  Napi::Object o = Napi::Object::New(env);
  o.Set("dumpableOff", Napi::Boolean::New(env, h.dumpable_off != 0));
  o.Set("coreZero", Napi::Boolean::New(env, h.core_zero != 0));
  o.Set("scrubbed", Napi::Number::New(env, h.scrubbed));
  return o;
}

bool ReadU64(const Napi::Object &o, const char *key, uint64_t *out) {
  if (!o.Has(key)) return true;
  Napi::Value v = o.Get(key);
  if (!v.IsString()) return false;
  std::string s = v.As<Napi::String>().Utf8Value();
  char *end = nullptr;
  errno = 0;
  *out = std::strtoull(s.c_str(), &end, 0);
  return errno == 0 && end && *end == 0 && !s.empty();
}

int OpFromName(const std::string &op) {
  if (op == "eq") return CORDON_OP_EQ;
  if (op == "ne") return CORDON_OP_NE;
  if (op == "masked_eq") return CORDON_OP_MASKED_EQ;
  if (op == "gt") return CORDON_OP_GT;
  if (op == "lt") return CORDON_OP_LT;
  return 0;
}

// One rule object { syscall, action: 'errno'|'kill'|'notify', errno?, args: [{arg, op, value, mask?}] }.
bool ReadRule(const Napi::Value &v, cordon_sc_rule *r, std::string *name) {
  if (!v.IsObject()) return false;
  Napi::Object o = v.As<Napi::Object>();
  if (!o.Get("syscall").IsString() || !o.Get("action").IsString()) return false;
  *name = o.Get("syscall").As<Napi::String>().Utf8Value();
  std::string action = o.Get("action").As<Napi::String>().Utf8Value();
  r->kill = action == "kill";
  r->notify = action == "notify";
  if (!r->kill && !r->notify && (action != "errno" || !o.Get("errno").IsNumber())) return false;
  r->err = r->kill || r->notify ? 0 : o.Get("errno").As<Napi::Number>().Int32Value();
  Napi::Value args = o.Get("args");
  if (!args.IsArray() || args.As<Napi::Array>().Length() > 3) return false;
  Napi::Array arr = args.As<Napi::Array>();
  r->nargs = arr.Length();
  for (uint32_t i = 0; i < r->nargs; i++) {
    if (!arr.Get(i).IsObject()) return false;
    Napi::Object a = arr.Get(i).As<Napi::Object>();
    if (!a.Get("arg").IsNumber() || !a.Get("op").IsString()) return false;
    r->args[i].arg = a.Get("arg").As<Napi::Number>().Uint32Value();
    r->args[i].op = OpFromName(a.Get("op").As<Napi::String>().Utf8Value());
    r->args[i].mask = ~uint64_t{0};
    if (r->args[i].arg > 5 || !r->args[i].op || !ReadU64(a, "value", &r->args[i].value) || !ReadU64(a, "mask", &r->args[i].mask)) return false;
  }
  return true;
}

// compileSeccomp(rules) → Buffer holding the BPF program libseccomp generated.
Napi::Value CompileSeccomp(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsArray()) return ThrowTypeError(env, "compileSeccomp(rules: object[])");
  Napi::Array arr = info[0].As<Napi::Array>();
  std::vector<cordon_sc_rule> rules(arr.Length());
  std::vector<std::string> names(arr.Length());
  for (uint32_t i = 0; i < arr.Length(); i++) {
    rules[i] = cordon_sc_rule{};
    if (!ReadRule(arr.Get(i), &rules[i], &names[i]))
      return ThrowTypeError(env, "compileSeccomp: malformed rule at index " + std::to_string(i));
    rules[i].syscall = names[i].c_str();
  }
  uint8_t *bpf = nullptr;
  size_t len = 0;
  cordon_err e{};
  if (cordon_seccomp_compile(rules.data(), rules.size(), &bpf, &len, &e) < 0) return ThrowCordonError(env, e);
  Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::Copy(env, bpf, len);
  std::free(bpf);
  return out;
}
#else
// Windows: the OS version and whether ntdll is Wine's (win32/probe.c). The
// probe, hardening and seccomp of the other platforms have no meaning here.
Napi::Value Win32Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 0) return ThrowTypeError(env, "win32Probe()");
  cordon_win32_probe p;
  cordon_win32_probe_run(&p);
  Napi::Object o = Napi::Object::New(env);
  o.Set("version", Napi::String::New(env, std::to_string(p.major) + "." + std::to_string(p.minor) + "." + std::to_string(p.build)));
  o.Set("build", Napi::Number::New(env, p.build));
  o.Set("wine", p.wine[0] ? Napi::Value(Napi::String::New(env, p.wine)) : env.Null());
  return o;
}

// hardenProcess(): nothing on Windows does what it does on Linux (a
// low-integrity command cannot open this process: process objects are
// no-read-up), so it says so rather than pretend.
Napi::Value HardenSelf(const Napi::CallbackInfo &info) {
  cordon_err e{};
  cordon_err_set(&e, "harden", "hardenSelf (not on Windows)", ENOSYS);
  return ThrowCordonError(info.Env(), e);
}
#endif

#ifdef __linux__
template <typename Make>
Napi::Value FdPair(Napi::Env env, Make make) {
  int fds[2];
  cordon_err e{};
  if (make(fds, &e) < 0) return ThrowCordonError(env, e);
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, fds[0]));
  out.Set(1u, Napi::Number::New(env, fds[1]));
  return out;
}

// pipe() → [readFd, writeFd], both close-on-exec.
Napi::Value Pipe(const Napi::CallbackInfo &info) { return FdPair(info.Env(), cordon_pipe); }

// seqpacketPair() → two connected SOCK_SEQPACKET unix sockets, close-on-exec.
Napi::Value SeqpacketPair(const Napi::CallbackInfo &info) { return FdPair(info.Env(), cordon_seqpacket_pair); }

// close(fd): for descriptors the addon made (fs.closeSync warns about those in a worker).
Napi::Value Close(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) return ThrowTypeError(env, "close(fd: number)");
  cordon_err e{};
  if (cordon_close(info[0].As<Napi::Number>().Int32Value(), &e) < 0) return ThrowCordonError(env, e);
  return env.Undefined();
}

// dup(fd) → a close-on-exec copy of a descriptor the addon made, above the
// standard ones (F_DUPFD_CLOEXEC, fcntl(2)). A PTY master is read through a
// copy: the reader closes its copy at the end of output, and the terminal
// is hung up only when the master itself closes (pty.ts).
Napi::Value Dup(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) return ThrowTypeError(env, "dup(fd: number)");
  int fd = fcntl(info[0].As<Napi::Number>().Int32Value(), F_DUPFD_CLOEXEC, 3);
  if (fd < 0) {
    cordon_err e{};
    e.step = "terminal";
    e.syscall = "fcntl(F_DUPFD_CLOEXEC)";
    e.err = errno;
    return ThrowCordonError(env, e);
  }
  return Napi::Number::New(env, fd);
}

// openNoFollow(path) → an O_PATH fd for an absolute path reached without following a symlink.
Napi::Value OpenNoFollow(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) return ThrowTypeError(env, "openNoFollow(path: string)");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.find('\0') != std::string::npos) return ThrowTypeError(env, "openNoFollow: path contains a NUL byte");
  cordon_err e{};
  int fd = cordon_open_nofollow(path.c_str(), &e);
  if (fd < 0) return ThrowCordonError(env, e);
  return Napi::Number::New(env, fd);
}

// openPty(like) → [master, slave]: a new pseudo-terminal, both ends close-on-exec;
// like >= 0 copies that terminal's line settings and window size to it.
Napi::Value OpenPty(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) return ThrowTypeError(env, "openPty(like: number)");
  int like = info[0].As<Napi::Number>().Int32Value();
  return FdPair(env, [like](int fds[2], cordon_err *e) { return cordon_pty_open(like, fds, e); });
}

// terminal(fd) → { rows, cols, foreground } when fd is a terminal, else null.
Napi::Value Terminal(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) return ThrowTypeError(env, "terminal(fd: number)");
  cordon_tty t{};
  if (cordon_tty_info(info[0].As<Napi::Number>().Int32Value(), &t) < 0) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("rows", Napi::Number::New(env, t.rows));
  o.Set("cols", Napi::Number::New(env, t.cols));
  o.Set("foreground", Napi::Boolean::New(env, t.foreground != 0));
  return o;
}

// setTerminalSize(fd, rows, cols): TIOCSWINSZ (the PTY master of a run).
Napi::Value SetTerminalSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber())
    return ThrowTypeError(env, "setTerminalSize(fd: number, rows: number, cols: number)");
  cordon_err e{};
  if (cordon_tty_set_size(info[0].As<Napi::Number>().Int32Value(), info[1].As<Napi::Number>().Uint32Value(),
                          info[2].As<Napi::Number>().Uint32Value(), &e) < 0)
    return ThrowCordonError(env, e);
  return env.Undefined();
}

// spawnZygote(path, requestFd) → { pid, events }: the zygote started, and the read end of its event pipe.
Napi::Value SpawnZygote(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsString() || !info[1].IsNumber())
    return ThrowTypeError(env, "spawnZygote(path: string, requestFd: number)");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int pid = 0, events = -1;
  cordon_err e{};
  if (cordon_spawn_zygote(path.c_str(), info[1].As<Napi::Number>().Int32Value(), &pid, &events, &e) < 0) return ThrowCordonError(env, e);
  Napi::Object o = Napi::Object::New(env);
  o.Set("pid", Napi::Number::New(env, pid));
  o.Set("events", Napi::Number::New(env, events));
  return o;
}

// reap(pid) → true when the exited zygote was collected.
Napi::Value Reap(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) return ThrowTypeError(env, "reap(pid: number)");
  return Napi::Boolean::New(env, cordon_reap(info[0].As<Napi::Number>().Int32Value()) == 1);
}

// The descriptors of a zygote request; false when one is not a number.
static bool FdList(const Napi::Array &arr, std::vector<int> &fds) {
  fds.resize(arr.Length());
  for (uint32_t i = 0; i < arr.Length(); i++) {
    if (!arr.Get(i).IsNumber()) return false;
    fds[i] = arr.Get(i).As<Napi::Number>().Int32Value();
  }
  return true;
}

// zygoteCall(socketFd, request: Buffer, fds: number[], timeoutMs) → int32 reply.
Napi::Value ZygoteCall(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsNumber() || !info[1].IsBuffer() || !info[2].IsArray() || !info[3].IsNumber())
    return ThrowTypeError(env, "zygoteCall(fd: number, request: Buffer, fds: number[], timeoutMs: number)");
  Napi::Buffer<uint8_t> req = info[1].As<Napi::Buffer<uint8_t>>();
  std::vector<int> fds;
  if (!FdList(info[2].As<Napi::Array>(), fds)) return ThrowTypeError(env, "zygoteCall: fds must be numbers");
  int result = 0;
  cordon_err e{};
  if (cordon_zygote_call(info[0].As<Napi::Number>().Int32Value(), req.Data(), req.Length(), fds.data(), fds.size(),
                         info[3].As<Napi::Number>().Int32Value(), &result, &e) < 0)
    return ThrowCordonError(env, e);
  return Napi::Number::New(env, result);
}

// zygoteSend(socketFd, request: Buffer, fds: number[]): a request the zygote
// answers with nothing (a join ahead, zygote-request.h "J"): the caller's
// thread never waits on the zygote for it.
Napi::Value ZygoteSend(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsNumber() || !info[1].IsBuffer() || !info[2].IsArray())
    return ThrowTypeError(env, "zygoteSend(fd: number, request: Buffer, fds: number[])");
  Napi::Buffer<uint8_t> req = info[1].As<Napi::Buffer<uint8_t>>();
  std::vector<int> fds;
  if (!FdList(info[2].As<Napi::Array>(), fds)) return ThrowTypeError(env, "zygoteSend: fds must be numbers");
  if (cordon_send_fds(info[0].As<Napi::Number>().Int32Value(), req.Data(), req.Length(), fds.data(), fds.size()) < 0) {
    cordon_err e{};
    cordon_err_set(&e, "launch", "sendmsg", errno);
    return ThrowCordonError(env, e);
  }
  return env.Undefined();
}

// sealedMemfd(data: Buffer) → a close-on-exec memfd holding data, sealed (the launch plan).
Napi::Value SealedMemfd(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsBuffer()) return ThrowTypeError(env, "sealedMemfd(data: Buffer)");
  Napi::Buffer<uint8_t> data = info[0].As<Napi::Buffer<uint8_t>>();
  cordon_err e{};
  int fd = cordon_sealed_memfd(data.Data(), data.Length(), &e);
  if (fd < 0) return ThrowCordonError(env, e);
  return Napi::Number::New(env, fd);
}

// relay(clientFd, upstreamFd, toUpstream, toClient) → the read end of the
// tunnel's notification pipe (linux/relay.c): the addon's relay thread now
// moves the bytes between duplicates of the two sockets, the prefixes first.
Napi::Value Relay(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsBuffer() || !info[3].IsBuffer())
    return ThrowTypeError(env, "relay(clientFd: number, upstreamFd: number, toUpstream: Buffer, toClient: Buffer)");
  Napi::Buffer<uint8_t> up = info[2].As<Napi::Buffer<uint8_t>>();
  Napi::Buffer<uint8_t> down = info[3].As<Napi::Buffer<uint8_t>>();
  cordon_err e{};
  int fd = cordon_relay_start(info[0].As<Napi::Number>().Int32Value(), info[1].As<Napi::Number>().Int32Value(), up.Data(),
                              up.Length(), down.Data(), down.Length(), &e);
  if (fd < 0) return ThrowCordonError(env, e);
  return Napi::Number::New(env, fd);
}

// environBlock() → the process environment as one Latin-1 string: each
// "NAME=value" entry followed by a NUL (linux/host-facts.c says why, and
// why only on Node's main thread). Latin-1 keeps each byte as one char, so
// two environments give equal strings exactly when their bytes are equal.
Napi::Value EnvironBlock(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  size_t len = 0;
  char *block = cordon_environ_block(&len);
  cordon_err e{};
  if (!block) {
    cordon_err_set(&e, "host-facts", "malloc (environment)", ENOMEM);
    return ThrowCordonError(env, e);
  }
  napi_value out;
  napi_status status = napi_create_string_latin1(env, block, len, &out);
  free(block);
  if (status != napi_ok) {  // past V8's longest string: no environment is that large
    cordon_err_set(&e, "host-facts", "napi_create_string_latin1 (environment)", ENOMEM);
    return ThrowCordonError(env, e);
  }
  return Napi::Value(env, out);
}

// lstatKinds(paths) → a Uint8Array with one enum cordon_path_kind per path,
// for `paths` given as one string, each path followed by a NUL (a path
// cannot hold one, so the split is exact; one conversion for the batch).
Napi::Value LstatKinds(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) return ThrowTypeError(env, "lstatKinds(paths: string): NUL-terminated paths");
  std::string joined = info[0].As<Napi::String>().Utf8Value();
  size_t count = 0;
  for (char c : joined) count += c == '\0';
  Napi::Uint8Array out = Napi::Uint8Array::New(env, count);
  size_t start = 0;
  for (size_t i = 0; i < count; i++) {
    size_t end = joined.find('\0', start);
    out[i] = static_cast<uint8_t>(cordon_path_kind(joined.c_str() + start));
    start = end + 1;
  }
  return out;
}

// new FdReader(fd, onData): reads a descriptor the addon made (a launch's
// status pipe, the zygote's event pipe) on Node's own event loop (uv_poll),
// calling onData(chunk) per read and onData(null) once at end of file or on
// an error; the reader then closes the descriptor. Node's own sockets would
// do the same, but loading node:net and building a stream per descriptor is
// ~8 ms of a one-shot `cordon run`. The reader owns `fd` from construction.
// ref()/unref() keep or stop keeping the loop alive; close() stops early
// (onData is not called again); pause()/resume() stop and restart reading
// (a spawn() caller that does not read its stream holds the command back
// through the pipe instead of growing cordon's buffers: pipe(7) back-pressure).
class FdReader : public Napi::ObjectWrap<FdReader> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "FdReader",
                       {InstanceMethod("ref", &FdReader::JsRef), InstanceMethod("unref", &FdReader::JsUnref),
                        InstanceMethod("close", &FdReader::JsClose), InstanceMethod("pause", &FdReader::JsPause),
                        InstanceMethod("resume", &FdReader::JsResume)});
  }

  explicit FdReader(const Napi::CallbackInfo &info) : Napi::ObjectWrap<FdReader>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsNumber() || !info[1].IsFunction()) {
      if (info.Length() >= 1 && info[0].IsNumber()) close(info[0].As<Napi::Number>().Int32Value());  // it owns fd, even now
      ThrowTypeError(env, "new FdReader(fd: number, onData: (chunk: Buffer | null) => void)");
      return;
    }
    fd_ = info[0].As<Napi::Number>().Int32Value();
    if (Start(env, info[1].As<Napi::Function>()) < 0) {
      cordon_err e{};
      e.step = "launch";
      e.syscall = "uv_poll_start";
      e.err = EBADF;
      close(fd_);
      fd_ = -1;
      ThrowCordonError(env, e);
    }
  }

  ~FdReader() override {
    Stop();
    Release();
  }

 private:
  // Non-blocking, so a drain stops at EAGAIN instead of blocking the loop.
  int Start(Napi::Env env, Napi::Function onData) {
    uv_loop_t *loop = nullptr;
    if (fd_ < 0 || napi_get_uv_event_loop(env, &loop) != napi_ok || !loop) return -1;
    int fl = fcntl(fd_, F_GETFL);
    if (fl < 0 || fcntl(fd_, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    poll_ = new uv_poll_t;
    if (uv_poll_init(loop, poll_, fd_) != 0) {
      delete poll_;
      poll_ = nullptr;
      return -1;
    }
    poll_->data = this;
    if (uv_poll_start(poll_, UV_READABLE | UV_DISCONNECT, OnPoll) != 0) {
      CloseHandle();
      return -1;
    }
    napi_value name;
    if (napi_create_reference(env, onData, 1, &onData_) != napi_ok ||
        napi_create_string_utf8(env, "cordon.FdReader", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_async_init(env, nullptr, name, &context_) != napi_ok) {
      Release();
      CloseHandle();
      return -1;
    }
    // A worker thread that ends with the poll still open would abort in
    // uv_loop_close: the async cleanup hook closes it first (napi docs,
    // napi_add_async_cleanup_hook).
    napi_add_async_cleanup_hook(env, OnEnvCleanup, this, &cleanup_);
    Ref();  // not collected while it polls
    return 0;
  }

  static void OnPoll(uv_poll_t *h, int status, int events) {
    FdReader *self = static_cast<FdReader *>(h->data);
    if (status < 0) self->Finish(true);
    else self->Drain();
  }

  // Until EAGAIN, end of file, or a pause from onData (checked before every read).
  void Drain() {
    static thread_local uint8_t buf[65536];
    while (poll_ && !paused_) {
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) return Finish(true);
      Call(buf, static_cast<size_t>(n), false);
    }
  }

  // Raw N-API on purpose: while Node tears its environment down it still
  // runs the loop once (Environment::CleanupHandles), a poll can fire then,
  // and JS can no longer be called. node-addon-api turns that failure into a
  // JS exception, which cannot be thrown either: a fatal error. Here the
  // call is simply skipped.
  void Call(const uint8_t *data, size_t n, bool eof) {
    napi_env env = Env();
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value arg = nullptr, fn = nullptr, recv = nullptr, result = nullptr;
    bool ready = (eof ? napi_get_null(env, &arg) : napi_create_buffer_copy(env, n, data, nullptr, &arg)) == napi_ok &&
                 napi_get_reference_value(env, onData_, &fn) == napi_ok && fn && napi_get_global(env, &recv) == napi_ok;
    if (ready) napi_make_callback(env, context_, recv, fn, 1, &arg, &result);
    // An exception in onData is the caller's bug: reported like any
    // uncaught exception instead of being lost in this libuv callback.
    bool pending = false;
    napi_value error;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending && napi_get_and_clear_last_exception(env, &error) == napi_ok)
      napi_fatal_exception(env, error);
    napi_close_handle_scope(env, scope);
  }

  // Done: the poll and the descriptor are closed, onData(null) if asked.
  void Finish(bool notify) {
    if (!Stop()) return;
    if (notify) Call(nullptr, 0, true);
    Release();
    Unref();
  }

  void Release() {
    if (onData_) napi_delete_reference(Env(), onData_);
    if (context_) napi_async_destroy(Env(), context_);
    onData_ = nullptr;
    context_ = nullptr;
  }

  // Close poll and descriptor; false when already stopped.
  bool Stop() {
    if (!poll_) return false;
    if (cleanup_) napi_remove_async_cleanup_hook(cleanup_);
    cleanup_ = nullptr;
    CloseHandle();
    close(fd_);
    fd_ = -1;
    return true;
  }

  void CloseHandle() {
    uv_poll_stop(poll_);
    uv_close(reinterpret_cast<uv_handle_t *>(poll_), [](uv_handle_t *h) { delete reinterpret_cast<uv_poll_t *>(h); });
    poll_ = nullptr;
  }

  static void OnEnvCleanup(napi_async_cleanup_hook_handle handle, void *arg) {
    FdReader *self = static_cast<FdReader *>(arg);
    self->cleanup_ = nullptr;
    if (self->poll_) {
      uv_poll_stop(self->poll_);
      self->poll_->data = handle;
      uv_close(reinterpret_cast<uv_handle_t *>(self->poll_), [](uv_handle_t *h) {
        napi_remove_async_cleanup_hook(static_cast<napi_async_cleanup_hook_handle>(h->data));
        delete reinterpret_cast<uv_poll_t *>(h);
      });
      self->poll_ = nullptr;
      close(self->fd_);
      self->fd_ = -1;
    } else {
      napi_remove_async_cleanup_hook(handle);
    }
  }

  Napi::Value JsRef(const Napi::CallbackInfo &info) {
    if (poll_) uv_ref(reinterpret_cast<uv_handle_t *>(poll_));
    return info.Env().Undefined();
  }
  Napi::Value JsUnref(const Napi::CallbackInfo &info) {
    if (poll_) uv_unref(reinterpret_cast<uv_handle_t *>(poll_));
    return info.Env().Undefined();
  }
  Napi::Value JsClose(const Napi::CallbackInfo &info) {
    Finish(false);
    return info.Env().Undefined();
  }
  Napi::Value JsPause(const Napi::CallbackInfo &info) {
    if (poll_ && !paused_) paused_ = uv_poll_stop(poll_) == 0;
    return info.Env().Undefined();
  }
  // libuv polls level-triggered: what arrived while paused is seen at once.
  // A restart that fails ends the reader as an error would (onData(null)).
  Napi::Value JsResume(const Napi::CallbackInfo &info) {
    if (!poll_ || !paused_) return info.Env().Undefined();
    paused_ = false;
    if (uv_poll_start(poll_, UV_READABLE | UV_DISCONNECT, OnPoll) != 0) Finish(true);
    return info.Env().Undefined();
  }

  int fd_ = -1;
  bool paused_ = false;
  uv_poll_t *poll_ = nullptr;
  napi_async_cleanup_hook_handle cleanup_ = nullptr;
  napi_ref onData_ = nullptr;
  napi_async_context context_ = nullptr;
};
#endif

// The object `parent[name]`, created empty the first time.
Napi::Object Member(Napi::Object parent, const char *name, bool array) {
  Napi::Env env = parent.Env();
  if (!parent.Has(name)) parent.Set(name, array ? Napi::Value(Napi::Array::New(env)) : Napi::Value(Napi::Object::New(env)));
  return parent.Get(name).As<Napi::Object>();
}

void PushField(Napi::Object status, const char *record, const char *name) {
  Napi::Array fields = Member(status, record, true).As<Napi::Array>();
  fields.Set(fields.Length(), Napi::String::New(status.Env(), name));
}

// binding.wire: every constant listed in cordon-wire.h, as { group: { name:
// value } } and status: { record: [field, …] }. The TypeScript side keeps
// its own copy (src/platform/linux/launch/wire.ts) so that nothing loads
// the addon just to know a descriptor number; test/native/wire-contract
// compares the two.
Napi::Object Wire(Napi::Env env) {
  Napi::Object wire = Napi::Object::New(env);
#define CORDON_EXPORT_NUM(group, name, value) Member(wire, #group, false).Set(#name, Napi::Number::New(env, value));
#define CORDON_EXPORT_STR(group, name, value) Member(wire, #group, false).Set(#name, Napi::String::New(env, value));
#define CORDON_EXPORT_FIELD(record, name) PushField(Member(wire, "status", false), #record, name);
  CORDON_WIRE_EXPORTS(CORDON_EXPORT_NUM, CORDON_EXPORT_STR, CORDON_EXPORT_FIELD)
#undef CORDON_EXPORT_NUM
#undef CORDON_EXPORT_STR
#undef CORDON_EXPORT_FIELD
  return wire;
}

#ifdef __linux__
// binding.landlock: the rights of each Landlock ABI (linux/landlock-abi.c),
// the table the launcher uses. Masks as numbers: every Landlock right is
// below bit 16 today, far from the 2^53 a double holds exactly.
Napi::Object LandlockTable(Napi::Env env) {
  Napi::Array abis = Napi::Array::New(env);
  for (int v = 1; v <= CORDON_LANDLOCK_ABI_KNOWN; v++) {
    const cordon_landlock_abi *row = cordon_landlock_rights(v);
    Napi::Object o = Napi::Object::New(env);
    o.Set("abi", Napi::Number::New(env, row->abi));
    o.Set("kernel", Napi::String::New(env, row->kernel));
    o.Set("fs", Napi::Number::New(env, static_cast<double>(row->fs)));
    o.Set("net", Napi::Number::New(env, static_cast<double>(row->net)));
    o.Set("scoped", Napi::Number::New(env, static_cast<double>(row->scoped)));
    o.Set("restrictFlags", Napi::Number::New(env, row->restrict_flags));
    o.Set("attrSize", Napi::Number::New(env, row->attr_size));
    o.Set("protection", row->protection ? Napi::Value(Napi::String::New(env, row->protection)) : env.Null());
    abis.Set(static_cast<uint32_t>(v - 1), o);
  }
  Napi::Object table = Napi::Object::New(env);
  table.Set("known", Napi::Number::New(env, CORDON_LANDLOCK_ABI_KNOWN));
  table.Set("abis", abis);
  return table;
}
#endif

Napi::Object Init(Napi::Env env, Napi::Object exports) {
#ifndef _WIN32
  exports.Set("compileSeccomp", Napi::Function::New(env, CompileSeccomp, "compileSeccomp"));
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
#else
  exports.Set("win32Probe", Napi::Function::New(env, Win32Probe, "win32Probe"));
#endif
  exports.Set("hardenSelf", Napi::Function::New(env, HardenSelf, "hardenSelf"));
#ifdef __linux__
  exports.Set("pipe", Napi::Function::New(env, Pipe, "pipe"));
  exports.Set("seqpacketPair", Napi::Function::New(env, SeqpacketPair, "seqpacketPair"));
  exports.Set("zygoteCall", Napi::Function::New(env, ZygoteCall, "zygoteCall"));
  exports.Set("zygoteSend", Napi::Function::New(env, ZygoteSend, "zygoteSend"));
  exports.Set("close", Napi::Function::New(env, Close, "close"));
  exports.Set("dup", Napi::Function::New(env, Dup, "dup"));
  exports.Set("openNoFollow", Napi::Function::New(env, OpenNoFollow, "openNoFollow"));
  exports.Set("spawnZygote", Napi::Function::New(env, SpawnZygote, "spawnZygote"));
  exports.Set("reap", Napi::Function::New(env, Reap, "reap"));
  exports.Set("sealedMemfd", Napi::Function::New(env, SealedMemfd, "sealedMemfd"));
  exports.Set("FdReader", FdReader::Define(env));
  exports.Set("openPty", Napi::Function::New(env, OpenPty, "openPty"));
  exports.Set("terminal", Napi::Function::New(env, Terminal, "terminal"));
  exports.Set("setTerminalSize", Napi::Function::New(env, SetTerminalSize, "setTerminalSize"));
  exports.Set("landlock", LandlockTable(env));
  exports.Set("relay", Napi::Function::New(env, Relay, "relay"));
  exports.Set("environBlock", Napi::Function::New(env, EnvironBlock, "environBlock"));
  exports.Set("lstatKinds", Napi::Function::New(env, LstatKinds, "lstatKinds"));
#endif
  exports.Set("wire", Wire(env));
  // 2: FdReader, sealedMemfd; 3: wire, landlock; 4: compileSeccomp takes
  // action 'notify'; 5: openPty, terminal, setTerminalSize; 6: a launch
  // request carries a cgroup count and the cgroup.procs files last (wire.fd.
  // maxCgroups); 7: the launcher plan takes landlock.connectPorts and
  // forwarder (network allowlist); 8: relay (the proxy's native tunnel
  // relay); 10: environBlock, lstatKinds (src/native/load.ts refuses an
  // addon of another version).
  exports.Set("abiVersion", Napi::Number::New(env, 10));
  return exports;
}

}  // namespace

NODE_API_MODULE(cordon, Init)
