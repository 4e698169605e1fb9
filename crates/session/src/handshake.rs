//! The hello (once per connection) and the circuit header (once per execution). Both
//! parties send theirs, then read the peer's and compare field by field, so a mismatch
//! stops both sides with the same message naming what differs.

use mixgc_compile::StreamHeader;
use mixgc_core::{Block, HashKind};
use mixgc_garble::Scheme;
use mixgc_net::{recv_frame, send_abort, send_frame, Channel, NetError, PeerMisbehaved, Tag};

use crate::codec::Reader;
use crate::terms::{reveal_code, reveal_of_code};
use crate::{Audience, Command, PartyId, SessionConfig, SessionError, Terms};

/// Version of the wire protocol; bump on any change to frames, their order or the meaning
/// of their bytes (3: the AES row hash and group-masked rows of arithmetic gadgets; 4: the
/// row hash encodes a label's full base-p value; 5: digit groups of 8k digits mod 5, 7, 11,
/// 13 and other primes where that packs as tightly, `Modulus::group_len`; 6: programs send
/// Boolean and arithmetic rows on one table stream, `Tables` frames cut by size alone, so a
/// batch of ANDs may span frames and arithmetic frames carry only the key; the ANDs inside
/// CRT gadgets (a product's mod-2 residue, the reduction mod N of a bit decomposition) are
/// the session's half-gates, on its one AND counter; 7: the re-keyed hash is the default
/// gate hash, the hello names the command each party runs and its garbling scheme,
/// preprocessing exchanges release keys offline and online, program outputs carry a
/// structure digest, and a busy evaluator sends heartbeats online; 8: two processes carry
/// every byte in flow-control records, `mixgc_net::CreditChannel`, so a stopped peer is
/// noticed from when it stopped; 9: the OT extension expands its seeds with AES-128 in
/// counter mode instead of ChaCha20, base OTs travel beside the hello, and CNN layers send
/// garbler-private half gates for the weights' products).
pub const PROTOCOL_VERSION: u16 = 9;
const MAGIC: &[u8; 5] = b"MIXGC";
const HELLO_LEN: usize = 5 + 2 + 1 + 1 + 1 + 1 + 32;
/// The longest hello read (any protocol version's, to name a version that differs).
const MAX_HELLO_BYTES: usize = 256;
/// Where the nonce starts in a hello.
const NONCE_AT: usize = HELLO_LEN - 32;
/// Most input or output values a header may list.
const MAX_VALUES: usize = 1 << 20;
/// Most bytes of a circuit header frame.
const MAX_HEADER_BYTES: usize = 64 + 8 + 8 * MAX_VALUES + 9;

/// A party's code in the hello (pinned in transcripts): the garbler 1, the evaluator 2.
fn role_code(me: PartyId) -> Result<u8, SessionError> {
    match me {
        PartyId::GARBLER => Ok(1),
        PartyId::EVALUATOR => Ok(2),
        _ => Err(SessionError::Input(format!(
            "a two-party session is set up by the garbler and the evaluator, not by {me}"
        ))),
    }
}

/// A garbling scheme's code in the hello (pinned in transcripts) and in preprocessing states.
pub(crate) fn scheme_code(scheme: Scheme) -> u8 {
    match scheme {
        Scheme::HalfGates => 0,
        Scheme::ThreeHalves => 1,
    }
}

pub(crate) fn scheme_of_code(code: u8) -> Option<Scheme> {
    [Scheme::HalfGates, Scheme::ThreeHalves]
        .into_iter()
        .find(|&s| scheme_code(s) == code)
}

/// What the setup agreed: the session id (both nonces hashed) and the gate-hash seed.
pub(crate) struct Agreed {
    pub session_id: [u8; 32],
    pub hash_seed: Block,
}

