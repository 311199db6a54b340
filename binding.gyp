{
  # One build system for cordon's native code. Two targets:
  #  - cordon: the N-API addon (probe, hardening of the calling process);
  #  - cordon-launcher: the executable that confines a child before execve.
  # libseccomp is linked statically into the addon, which compiles the
  # seccomp rules once per process (the launcher only loads the finished
  # BPF program), so a prebuild needs no libseccomp on the user's machine.
  # The launcher is a static PIE: no dynamic loader work per spawn, and no
  # LD_* variable can inject code into it.
  #
  # The prebuilds are reproducible: scripts/check-prebuild.mjs rebuilds them
  # from the committed sources in a temp dir and compares byte for byte
  # (docs/linux.md, "Prebuilds"). For that:
  #  - no absolute path reaches a binary: gyp compiles by relative path, and
  #    -ffile-prefix-map maps the checkout and the Node headers away from
  #    __FILE__ (assert) and from debug info should anyone add -g;
  #  - no time: -Wdate-time makes __DATE__/__TIME__ a warning (an error in
  #    the launcher, -Werror);
  #  - the build id is a hash of the output (--build-id=sha1), not of time
  #    or randomness, and not left to the distribution's default;
  #  - the flags are ours: Node's common.gypi adds code-generation flags of
  #    its own to every target, which can differ with the Node that runs
  #    node-gyp. -O3 (after our -O2) and -fno-omit-frame-pointer are taken
  #    out below; anything else (-flto, for a Node built with LTO) shows in
  #    the flags the stamp records, and is named when a rebuild differs.
  "variables": {
    "hardening_cflags": [
      "-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-fvisibility=hidden",
      "-fPIE", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"
    ],
    "reproducible_cflags": [
      "-ffile-prefix-map=<(module_root_dir)/=", "-ffile-prefix-map=<(node_root_dir)/include/node/=node/", "-Wdate-time"
    ],
    "reproducible_ldflags": ["-Wl,--build-id=sha1"],
    "node_codegen_cflags": ["-O3", "-fno-omit-frame-pointer"]
  },
  "targets": [
    {
      "target_name": "cordon",
      "sources": ["native/binding.cc", "native/common/err.c", "native/common/hardening.c"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native/include"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags": ["-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-fno-exceptions"],
      "configurations": { "Release": { "cflags!": ["<@(node_codegen_cflags)"] } },
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/linux/probe.c", "native/linux/landlock-abi.c", "native/linux/seccomp-compile.c",
            "native/linux/zygote-client.c", "native/linux/fdpass.c", "native/linux/pty.c",
            "native/linux/relay.c", "native/linux/host-facts.c"
          ],
          "libraries": ["-l:libseccomp.a"],
          "cflags": ["<@(reproducible_cflags)"],
          "ldflags": ["<@(reproducible_ldflags)"]
        }],
        ["OS=='mac'", { "xcode_settings": { "GCC_SYMBOLS_PRIVATE_EXTERN": "YES", "MACOSX_DEPLOYMENT_TARGET": "11.0" } }],
        # Windows (a native MSVC build; scripts/build-win32.mjs cross-builds the same sources with
        # mingw-w64): the OS probe instead of the POSIX hardening (docs/windows.md).
        ["OS=='win'", {
          "sources": ["native/win32/probe.c"],
          "sources!": ["native/common/hardening.c"],
          "defines": ["_WIN32_WINNT=0x0A00"]
        }]
      ]
    },
    {
      "target_name": "cordon-launcher",
      "type": "executable",
      # Not an addon: no delay-load hook for node.exe (node-gyp's addon.gypi adds one to every target on Windows).
      "win_delay_load_hook": "false",
      "include_dirs": ["native/include"],
      "configurations": { "Release": { "cflags!": ["<@(node_codegen_cflags)"] } },
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/common/err.c", "native/common/launcher-io.c",
            "native/linux/main.c",
            "native/linux/launcher.c", "native/linux/json.c", "native/linux/plan.c",
            "native/linux/process.c", "native/linux/caps.c",
            "native/linux/landlock.c", "native/linux/landlock-abi.c",
            "native/linux/seccomp.c", "native/linux/exec.c", "native/linux/supervise.c", "native/linux/status.c",
            "native/linux/zygote.c", "native/linux/zygote-request.c", "native/linux/zygote-child.c",
            "native/linux/fdpass.c",
            "native/linux/metadata-filter.c", "native/linux/notify.c", "native/linux/notify-target.c",
            "native/linux/notify-resolve.c", "native/linux/notify-ops.c", "native/linux/notify-connect.c", "native/linux/pty.c",
            "native/linux/forwarder.c", "native/linux/forwarder-serve.c"
          ],
          "cflags": ["<@(hardening_cflags)", "<@(reproducible_cflags)", "-std=gnu11"],
          "ldflags": ["-static-pie", "-Wl,-z,relro,-z,now", "<@(reproducible_ldflags)"]
        }],
        # macOS: the Seatbelt launcher (native/darwin; docs/macos.md). Xcode's
        # build takes flags from xcode_settings, not cflags. sandbox_init and
        # sandbox_check are in libsystem_sandbox, part of libSystem: nothing
        # extra to link. macOS has no static executables; the launcher is
        # exec'd with an empty environment, so no DYLD_* variable reaches it.
        # Not yet built on macOS: .github/workflows/real-runners.yml does.
        ["OS=='mac'", {
          "sources": [
            "native/common/err.c", "native/common/launcher-io.c",
            "native/darwin/main.c", "native/darwin/launcher.c", "native/darwin/plan.c",
            "native/darwin/seatbelt.c", "native/darwin/steps.c", "native/darwin/status.c"
          ],
          "include_dirs": ["native/darwin"],
          "xcode_settings": {
            "MACOSX_DEPLOYMENT_TARGET": "11.0",
            "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
            "OTHER_CFLAGS": ["<@(hardening_cflags)", "-std=gnu11"]
          }
        }],
        ["OS=='win'", {
          "sources": [
            "native/win32/main.c", "native/win32/plan.c", "native/win32/status.c", "native/win32/acl.c",
            "native/win32/journal.c", "native/win32/token.c", "native/win32/job.c", "native/win32/spawn.c"
          ],
          "defines": ["_WIN32_WINNT=0x0A00"],
          "libraries": ["advapi32.lib"],
          # /guard:cf and ASLR/DEP are MSVC's defaults for a console program; named so none is lost.
          "msvs_settings": {
            "VCCLCompilerTool": { "ControlFlowGuard": "Guard", "BufferSecurityCheck": "true" },
            "VCLinkerTool": { "SubSystem": 1, "RandomizedBaseAddress": 2, "DataExecutionPrevention": 2 }
          }
        }]
      ]
    }
  ]
}
