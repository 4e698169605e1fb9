//! The handshake on every pair of parties, before anything secret moves.
//!
//! Every party sends every other a hello (the n-party protocol version, n, both ids, a
//! fresh 32-byte nonce and the caller's [`RunFacts`]), reads every other's, and compares
//! them field by field with its own: any difference stops the run with
//! [`NpartyError::Mismatch`] naming the party and the field with both values, and the party
//! tells every other why ([`Mesh::abort_all`]). The session id is BLAKE3 of all n nonces in
//! id order, so every party contributes to it and none fixes it; a last round confirms
//! that every party derived the same one (a party that sent different nonces to different
//! parties, or a relay between two of them, shows as a session id that differs).
//!
//! All parties' frames use [`Tag::PartyHello`]; a kind byte after the magic tells the
//! connection's introduction (see `tcp`), the hello and the confirmation apart.

use mixgc_net::{PeerMisbehaved, Tag};
use rand::RngCore;

use crate::{Mesh, NpartyError};

/// Version of the n-party wire protocol; bump on any change to its frames or their order
/// (3: the pairwise OT extensions expand their seeds with AES-128 in counter mode).
pub const NPARTY_PROTOCOL_VERSION: u16 = 3;
/// Most parties a run may have.
pub const MAX_PARTIES: usize = 1024;
/// Most input or output values a hello may list.
pub const MAX_VALUES: usize = 1 << 20;
/// Longest protocol name, extra fact name or extra fact value.
pub const MAX_TEXT: usize = 1024;
/// Most extra facts.
pub const MAX_EXTRA: usize = 64;
/// Longest hello frame read.
const MAX_HELLO_BYTES: usize = 32 << 20;
/// Longest introduction or confirmation frame read.
pub(crate) const MAX_SHORT_BYTES: usize = 64;

const MAGIC: &[u8; 6] = b"MIXGCN";
const KIND_INTRO: u8 = 1;
const KIND_HELLO: u8 = 2;
const KIND_CONFIRM: u8 = 3;

/// What every party must agree on before a run: the caller fills it from its circuit or
/// program and command line, and the handshake compares it field by field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunFacts {
    /// The protocol, in words ("gmw", "bmr").
    pub protocol: String,
    /// The circuit's or program's digest.
    pub digest: [u8; 32],
    /// `input_owners[k]`: the party that supplies input value k.
    pub input_owners: Vec<usize>,
    /// `output_audience[k]`: the parties that learn output value k (ascending, not empty).
    pub output_audience: Vec<Vec<usize>>,
    /// Anything else to compare, as (name, value) pairs in an order every party uses.
    pub extra: Vec<(String, String)>,
}

/// A hello as read from a peer.
#[derive(Debug, PartialEq, Eq)]
struct Hello {
    version: u16,
    parties: usize,
    from: usize,
    to: usize,
    nonce: [u8; 32],
    facts: RunFacts,
}

/// A connection's introduction: who dials whom, in a run of how many.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Intro {
    pub version: u16,
    pub parties: usize,
    pub from: usize,
    pub to: usize,
    /// A tag of the connection's TLS exporter ([`mixgc_net::Channel::channel_binding`]),
    /// all zero over plain TCP: both ends compare it (see `tcp`).
    pub binding: [u8; 32],
}

/// Runs the handshake on `mesh` (see the module docs) and returns the session id. On any
/// error every other party is told why before this returns.
pub fn handshake(mesh: &mut Mesh, facts: &RunFacts) -> Result<[u8; 32], NpartyError> {
    let mut nonce = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut nonce);
    handshake_inner(mesh, facts, nonce).inspect_err(|e| mesh.abort_all(&e.to_string()))
}