/// Exchanges hellos and derives the session id from both parties' nonces.
///
/// Over a channel with a binding (TLS: an exporter of this very connection), each hello also
/// carries a tag of it and the session id hashes it in, so two TLS connections spliced by a
/// relay fail here; a plain channel sends and derives exactly what it did before.
pub(crate) fn hello<C: Channel>(
    ch: &mut C,
    me: PartyId,
    hash: HashKind,
    scheme: Scheme,
    command: Command,
    nonce: [u8; 32],
) -> Result<Agreed, SessionError> {
    hello_coded(ch, me, hash, scheme_code(scheme), command, nonce)
}

/// The scheme byte of a party in the malicious model (authenticated garbling,
/// `mixgc-malicious`): a semi-honest party and a malicious one name both models.
const MALICIOUS_CODE: u8 = 0x80;

/// The security model a scheme byte stands for, in words.
fn model_of_code(code: u8) -> &'static str {
    if code == MALICIOUS_CODE {
        "malicious"
    } else {
        "semi-honest"
    }
}

/// The hello of a party in the malicious model (`mixgc --security malicious`): the same
/// frame as a semi-honest party's, its scheme byte naming the model, so that a malicious
/// and a semi-honest party each stop with an error naming both models. Returns the session
/// id (both nonces and, over TLS, the channel binding hashed).
pub fn malicious_hello<C: Channel>(
    ch: &mut C,
    me: PartyId,
    command: Command,
    nonce: [u8; 32],
) -> Result<[u8; 32], SessionError> {
    let hash = SessionConfig::default().hash;
    hello_coded(ch, me, hash, MALICIOUS_CODE, command, nonce).map(|a| a.session_id)
}

fn hello_coded<C: Channel>(
    ch: &mut C,
    me: PartyId,
    hash: HashKind,
    scheme: u8,
    command: Command,
    nonce: [u8; 32],
) -> Result<Agreed, SessionError> {
    let sent = send_hello_coded(ch, me, hash, scheme, command, nonce)?;
    ch.flush()?;
    recv_hello(ch, &sent)
}

/// What this party's hello said, to compare the peer's with ([`recv_hello`]).
pub(crate) struct HelloSent {
    me: PartyId,
    hash: HashKind,
    scheme: u8,
    command: Command,
    nonce: [u8; 32],
    binding: Option<[u8; 32]>,
}

/// The first half of [`hello`]: queues this party's hello without flushing, so that a
/// message that needs nothing from the peer (the base-OT sender's S) can travel with it.
pub(crate) fn send_hello<C: Channel>(
    ch: &mut C,
    me: PartyId,
    hash: HashKind,
    scheme: Scheme,
    command: Command,
    nonce: [u8; 32],
) -> Result<HelloSent, SessionError> {
    send_hello_coded(ch, me, hash, scheme_code(scheme), command, nonce)
}

fn send_hello_coded<C: Channel>(
    ch: &mut C,
    me: PartyId,
    hash: HashKind,
    scheme: u8,
    command: Command,
    nonce: [u8; 32],
) -> Result<HelloSent, SessionError> {
    let binding = ch.channel_binding();
    let tag = binding.map(|b| blake3::derive_key("mixgc/channel-binding-tag/v1", &b));
    let len = HELLO_LEN + tag.map_or(0, |t| t.len());
    let mut msg = Vec::with_capacity(len);
    msg.extend_from_slice(MAGIC);
    msg.extend_from_slice(&PROTOCOL_VERSION.to_le_bytes());
    msg.push(role_code(me)?);
    msg.push(hash.code());
    msg.push(command.code());
    msg.push(scheme);
    msg.extend_from_slice(&nonce);
    if let Some(t) = &tag {
        msg.extend_from_slice(t);
    }
    send_frame(ch, Tag::Hello, &msg)?;
    Ok(HelloSent {
        me,
        hash,
        scheme,
        command,
        nonce,
        binding,
    })
}

