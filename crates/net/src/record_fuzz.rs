//! The fuzzing entry point of the TLS record layer's receiving side ([`crate::record`],
//! [`crate::tls_inbound`]): the input is a script that builds a peer's ciphertext stream —
//! records sealed under the session's key (so mutations reach past authentication: padding,
//! content types, alerts, key updates), raw bytes, bit flips — and the way the socket cuts
//! it and the caller reads it. What comes out is checked against a plaintext model.

use rustls::crypto::cipher::{AeadKey, Iv};
use rustls::ConnectionTrafficSecrets;

use crate::record::{Opener, Sealer, MAX_PLAIN, MAX_WIRE_RECORD};
use crate::tls_inbound::{Inbound, BUFFER};
use crate::NetError;

/// Most wire bytes a script builds (a few records' worth).
const MAX_WIRE: usize = 8 * MAX_WIRE_RECORD;
const APPLICATION_DATA: u8 = 23;

fn secrets() -> ConnectionTrafficSecrets {
    ConnectionTrafficSecrets::Aes256Gcm {
        key: AeadKey::from([0x3c; 32]),
        iv: Iv::from([0xa5; 12]),
    }
}

/// Reads the script's bytes front to back; zeros once it runs out.
struct Script<'a>(&'a [u8]);

impl Script<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }

    fn u16(&mut self) -> usize {
        usize::from(u16::from_le_bytes([self.byte(), self.byte()]))
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }
}

/// The peer's stream built from a script, and the plaintext a correct receiver returns.
struct Peer {
    wire: Vec<u8>,
    /// The application data of the records as sealed, up to the first record that ends
    /// the stream (an alert, a handshake message, an empty inner plaintext).
    model: Vec<u8>,
    /// The model stops growing: a record that ends the stream was sealed.
    ended: bool,
    /// Bytes not sealed by the peer went in (raw bytes or a flipped bit): the receiver may
    /// stop anywhere after them, but never return anything but a prefix of the model.
    corrupted: bool,
}

impl Peer {
    fn build(script: &mut Script<'_>) -> Peer {
        let mut sealer = Sealer::new((0, secrets()), 1 << 24).expect("a valid key");
        let mut peer = Peer {
            wire: Vec::new(),
            model: Vec::new(),
            ended: false,
            corrupted: false,
        };
        let mut counter = 0u8;
        let mut pattern = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    counter = counter.wrapping_add(37);
                    counter
                })
                .collect()
        };
        while !script.0.is_empty() && peer.wire.len() < MAX_WIRE {
            match script.byte() % 4 {
                // Application data records.
                0 => {
                    let data = pattern(script.u16() % (3 * MAX_PLAIN));
                    sealer
                        .seal(&data, &mut peer.wire)
                        .expect("within the key's limit");
                    if !peer.ended {
                        peer.model.extend_from_slice(&data);
                    }
                }
                // One record of any content type, with padding (§5.4).
                1 => {
                    let content = script.byte();
                    let padding = usize::from(script.byte());
                    let data = if content == 0 {
                        Vec::new()
                    } else {
                        pattern(script.u16() % (MAX_PLAIN - 256))
                    };
                    let mut inner = data.clone();
                    if content != 0 {
                        inner.push(content);
                    }
                    inner.resize(inner.len() + padding, 0);
                    // Content type 0: the record layer appends a zero, i.e. more padding.
                    sealer.seal_record(0, &inner, &mut peer.wire);
                    if content == APPLICATION_DATA {
                        if !peer.ended {
                            peer.model.extend_from_slice(&data);
                        }
                    } else {
                        peer.ended = true;
                    }
                }
                // Raw bytes.
                2 => {
                    let n = usize::from(script.byte());
                    peer.wire.extend_from_slice(script.bytes(n));
                    peer.corrupted |= n > 0;
                }
                // A flipped bit in what is there.
                _ => {
                    let at = script.u16();
                    let bit = script.byte() % 8;
                    if let Some(b) = peer.wire.get_mut(at) {
                        *b ^= 1 << bit;
                        peer.corrupted = true;
                    }
                }
            }
        }
        peer
    }
}

/// Fuzzing entry point: builds a peer's stream from `script` (its first two bytes choose
/// how the socket cuts it and how large the caller's reads are), receives it, and checks
/// that the plaintext is a prefix of what the peer sealed (all of it when nothing was
/// corrupted), that the read buffer never grows, and that the end is an error, never a
/// panic. Panics on a violation (a crash for libFuzzer).
#[doc(hidden)]
pub fn fuzz_tls_records(script: &[u8]) {
    let mut script = Script(script);
    let piece = 1 + script.u16() * 3;
    let read_sizes = [1, 5, 17, 1000, MAX_PLAIN, MAX_PLAIN + 1, 70_000];
    let shape = script.byte();
    let peer = Peer::build(&mut script);

    let opener = Opener::new((0, secrets())).expect("a valid key");
    let mut inbound = Inbound::new(opener, Vec::new(), 0, Vec::new());
    let mut at = 0;
    let mut got = Vec::new();
    let mut i = 0;
    let end = loop {
        let want = read_sizes[(usize::from(shape) + i) % read_sizes.len()];
        i += 1;
        let mut out = vec![0u8; want];
        let result = inbound.recv(
            &mut out,
            |room| {
                let n = piece.min(room.len()).min(peer.wire.len() - at);
                room[..n].copy_from_slice(&peer.wire[at..at + n]);
                at += n;
                Ok(n)
            },
            |_| {},
        );
        assert_eq!(inbound.buffer_len(), BUFFER, "the read buffer grew");
        match result {
            Ok(()) => got.extend_from_slice(&out),
            // A partial read: what arrived before the error is a prefix too.
            Err(e) => break e,
        }
    };
    assert!(
        peer.model.starts_with(&got),
        "returned {} bytes that the peer did not send in that order",
        got.len()
    );
    if !peer.corrupted && !peer.ended {
        // Every sealed byte was returned except a tail shorter than the last read.
        assert!(
            peer.model.len() - got.len() < 70_000,
            "stopped early: {e}",
            e = end
        );
        assert!(
            matches!(end, NetError::Disconnected),
            "an intact stream ended with {end}"
        );
    }
}