fn handshake_inner(mesh: &mut Mesh, facts: &RunFacts, nonce: [u8; 32]) -> Result<[u8; 32], NpartyError> {
    let (me, n) = (mesh.me(), mesh.parties());
    check_own_facts(facts, n)?;
    let peers: Vec<usize> = mesh.peers().collect();
    for &j in &peers {
        let ours = Hello {
            version: NPARTY_PROTOCOL_VERSION,
            parties: n,
            from: me,
            to: j,
            nonce,
            facts: facts.clone(),
        };
        mesh.send(j, Tag::PartyHello, &encode_hello(&ours))?;
    }
    let mut nonces = vec![[0u8; 32]; n];
    nonces[me] = nonce;
    for &j in &peers {
        let bytes = mesh.recv(j, Tag::PartyHello, MAX_HELLO_BYTES)?;
        let theirs = decode_hello(&bytes).ok_or_else(|| malformed(j))?;
        compare(me, n, facts, j, &theirs)?;
        nonces[j] = theirs.nonce;
    }
    let id = session_id(&nonces);
    for &j in &peers {
        mesh.send(j, Tag::PartyHello, &encode_confirm(&id))?;
    }
    for &j in &peers {
        let bytes = mesh.recv(j, Tag::PartyHello, MAX_SHORT_BYTES)?;
        let theirs = decode_confirm(&bytes).ok_or_else(|| malformed(j))?;
        if theirs != id {
            return Err(NpartyError::Mismatch {
                party: j,
                what: format!(
                    "session id {} here vs {} there (the parties saw different nonces)",
                    short_hex(&id),
                    short_hex(&theirs)
                ),
            });
        }
    }
    Ok(id)
}

/// BLAKE3 of n and all n nonces in id order.
fn session_id(nonces: &[[u8; 32]]) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key("mixgc n-party session id v1");
    h.update(&(nonces.len() as u64).to_le_bytes());
    for nonce in nonces {
        h.update(nonce);
    }
    *h.finalize().as_bytes()
}

fn malformed(party: usize) -> NpartyError {
    NpartyError::Peer {
        party,
        source: PeerMisbehaved::Malformed(Tag::PartyHello).into(),
    }
}

/// This party's own facts must fit n and the wire limits.
fn check_own_facts(facts: &RunFacts, n: usize) -> Result<(), NpartyError> {
    let usage = |m: String| Err(NpartyError::Usage(m));
    if !(2..=MAX_PARTIES).contains(&n) {
        return usage(format!("a run has 2 to {MAX_PARTIES} parties, not {n}"));
    }
    if facts.input_owners.len() > MAX_VALUES || facts.output_audience.len() > MAX_VALUES {
        return usage(format!("a run has at most {MAX_VALUES} input and output values"));
    }
    if let Some((k, p)) = facts.input_owners.iter().enumerate().find(|(_, &p)| p >= n) {
        return usage(format!(
            "input #{k} is owned by party {p}, but there are only {n} parties"
        ));
    }
    for (k, audience) in facts.output_audience.iter().enumerate() {
        if audience.is_empty() {
            return usage(format!("output #{k} has no audience"));
        }
        if !audience.windows(2).all(|w| w[0] < w[1]) || audience[audience.len() - 1] >= n {
            return usage(format!(
                "output #{k}'s audience {audience:?} is not ascending ids below n = {n}"
            ));
        }
    }
    if facts.protocol.len() > MAX_TEXT
        || facts.extra.len() > MAX_EXTRA
        || facts
            .extra
            .iter()
            .any(|(a, b)| a.len() > MAX_TEXT || b.len() > MAX_TEXT)
    {
        return usage(format!(
            "the run's facts are too long (at most {MAX_EXTRA} extra facts, {MAX_TEXT} bytes each)"
        ));
    }
    Ok(())
}

/// Compares party `j`'s hello with this party's view, field by field.
fn compare(me: usize, n: usize, ours: &RunFacts, j: usize, theirs: &Hello) -> Result<(), NpartyError> {
    let differ = |what: String| Err(NpartyError::Mismatch { party: j, what });
    if theirs.version != NPARTY_PROTOCOL_VERSION {
        return differ(format!(
            "protocol version {NPARTY_PROTOCOL_VERSION} here vs {} there",
            theirs.version
        ));
    }
    if theirs.parties != n {
        return differ(format!("n = {n} here vs {} there", theirs.parties));
    }
    if theirs.from != j {
        return differ(format!(
            "it calls itself party {} on the link to party {j}",
            theirs.from
        ));
    }
    if theirs.to != me {
        return differ(format!(
            "it takes this party (party {me}) for party {}",
            theirs.to
        ));
    }
    let theirs = &theirs.facts;
    if theirs.protocol != ours.protocol {
        return differ(format!(
            "protocol {} here vs {} there",
            ours.protocol, theirs.protocol
        ));
    }
    if theirs.digest != ours.digest {
        return differ(format!(
            "circuit digest {} here vs {} there",
            short_hex(&ours.digest),
            short_hex(&theirs.digest)
        ));
    }
    if let Some(what) = first_difference("input", &ours.input_owners, &theirs.input_owners, |p| {
        format!("party {p}")
    }) {
        return differ(format!("owner of {what}"));
    }
    if let Some(what) = first_difference("output", &ours.output_audience, &theirs.output_audience, |a| {
        format!("parties {a:?}")
    }) {
        return differ(format!("audience of {what}"));
    }
    let names = |f: &RunFacts| f.extra.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    if names(ours) != names(theirs) {
        return differ(format!(
            "facts named {:?} here vs {:?} there",
            names(ours),
            names(theirs)
        ));
    }
    if let Some(((k, a), (_, b))) = ours.extra.iter().zip(&theirs.extra).find(|(a, b)| a.1 != b.1) {
        return differ(format!("{k} = {a} here vs {b} there"));
    }
    Ok(())
}