/// The second half of [`hello`]: reads the peer's hello (ours flushed), compares it with
/// `sent` and derives the session id.
pub(crate) fn recv_hello<C: Channel>(ch: &mut C, sent: &HelloSent) -> Result<Agreed, SessionError> {
    let HelloSent {
        me,
        hash,
        scheme,
        command,
        nonce,
        binding,
    } = *sent;
    let tag = binding.map(|b| blake3::derive_key("mixgc/channel-binding-tag/v1", &b));
    let len = HELLO_LEN + tag.map_or(0, |t| t.len());
    // Read a hello of any version's length (within reason), so that the version can be named.
    let peer = recv_frame(ch, Tag::Hello, MAX_HELLO_BYTES).map_err(|e| match e {
        // A TLS record's first byte: a handshake (22) or an alert (21).
        NetError::Peer(
            PeerMisbehaved::UnexpectedFrame { got: 21 | 22, .. } | PeerMisbehaved::NotARecord { got: 21 | 22 },
        ) => SessionError::Mismatch(
            "the peer speaks TLS and this party plain TCP: give both --cert, --key and --peer-fingerprint or --peer-ca"
                .into(),
        ),
        // A hello frame outside a flow-control record: a mixgc before protocol version 8.
        NetError::Peer(PeerMisbehaved::NotARecord { got }) if got == Tag::Hello as u8 => {
            SessionError::Mismatch(format!(
                "protocol version differs: ours {PROTOCOL_VERSION}, the peer's older (its bytes are not in flow-control records)"
            ))
        }
        NetError::Peer(_) | NetError::PeerStopped(_) => {
            SessionError::Mismatch("the peer is not a mixgc party".into())
        }
        e => e.into(),
    })?;
    // Magic and version first: another version's hello may have another length.
    if peer.len() < 7 || &peer[..5] != MAGIC {
        return Err(SessionError::Mismatch("the peer is not a mixgc party".into()));
    }
    let peer_version = u16::from_le_bytes([peer[5], peer[6]]);
    if peer_version != PROTOCOL_VERSION {
        return Err(SessionError::Mismatch(format!(
            "protocol version differs: ours {PROTOCOL_VERSION}, the peer's {peer_version}"
        )));
    }
    if peer.len() != len {
        return Err(SessionError::Mismatch("the peer is not a mixgc party".into()));
    }
    if peer[7] == role_code(me)? {
        return Err(SessionError::Mismatch(format!("both parties chose --role {me}")));
    }
    if (peer[10] == MALICIOUS_CODE) != (scheme == MALICIOUS_CODE) {
        return Err(SessionError::Mismatch(format!(
            "security model differs: ours {}, the peer's {} (both parties must give the same --security)",
            model_of_code(scheme),
            model_of_code(peer[10])
        )));
    }
    let peer_hash = HashKind::from_code(peer[8]).map_or("unknown".to_string(), |h| h.to_string());
    if peer[8] != hash.code() {
        return Err(SessionError::Mismatch(format!(
            "gate hash differs: ours {hash}, the peer's {peer_hash}"
        )));
    }
    let peer_command = Command::from_code(peer[9]);
    if let Some(theirs) =
        peer_command.filter(|&c| c != command && c != Command::Library && command != Command::Library)
    {
        return Err(SessionError::Mismatch(format!(
            "the peer runs {theirs} and this party {command}: both parties must run the same command"
        )));
    }
    if peer_command.is_none() {
        return Err(SessionError::Mismatch(
            "the peer runs a command this version does not know".into(),
        ));
    }
    if peer[10] != scheme {
        let name = |c| scheme_of_code(c).map_or("unknown", Scheme::name);
        return Err(SessionError::Mismatch(format!(
            "garbling scheme differs: ours {}, the peer's {}",
            name(scheme),
            name(peer[10])
        )));
    }
    if let Some(t) = &tag {
        if peer[HELLO_LEN..] != t[..] {
            return Err(SessionError::Mismatch(
                "the TLS channel binding differs: the parties are not on the same TLS connection \
                 (a relay between two connections)"
                    .into(),
            ));
        }
    }
    let (g_nonce, e_nonce) = if me == PartyId::GARBLER {
        (&nonce[..], &peer[NONCE_AT..HELLO_LEN])
    } else {
        (&peer[NONCE_AT..HELLO_LEN], &nonce[..])
    };
    let mut h = blake3::Hasher::new_derive_key("mixgc/session-id/v1");
    h.update(g_nonce).update(e_nonce);
    if let Some(b) = &binding {
        h.update(b);
    }
    let session_id: [u8; 32] = h.finalize().into();
    let seed = blake3::derive_key("mixgc/rekeyed-hash-seed/v1", &session_id);
    Ok(Agreed {
        session_id,
        hash_seed: Block::from_bytes(seed[..16].try_into().unwrap()),
    })
}

