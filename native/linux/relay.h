/*
 * relay.h — the network proxy's native byte relay (linux/relay.c), the addon
 * side only: native/binding.cc calls it, the launcher does not link it.
 */
#ifndef CORDON_RELAY_H
#define CORDON_RELAY_H

#include <stddef.h>
#include <stdint.h>
#include "cordon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tunnels relayed at once; a further cordon_relay_start fails with EAGAIN
 * (the proxy keeps that tunnel on its JavaScript relay). */
#define CORDON_RELAY_MAX_TUNNELS 1024
/* The most bytes one direction's prefix may hold (bytes Node read before the
 * handoff); more is EMSGSIZE. */
#define CORDON_RELAY_MAX_PREFIX (1024 * 1024)
/* The record written to the notification pipe when a tunnel ends: bytes
 * delivered client → upstream, upstream → client (u64 each), then the errno
 * that ended it (u32, 0 after both sides ended cleanly), little-endian. */
#define CORDON_RELAY_RECORD_BYTES 20

/* Relay between two connected stream sockets (TCP or unix) on the relay
 * thread. `client` and `upstream` are duplicated (close-on-exec): the caller
 * keeps and closes its own descriptors. `to_upstream` / `to_client` are sent
 * before anything read from the other side. Returns the read end of the
 * tunnel's notification pipe (close-on-exec): one record, then end of file,
 * when the tunnel is over; closing it cuts the tunnel. -1 with `e` set
 * otherwise, and nothing was taken. */
int cordon_relay_start(int client, int upstream, const uint8_t *to_upstream, size_t to_upstream_len,
                       const uint8_t *to_client, size_t to_client_len, struct cordon_err *e);

#ifdef __cplusplus
}
#endif
#endif