/// Where two per-value lists first differ, in words: "input #3: party 1 here vs party 0
/// there", or "the inputs: 4 here vs 5 there" when their lengths differ.
fn first_difference<T: PartialEq>(
    noun: &str,
    ours: &[T],
    theirs: &[T],
    show: impl Fn(&T) -> String,
) -> Option<String> {
    if ours.len() != theirs.len() {
        return Some(format!(
            "the {noun}s: {} here vs {} there",
            ours.len(),
            theirs.len()
        ));
    }
    let k = ours.iter().zip(theirs).position(|(a, b)| a != b)?;
    Some(format!(
        "{noun} #{k}: {} here vs {} there",
        show(&ours[k]),
        show(&theirs[k])
    ))
}

/// The first 8 bytes in hex and an ellipsis.
fn short_hex(bytes: &[u8; 32]) -> String {
    let mut s: String = bytes[..8].iter().map(|b| format!("{b:02x}")).collect();
    s.push('…');
    s
}

fn header(kind: u8) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.push(kind);
    out
}

pub(crate) fn encode_intro(intro: &Intro) -> Vec<u8> {
    let mut out = header(KIND_INTRO);
    out.extend_from_slice(&intro.version.to_le_bytes());
    for v in [intro.parties, intro.from, intro.to] {
        put_u32(&mut out, v);
    }
    out.extend_from_slice(&intro.binding);
    out
}

/// An introduction, or `None` if the bytes are not one.
pub(crate) fn decode_intro(bytes: &[u8]) -> Option<Intro> {
    let mut r = Reader::after_header(bytes, KIND_INTRO)?;
    let intro = Intro {
        version: r.u16()?,
        parties: r.u32()?,
        from: r.u32()?,
        to: r.u32()?,
        binding: r.array()?,
    };
    r.end()?;
    Some(intro)
}

fn encode_confirm(id: &[u8; 32]) -> Vec<u8> {
    let mut out = header(KIND_CONFIRM);
    out.extend_from_slice(id);
    out
}

fn decode_confirm(bytes: &[u8]) -> Option<[u8; 32]> {
    let mut r = Reader::after_header(bytes, KIND_CONFIRM)?;
    let id = r.array()?;
    r.end()?;
    Some(id)
}

fn encode_hello(h: &Hello) -> Vec<u8> {
    let f = &h.facts;
    let mut out = header(KIND_HELLO);
    out.extend_from_slice(&h.version.to_le_bytes());
    for v in [h.parties, h.from, h.to] {
        put_u32(&mut out, v);
    }
    out.extend_from_slice(&h.nonce);
    out.extend_from_slice(&f.digest);
    put_text(&mut out, &f.protocol);
    put_u32(&mut out, f.input_owners.len());
    for &p in &f.input_owners {
        put_u32(&mut out, p);
    }
    put_u32(&mut out, f.output_audience.len());
    for audience in &f.output_audience {
        put_u32(&mut out, audience.len());
        for &p in audience {
            put_u32(&mut out, p);
        }
    }
    put_u32(&mut out, f.extra.len());
    for (name, value) in &f.extra {
        put_text(&mut out, name);
        put_text(&mut out, value);
    }
    out
}