/// The per-execution header both parties compare.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Header {
    digest: [u8; 32],
    stream_digest: [u8; 32],
    input_widths: Vec<u32>,
    output_widths: Vec<u32>,
    garbler_values: u32,
    reveal: u8,
    instances: u32,
}

impl Header {
    fn encode(&self) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(&self.digest);
        m.extend_from_slice(&self.stream_digest);
        for list in [&self.input_widths, &self.output_widths] {
            m.extend_from_slice(&(list.len() as u32).to_le_bytes());
            list.iter().for_each(|w| m.extend_from_slice(&w.to_le_bytes()));
        }
        m.extend_from_slice(&self.garbler_values.to_le_bytes());
        m.push(self.reveal);
        m.extend_from_slice(&self.instances.to_le_bytes());
        m
    }

    fn decode(m: &[u8]) -> Option<Header> {
        let mut r = Reader(m);
        let digest = r.take(32)?.try_into().ok()?;
        let stream_digest = r.take(32)?.try_into().ok()?;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let n = r.u32()? as usize;
            if n > MAX_VALUES {
                return None;
            }
            for _ in 0..n {
                list.push(r.u32()?);
            }
        }
        let [input_widths, output_widths] = lists;
        let garbler_values = r.u32()?;
        let reveal = r.take(1)?[0];
        let instances = r.u32()?;
        r.0.is_empty().then_some(Header {
            digest,
            stream_digest,
            input_widths,
            output_widths,
            garbler_values,
            reveal,
            instances,
        })
    }
}

/// Fuzzing entry point: the evaluator's hello, then the reading of a circuit header, against
/// a peer that sent `peer` (then closed its side). Never panics on any input.
#[doc(hidden)]
pub fn fuzz_handshake(peer: &[u8]) -> bool {
    let (mut ours, mut theirs) = mixgc_net::memory_pair();
    // Within what the channel holds unread.
    let peer = &peer[..peer.len().min(1 << 20)];
    if theirs.send(peer).and_then(|()| theirs.flush()).is_err() {
        return false;
    }
    theirs.close();
    if hello(
        &mut ours,
        PartyId::EVALUATOR,
        HashKind::Tccr,
        Scheme::HalfGates,
        Command::Library,
        [7; 32],
    )
    .is_err()
    {
        return false;
    }
    recv_frame(&mut ours, Tag::CircuitHeader, MAX_HEADER_BYTES).is_ok_and(|m| Header::decode(&m).is_some())
}

pub(crate) fn hex8(d: &[u8; 32]) -> String {
    d[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Widths as `8, 8, 16 bits`.
fn width_list(w: &[u32]) -> String {
    if w.is_empty() {
        return "none".into();
    }
    let each: Vec<String> = w.iter().map(u32::to_string).collect();
    format!("{} bits", each.join(", "))
}

/// Exchanges circuit headers (for a batch of `instances` executions) and names every
/// difference.
pub(crate) fn agree_on_circuit<C: Channel>(
    ch: &mut C,
    circuit: &StreamHeader,
    terms: &Terms,
    instances: usize,
) -> Result<(), SessionError> {
    let garbler_values = terms
        .resolved_garbler_values(circuit.input_widths())
        .map_err(SessionError::Input)?;
    let ours = Header {
        digest: circuit.digest(),
        stream_digest: circuit.stream_digest(),
        input_widths: circuit.input_widths().to_vec(),
        output_widths: circuit.output_widths().to_vec(),
        garbler_values: garbler_values as u32,
        reveal: reveal_code(terms.reveal)?,
        instances: u32::try_from(instances).map_err(|_| SessionError::Input("batch too large".into()))?,
    };
    send_frame(ch, Tag::CircuitHeader, &ours.encode())?;
    ch.flush()?;
    let peer = Header::decode(&recv_frame(ch, Tag::CircuitHeader, MAX_HEADER_BYTES)?)
        .ok_or(PeerMisbehaved::Malformed(Tag::CircuitHeader))?;
    let mut diffs = Vec::new();
    if ours.input_widths != peer.input_widths {
        diffs.push(format!(
            "input widths differ: ours {}, the peer's {}",
            width_list(&ours.input_widths),
            width_list(&peer.input_widths)
        ));
    }
    if ours.output_widths != peer.output_widths {
        diffs.push(format!(
            "output widths differ: ours {}, the peer's {}",
            width_list(&ours.output_widths),
            width_list(&peer.output_widths)
        ));
    }
    if ours.digest != peer.digest {
        diffs.push(format!(
            "circuit digest differs: ours {}…, the peer's {}… (the parties loaded different circuits)",
            hex8(&ours.digest),
            hex8(&peer.digest)
        ));
    }
    if ours.digest == peer.digest && ours.stream_digest != peer.stream_digest {
        diffs.push(format!(
            "compiled stream differs: ours {}…, the peer's {}… (the same circuit compiled with another schedule or window)",
            hex8(&ours.stream_digest),
            hex8(&peer.stream_digest)
        ));
    }
    if ours.garbler_values != peer.garbler_values {
        diffs.push(format!(
            "value ownership differs: ours says the garbler owns {} value(s), the peer's says {}",
            ours.garbler_values, peer.garbler_values
        ));
    }
    if ours.reveal != peer.reveal {
        let name = |c| reveal_of_code(c).map_or("unknown".to_string(), |r| r.to_string());
        diffs.push(format!(
            "reveal mode differs: ours {}, the peer's {}",
            name(ours.reveal),
            name(peer.reveal)
        ));
    }
    if ours.instances != peer.instances {
        diffs.push(format!(
            "batch size differs: ours {}, the peer's {}",
            ours.instances, peer.instances
        ));
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(SessionError::Mismatch(diffs.join("; ")))
    }
}

/// The longest program description a mismatch report carries.
const MAX_PROGRAM_TEXT: usize = 4096;

/// Exchanges the name of a program run and its reveal mode, and names any difference.
///
/// `program` is a name, optionally followed by the run's parameters as `key=value` words
/// (`lenet realization=plain width=8`). The header carries its hash; only when the hashes
/// differ do the parties exchange the text, so a mismatch names each differing parameter
/// with both values while agreeing runs send nothing more.
pub(crate) fn agree_on_program<C: Channel>(
    ch: &mut C,
    program: &str,
    reveal: Audience,
) -> Result<(), SessionError> {
    let mut ours = blake3::hash(program.as_bytes()).as_bytes().to_vec();
    ours.push(reveal_code(reveal)?);
    send_frame(ch, Tag::ProgramHeader, &ours)?;
    ch.flush()?;
    let peer = recv_frame(ch, Tag::ProgramHeader, 33)?;
    if peer.len() != 33 {
        return Err(PeerMisbehaved::Malformed(Tag::ProgramHeader).into());
    }
    let mut diffs = Vec::new();
    if peer[..32] != ours[..32] {
        let text = program.as_bytes();
        send_frame(ch, Tag::ProgramHeader, &text[..text.len().min(MAX_PROGRAM_TEXT)])?;
        ch.flush()?;
        let theirs = recv_frame(ch, Tag::ProgramHeader, MAX_PROGRAM_TEXT)?;
        diffs.push(program_differences(program, &String::from_utf8_lossy(&theirs)));
    }
    if peer[32] != ours[32] {
        let name = |c| reveal_of_code(c).map_or("unknown".to_string(), |r| r.to_string());
        diffs.push(format!(
            "reveal mode differs: ours {}, the peer's {}",
            name(ours[32]),
            name(peer[32])
        ));
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(SessionError::Mismatch(diffs.join("; ")))
    }
}

/// Names what differs between two program descriptions: each differing `key=value`
/// parameter with both values when the names agree, else both descriptions whole.
fn program_differences(ours: &str, theirs: &str) -> String {
    let split = |d: &str| -> Option<(String, Vec<(String, String)>)> {
        let mut words = d.split_whitespace();
        let name = words.next()?.to_string();
        let params = words
            .map(|w| w.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
            .collect::<Option<Vec<_>>>()?;
        Some((name, params))
    };
    if let (Some((n1, p1)), Some((n2, p2))) = (split(ours), split(theirs)) {
        if n1 == n2 {
            let value = |p: &[(String, String)], k: &str| {
                p.iter()
                    .find(|(key, _)| key == k)
                    .map_or("(none)".to_string(), |(_, v)| v.clone())
            };
            let mut keys: Vec<&str> = p1.iter().map(|(k, _)| k.as_str()).collect();
            keys.extend(
                p2.iter()
                    .map(|(k, _)| k.as_str())
                    .filter(|k| !p1.iter().any(|(o, _)| o == k)),
            );
            let named: Vec<String> = keys
                .into_iter()
                .filter(|k| value(&p1, k) != value(&p2, k))
                .map(|k| format!("{k}: ours {}, the peer's {}", value(&p1, k), value(&p2, k)))
                .collect();
            if !named.is_empty() {
                return format!("program differs ({n1}): {}", named.join("; "));
            }
        }
    }
    format!("program differs: ours is '{ours}', the peer's is '{theirs}'")
}

/// Passes `result` through; if it is a local input error, first tells the peer (who is
/// waiting for our next message) why we stop.
pub(crate) fn abort_on_bad_input<C: Channel, T>(
    ch: &mut C,
    result: Result<T, SessionError>,
) -> Result<T, SessionError> {
    if let Err(e @ SessionError::Input(_)) = &result {
        abort(ch, e);
    }
    result
}

/// Tells the peer why we stop (best effort: the connection may already be gone), then
/// reads and discards whatever the peer still sends until it closes or goes silent.
/// Closing at once could make the peer's next write fail (or a TCP reset discard our
/// frame) before it reads the Abort, leaving it with "connection closed" instead of
/// the reason.
pub(crate) fn abort<C: Channel>(ch: &mut C, err: &SessionError) {
    if send_abort(ch, &err.to_string()).is_err() {
        return;
    }
    let mut sink = [0u8; 4096];
    while ch.recv(&mut sink).is_ok() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever a peer sends as a circuit header, decoding returns a header or `None`.
        #[test]
        fn header_decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = Header::decode(&bytes);
        }

        /// A valid header with random trailing or missing bytes is rejected, never misread.
        #[test]
        fn truncated_or_extended_headers_are_rejected(cut in 1usize..40, extra in proptest::collection::vec(any::<u8>(), 1..8)) {
            let h = Header { digest: [1; 32], stream_digest: [2; 32], input_widths: vec![8, 8], output_widths: vec![8], garbler_values: 1, reveal: 0, instances: 1 };
            let enc = h.encode();
            prop_assert_eq!(Header::decode(&enc[..enc.len().saturating_sub(cut)]), None);
            let mut longer = enc.clone();
            longer.extend(extra);
            prop_assert_eq!(Header::decode(&longer), None);
        }
    }

    /// A channel that reports a given binding, as a TLS connection reports its exporter.
    struct Bound<C>(C, [u8; 32]);

    impl<C: Channel> Channel for Bound<C> {
        fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
            self.0.send(data)
        }
        fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
            self.0.recv(buf)
        }
        fn flush(&mut self) -> Result<(), NetError> {
            self.0.flush()
        }
        fn bytes_sent(&self) -> u64 {
            self.0.bytes_sent()
        }
        fn bytes_received(&self) -> u64 {
            self.0.bytes_received()
        }
        fn channel_binding(&self) -> Option<[u8; 32]> {
            Some(self.1)
        }
    }

    /// Both hellos over channels bound to `g` and `e` (or plain): the garbler's and the
    /// evaluator's results.
    fn hellos(g: Option<[u8; 32]>, e: Option<[u8; 32]>) -> [Result<[u8; 32], String>; 2] {
        let (a, b) = mixgc_net::memory_pair();
        let run = |ch: mixgc_net::MemoryChannel, binding: Option<[u8; 32]>, me: PartyId, nonce: u8| {
            std::thread::spawn(move || {
                let r = match binding {
                    Some(x) => hello(
                        &mut Bound(ch, x),
                        me,
                        HashKind::Tccr,
                        Scheme::HalfGates,
                        Command::Library,
                        [nonce; 32],
                    ),
                    None => hello(
                        &mut { ch },
                        me,
                        HashKind::Tccr,
                        Scheme::HalfGates,
                        Command::Library,
                        [nonce; 32],
                    ),
                };
                r.map(|a| a.session_id).map_err(|e| e.to_string())
            })
        };
        let g = run(a, g, PartyId::GARBLER, 1);
        let e = run(b, e, PartyId::EVALUATOR, 2);
        [g.join().unwrap(), e.join().unwrap()]
    }

    #[test]
    fn program_differences_name_each_parameter_with_both_values() {
        assert_eq!(
            program_differences(
                "lenet realization=plain width=8 input=28",
                "lenet realization=plain width=12"
            ),
            "program differs (lenet): width: ours 8, the peer's 12; input: ours 28, the peer's (none)"
        );
        assert_eq!(
            program_differences("aes", "lenet width=8"),
            "program differs: ours is 'aes', the peer's is 'lenet width=8'"
        );
    }

    #[test]
    fn the_session_id_binds_the_channel() {
        let [g, e] = hellos(Some([5; 32]), Some([5; 32]));
        assert_eq!(g.clone().unwrap(), e.unwrap());
        let [plain, _] = hellos(None, None);
        // The binding changes the id; without one the id is that of the nonces alone.
        assert_ne!(g.unwrap(), plain.clone().unwrap());
        let mut h = blake3::Hasher::new_derive_key("mixgc/session-id/v1");
        h.update(&[1; 32]).update(&[2; 32]);
        assert_eq!(plain.unwrap(), <[u8; 32]>::from(h.finalize()));
        // Two connections spliced by a relay: each side has its own binding.
        for r in hellos(Some([5; 32]), Some([6; 32])) {
            let e = r.unwrap_err();
            assert!(e.contains("TLS channel binding differs"), "{e}");
        }
    }

    #[test]
    fn header_round_trips_and_rejects_garbage() {
        let h = Header {
            digest: [7; 32],
            stream_digest: [9; 32],
            input_widths: vec![128, 128],
            output_widths: vec![128],
            garbler_values: 1,
            reveal: 0,
            instances: 3,
        };
        assert_eq!(Header::decode(&h.encode()), Some(h.clone()));
        let enc = h.encode();
        assert_eq!(Header::decode(&enc[..enc.len() - 1]), None);
        let mut longer = enc.clone();
        longer.push(0);
        assert_eq!(Header::decode(&longer), None);
        assert_eq!(Header::decode(&[0xff; 40]), None);
    }
}