/// A hello, or `None` if the bytes are not one (every count bounded before allocating).
fn decode_hello(bytes: &[u8]) -> Option<Hello> {
    let mut r = Reader::after_header(bytes, KIND_HELLO)?;
    let (version, parties, from, to) = (r.u16()?, r.u32()?, r.u32()?, r.u32()?);
    let nonce = r.array()?;
    let digest = r.array()?;
    let protocol = r.text()?;
    let owners = r.count(MAX_VALUES, 4)?;
    let input_owners = (0..owners).map(|_| r.u32()).collect::<Option<_>>()?;
    let outputs = r.count(MAX_VALUES, 4)?;
    let output_audience = (0..outputs)
        .map(|_| {
            let len = r.count(MAX_PARTIES, 4)?;
            (0..len).map(|_| r.u32()).collect::<Option<Vec<_>>>()
        })
        .collect::<Option<_>>()?;
    let extras = r.count(MAX_EXTRA, 8)?;
    let extra = (0..extras)
        .map(|_| Some((r.text()?, r.text()?)))
        .collect::<Option<_>>()?;
    r.end()?;
    Some(Hello {
        version,
        parties,
        from,
        to,
        nonce,
        facts: RunFacts {
            protocol,
            digest,
            input_owners,
            output_audience,
            extra,
        },
    })
}

/// Ids and counts go on the wire as u32; the callers bound them far below.
fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_text(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Reads a frame's fields; every read is bounds-checked (`None` past the end).
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader after the magic and `kind`, if the frame starts with them.
    fn after_header(bytes: &'a [u8], kind: u8) -> Option<Reader<'a>> {
        let rest = bytes.strip_prefix(MAGIC.as_slice())?.strip_prefix(&[kind])?;
        Some(Reader { rest })
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        if len > self.rest.len() {
            return None;
        }
        let (head, tail) = self.rest.split_at(len);
        self.rest = tail;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Option<usize> {
        self.array().map(u32::from_le_bytes).map(|v| v as usize)
    }

    /// A count of at most `max` items of at least `item_bytes` each that fit what is left.
    fn count(&mut self, max: usize, item_bytes: usize) -> Option<usize> {
        let n = self.u32()?;
        (n <= max && n.checked_mul(item_bytes)? <= self.rest.len()).then_some(n)
    }

    fn text(&mut self) -> Option<String> {
        let len = self.count(MAX_TEXT, 1)?;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    fn end(&self) -> Option<()> {
        self.rest.is_empty().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory_mesh;
    use proptest::prelude::*;

    fn facts() -> RunFacts {
        RunFacts {
            protocol: "gmw".into(),
            digest: [7; 32],
            input_owners: vec![0, 1, 2, 2],
            output_audience: vec![vec![0, 1, 2], vec![1]],
            extra: vec![("rounds".into(), "3".into())],
        }
    }

    /// Runs the handshake on an in-memory mesh, party i with `facts[i]`.
    fn run(facts: Vec<RunFacts>) -> Vec<Result<[u8; 32], NpartyError>> {
        let meshes = memory_mesh(facts.len());
        std::thread::scope(|s| {
            let hs: Vec<_> = meshes
                .into_iter()
                .zip(facts)
                .map(|(mut m, f)| s.spawn(move || handshake(&mut m, &f)))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn agreeing_parties_share_a_fresh_session_id() {
        let first = run(vec![facts(); 3]);
        let id = *first[0].as_ref().unwrap();
        assert!(first.iter().all(|r| r.as_ref().ok() == Some(&id)));
        let second = run(vec![facts(); 3]);
        assert_ne!(second[0].as_ref().unwrap(), &id, "every run's nonces are fresh");
    }

    /// One party's fact differs: every other party names it and the field with both values;
    /// it names a party that differs from it.
    #[test]
    fn every_differing_fact_is_named_on_every_side() {
        type Change = fn(&mut RunFacts);
        let cases: Vec<(Change, &str)> = vec![
            (|f| f.protocol = "bmr".into(), "protocol gmw here vs bmr there"),
            (
                |f| f.digest[0] = 0xab,
                "circuit digest 0707070707070707… here vs ab07070707070707… there",
            ),
            (
                |f| f.input_owners[3] = 0,
                "owner of input #3: party 2 here vs party 0 there",
            ),
            (
                |f| f.input_owners.push(1),
                "owner of the inputs: 4 here vs 5 there",
            ),
            (
                |f| f.output_audience[1] = vec![0, 1],
                "audience of output #1: parties [1] here vs parties [0, 1] there",
            ),
            (|f| f.extra[0].1 = "4".into(), "rounds = 3 here vs 4 there"),
            (|f| f.extra.clear(), "facts named [\"rounds\"] here vs [] there"),
        ];
        for (change, message) in cases {
            let mut all = vec![facts(); 3];
            change(&mut all[2]);
            let got = run(all);
            for (i, r) in got.iter().enumerate() {
                let e = r.as_ref().unwrap_err();
                assert!(matches!(e, NpartyError::Mismatch { .. }), "party {i}: {e}");
                if i < 2 {
                    assert_eq!(e.party(), Some(2));
                    assert_eq!(e.to_string(), format!("party 2 disagrees: {message}"));
                } else {
                    assert_eq!(e.party(), Some(0), "{e}");
                }
            }
        }
    }

    /// The fields before the facts: version, n and both ids, each named with both values.
    #[test]
    fn the_header_fields_are_compared_and_named() {
        let hello = |version, parties, from, to| Hello {
            version,
            parties,
            from,
            to,
            nonce: [0; 32],
            facts: facts(),
        };
        let ours = facts();
        let v = NPARTY_PROTOCOL_VERSION;
        let newer = format!("protocol version {v} here vs {} there", v + 1);
        let cases = [
            (hello(v + 1, 3, 1, 0), newer.as_str()),
            (hello(NPARTY_PROTOCOL_VERSION, 4, 1, 0), "n = 3 here vs 4 there"),
            (
                hello(NPARTY_PROTOCOL_VERSION, 3, 2, 0),
                "it calls itself party 2 on the link to party 1",
            ),
            (
                hello(NPARTY_PROTOCOL_VERSION, 3, 1, 2),
                "it takes this party (party 0) for party 2",
            ),
        ];
        for (theirs, what) in cases {
            let e = compare(0, 3, &ours, 1, &theirs).unwrap_err();
            assert_eq!(e.to_string(), format!("party 1 disagrees: {what}"));
        }
        assert!(compare(0, 3, &ours, 1, &hello(NPARTY_PROTOCOL_VERSION, 3, 1, 0)).is_ok());
    }

    #[test]
    fn own_facts_that_do_not_fit_are_a_usage_error() {
        let bad: Vec<fn(&mut RunFacts)> = vec![
            |f| f.input_owners[0] = 3,
            |f| f.output_audience[0] = vec![1, 0],
            |f| f.output_audience[0] = vec![],
            |f| f.output_audience[0] = vec![5],
            |f| f.protocol = "x".repeat(MAX_TEXT + 1),
        ];
        for change in bad {
            let mut f = facts();
            change(&mut f);
            assert!(matches!(check_own_facts(&f, 3), Err(NpartyError::Usage(_))));
        }
        assert!(check_own_facts(&facts(), 3).is_ok());
        assert!(check_own_facts(&facts(), 1).is_err());
    }

    #[test]
    fn frames_round_trip() {
        let h = Hello {
            version: NPARTY_PROTOCOL_VERSION,
            parties: 3,
            from: 1,
            to: 2,
            nonce: [9; 32],
            facts: facts(),
        };
        assert_eq!(decode_hello(&encode_hello(&h)), Some(h));
        let i = Intro {
            version: 1,
            parties: 5,
            from: 0,
            to: 4,
            binding: [7; 32],
        };
        assert_eq!(decode_intro(&encode_intro(&i)), Some(i));
        assert_eq!(decode_confirm(&encode_confirm(&[3; 32])), Some([3; 32]));
        assert_eq!(
            decode_confirm(&encode_intro(&Intro {
                version: 1,
                parties: 2,
                from: 0,
                to: 1,
                binding: [0; 32],
            })),
            None
        );
    }

    proptest! {
        /// Random or cut frames decode to nothing or something, never a panic or a count
        /// beyond what the bytes hold.
        #[test]
        fn random_bytes_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..256), cut in 0usize..200) {
            let mut framed = header(KIND_HELLO);
            framed.extend_from_slice(&bytes);
            let _ = decode_hello(&framed);
            let _ = decode_intro(&bytes);
            let _ = decode_confirm(&bytes);
            let full = encode_hello(&Hello { version: 1, parties: 3, from: 0, to: 1, nonce: [1; 32], facts: facts() });
            let cut = cut.min(full.len() - 1);
            prop_assert!(decode_hello(&full[..cut]).is_none());
        }
    }
}
