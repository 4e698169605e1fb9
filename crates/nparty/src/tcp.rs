//! The mesh over TCP: n processes, party i listening on `addrs[i]` and connected to every
//! other party.
//!
//! Who dials whom: the lower id dials the higher. Party i dials every j > i, each on a
//! thread, retrying for the connect window (10 s by default) while j starts, and accepts
//! every j < i on a thread of its own, so nothing deadlocks whatever order the processes
//! start in. On each new connection the dialer sends an introduction (a [`Tag::PartyHello`]
//! frame: the n-party protocol version, n, its id, the id it dialed) and the acceptor
//! answers with its own; each side checks the other's, so a connection from an unknown or
//! duplicate id, a different n or version, or garbage stops the party with a clear error.
//! The other parties are told why: after a failure a party goes on dialing and accepting
//! until the connect window ends, only to tell every party it reaches. A party that never
//! starts is named once the connect window has passed.
//!
//! Every link is a [`QueuedChannel`]: sends never wait on the peer, reads time out after
//! the [`MeshOptions::timeout`] (a party that dies or stalls is named), and an optional
//! one-way delay emulates a slower network.
//!
//! With [`MeshOptions::tls`] every link is TLS 1.3, mutually authenticated, before the
//! introduction (the dialer is the TLS client): the introduction then carries a tag of the
//! link's TLS exporter, which both ends compare (a relay between two TLS sessions shows as a
//! difference), and the peer's certificate is checked against the id it introduces itself
//! as (see `mesh_tls`). The byte counters count plaintext, as over TCP.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mixgc_net::{
    fingerprint_hex, recv_frame, seconds, send_abort, send_frame, Channel, NetError, PeerMisbehaved,
    QueuedChannel, Tag, TcpChannel, TlsChannel, CONNECT_RETRY,
};

use crate::handshake::{
    decode_intro, encode_intro, Intro, MAX_PARTIES, MAX_SHORT_BYTES, NPARTY_PROTOCOL_VERSION,
};
use crate::{handshake, Mesh, MeshTls, NpartyError, RunFacts};

/// How a party connects to the mesh.
#[derive(Clone, Debug)]
pub struct MeshOptions {
    /// Longest wait for any one read or write of a running link (`--timeout`): a party
    /// silent for this long is named as stalled.
    pub timeout: Duration,
    /// How long to keep dialing parties that have not started yet, and to wait for the
    /// lower ids to dial in.
    pub connect_window: Duration,
    /// Emulated one-way delay on every link (a round trip takes twice this); zero for none.
    /// Bandwidth is not limited.
    pub one_way_latency: Duration,
    /// Allow plain TCP off loopback. Without [`MeshOptions::tls`] anyone on the path reads
    /// and alters every message, so by default every address must then be loopback, as for
    /// two-party runs without `--insecure-plaintext`.
    pub insecure_plaintext: bool,
    /// TLS 1.3 on every link (`--cert --key` and `--peer-fingerprint I=HEX` per peer, or
    /// `--peer-ca`); any address is allowed then.
    pub tls: Option<MeshTls>,
}

impl Default for MeshOptions {
    fn default() -> Self {
        MeshOptions {
            timeout: Duration::from_secs(30),
            connect_window: CONNECT_RETRY,
            one_way_latency: Duration::ZERO,
            insecure_plaintext: false,
            tls: None,
        }
    }
}

/// Pause between dial attempts to a party that has not started.
const REDIAL: Duration = Duration::from_millis(50);
/// Longest single wait for a connection, so the accepting thread sees a stop in time.
const ACCEPT_SLICE: Duration = Duration::from_millis(100);

/// Party `me` of `addrs.len()` binds `addrs[me]` and connects to every other party (see the
/// module docs).
pub fn connect_mesh(me: usize, addrs: &[String], options: &MeshOptions) -> Result<Mesh, NpartyError> {
    connect_mesh_on(me, &listen(me, addrs)?, addrs, options)
}

/// Binds this party's address.
fn listen(me: usize, addrs: &[String]) -> Result<TcpListener, NpartyError> {
    check_parties(me, addrs)?;
    TcpListener::bind(&addrs[me])
        .map_err(|e| NpartyError::Usage(format!("party {me} cannot listen on {}: {e}", addrs[me])))
}

/// [`connect_mesh`], then the [`handshake`] on every pair: the mesh and the session id.
///
/// Over TLS the handshake also compares, as an extra fact, a digest of the certificate of
/// every party as this party saw it (its own, and the one each peer presented): every
/// party must see the same n certificates, so a party presenting different certificates
/// on different links (CA mode), or parties pinning different certificates for one id,
/// stop the run naming the party whose view differs.
pub fn join_mesh(
    me: usize,
    addrs: &[String],
    options: &MeshOptions,
    facts: &RunFacts,
) -> Result<(Mesh, [u8; 32]), NpartyError> {
    join_mesh_on(me, &listen(me, addrs)?, addrs, options, facts)
}

/// [`join_mesh`] with a listener bound already (to `addrs[me]`).
pub fn join_mesh_on(
    me: usize,
    listener: &TcpListener,
    addrs: &[String],
    options: &MeshOptions,
    facts: &RunFacts,
) -> Result<(Mesh, [u8; 32]), NpartyError> {
    let (mut mesh, certificates) = connect(me, listener, addrs, options)?;
    let mut facts = facts.clone();
    if let Some(digest) = certificates {
        facts
            .extra
            .push((CERTIFICATES_FACT.into(), fingerprint_hex(&digest)));
    }
    let session_id = handshake(&mut mesh, &facts)?;
    Ok((mesh, session_id))
}

/// The name of the extra fact [`join_mesh`] adds over TLS.
const CERTIFICATES_FACT: &str =
    "the digest of every party's certificate as this party saw it (a party presents different \
     certificates on different links, or the parties pin different ones)";

/// [`connect_mesh`] with a listener bound already (to `addrs[me]`; tests bind port 0 first).
pub fn connect_mesh_on(
    me: usize,
    listener: &TcpListener,
    addrs: &[String],
    options: &MeshOptions,
) -> Result<Mesh, NpartyError> {
    connect(me, listener, addrs, options).map(|(mesh, _)| mesh)
}

/// [`connect_mesh_on`], and over TLS a BLAKE3 digest of the n certificates in id order (this
/// party's own, then what each peer presented).
fn connect(
    me: usize,
    listener: &TcpListener,
    addrs: &[String],
    options: &MeshOptions,
) -> Result<(Mesh, Option<[u8; 32]>), NpartyError> {
    check_parties(me, addrs)?;
    if let Some(tls) = &options.tls {
        tls.check_parties(me, addrs.len())?;
    }
    for (j, addr) in addrs.iter().enumerate() {
        let resolved = match resolve(addr) {
            Ok(resolved) => resolved,
            // This party's own address is bound already.
            Err(_) if j == me => continue,
            Err(e) => return Err(NpartyError::Usage(format!("party {j}'s address {addr}: {e}"))),
        };
        let plain = options.tls.is_none() && !options.insecure_plaintext;
        if plain && !resolved.iter().all(|a| a.ip().is_loopback()) {
            return Err(NpartyError::Usage(format!(
                "plain TCP to party {j} at {addr} is refused: it is not a loopback address (give \
                 --cert, --key and --peer-fingerprint or --peer-ca for TLS, or allow plain TCP \
                 with the insecure-plaintext option)"
            )));
        }
    }
    let n = addrs.len();
    let until = Instant::now() + options.connect_window;
    let stop = AtomicBool::new(false);
    let mut links: Vec<Option<Link>> = (0..n).map(|_| None).collect();
    let (lower, higher) = links.split_at_mut(me);
    let result = std::thread::scope(|s| {
        let stop = &stop;
        let acceptor = s.spawn(move || {
            accept_lower(me, n, listener, options, until, stop, lower)
                .inspect_err(|_| stop.store(true, Ordering::Release))
        });
        let dialed = dial_higher(me, addrs, options, until, stop, &mut higher[1..])
            .inspect_err(|_| stop.store(true, Ordering::Release));
        let accepted = acceptor.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        accepted.and(dialed)
    });
    let result = result.and_then(|()| distinct_certificates(&links));
    if let Err(e) = result {
        let reason = e.to_string();
        for ch in links.iter_mut().flatten() {
            let _ = send_abort(ch.channel(), &reason);
        }
        return Err(e);
    }
    let certificates = options.tls.as_ref().map(|tls| {
        let mut h = blake3::Hasher::new_derive_key("mixgc/n-party/certificates/v1");
        for (j, link) in links.iter().enumerate() {
            let fp = if j == me {
                Some(tls.fingerprint())
            } else {
                link.as_ref().and_then(Link::peer_fingerprint)
            };
            h.update(&fp.unwrap_or([0; 32]));
        }
        *h.finalize().as_bytes()
    });
    let links = links
        .into_iter()
        .enumerate()
        .map(|(j, ch)| match ch {
            Some(ch) => match ch.queued(options.one_way_latency) {
                Ok(q) => Ok(Some(Box::new(q) as Box<dyn Channel>)),
                Err(e) => Err(NpartyError::Peer { party: j, source: e }),
            },
            None => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    Ok((Mesh::new(me, links), certificates))
}

fn check_parties(me: usize, addrs: &[String]) -> Result<(), NpartyError> {
    let n = addrs.len();
    if !(2..=MAX_PARTIES).contains(&n) {
        return Err(NpartyError::Usage(format!(
            "a run has 2 to {MAX_PARTIES} parties, not {n}"
        )));
    }
    if me >= n {
        return Err(NpartyError::Usage(format!(
            "party id {me} is not below the number of parties, {n}"
        )));
    }
    for (j, a) in addrs.iter().enumerate() {
        if let Some(k) = addrs[..j].iter().position(|b| b == a) {
            return Err(NpartyError::Usage(format!(
                "parties {k} and {j} have the same address, {a}"
            )));
        }
    }
    Ok(())
}

/// Every address `addr` resolves to (at least one).
fn resolve(addr: &str) -> Result<Vec<SocketAddr>, String> {
    match addr.to_socket_addrs().map(Iterator::collect::<Vec<_>>) {
        Ok(all) if !all.is_empty() => Ok(all),
        Ok(_) => Err("resolves to nothing".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// This party's introduction on the connection `ch` to `to`.
fn intro(ch: &Link, n: usize, me: usize, to: usize) -> Vec<u8> {
    encode_intro(&Intro {
        version: NPARTY_PROTOCOL_VERSION,
        parties: n,
        from: me,
        to,
        binding: binding(ch),
    })
}

/// The tag of the link's TLS exporter that the introductions carry (BLAKE3 `derive_key`,
/// so the exporter itself never crosses the wire, as in the two-party hello), all zero over
/// plain TCP.
fn binding(ch: &Link) -> [u8; 32] {
    ch.channel_binding().map_or([0; 32], |exporter| {
        blake3::derive_key("mixgc/n-party/channel-binding-tag/v1", &exporter)
    })
}

/// A connection during [`connect_mesh`]: plain TCP or TLS.
enum Link {
    Plain(Box<TcpChannel>),
    Tls(Box<TlsChannel>),
}

impl Link {
    /// TLS over the fresh connection `ch` if `options` say so: as the client towards the
    /// party at `dialed`, or as the server (`None`).
    fn start(ch: TcpChannel, dialed: Option<&str>, options: &MeshOptions) -> Result<Link, NetError> {
        let Some(tls) = &options.tls else {
            return Ok(Link::Plain(Box::new(ch)));
        };
        let secured = match dialed {
            Some(addr) => TlsChannel::client_over(ch, addr, options.timeout, tls.config())?,
            None => TlsChannel::server_over(ch, options.timeout, tls.config())?,
        };
        Ok(Link::Tls(Box::new(secured)))
    }

    fn channel(&mut self) -> &mut dyn Channel {
        match self {
            Link::Plain(ch) => ch.as_mut(),
            Link::Tls(ch) => ch.as_mut(),
        }
    }

    fn channel_binding(&self) -> Option<[u8; 32]> {
        match self {
            Link::Plain(_) => None,
            Link::Tls(ch) => ch.channel_binding(),
        }
    }

    fn peer_fingerprint(&self) -> Option<[u8; 32]> {
        match self {
            Link::Plain(_) => None,
            Link::Tls(ch) => ch.peer_fingerprint(),
        }
    }

    fn peer_is_named(&self, name: &str) -> bool {
        match self {
            Link::Plain(_) => false,
            Link::Tls(ch) => ch.peer_is_named(name),
        }
    }

    fn queued(self, one_way_latency: Duration) -> Result<QueuedChannel, NetError> {
        match self {
            Link::Plain(ch) => QueuedChannel::new(*ch, one_way_latency),
            Link::Tls(ch) => QueuedChannel::over_tls(*ch, one_way_latency),
        }
    }
}

/// The certificate of the link to `j` must be party j's (its pin, or from the CA naming
/// [`crate::party_name`]`(j)`), and the peer must have presented one (a TLS link always has).
fn check_certificate(ch: &Link, options: &MeshOptions, j: usize) -> Result<(), NpartyError> {
    match &options.tls {
        None => Ok(()),
        Some(tls) => tls
            .check_peer(j, ch.peer_fingerprint(), |name| ch.peer_is_named(name))
            .map_err(|why| NpartyError::Peer {
                party: j,
                source: NetError::Tls(why),
            }),
    }
}

/// No two peers presented the same certificate (in CA mode, the one thing that ties a
/// certificate to a single id; with pins it follows from distinct pins).
fn distinct_certificates(links: &[Option<Link>]) -> Result<(), NpartyError> {
    let seen: Vec<(usize, [u8; 32])> = links
        .iter()
        .enumerate()
        .filter_map(|(j, l)| Some((j, l.as_ref()?.peer_fingerprint()?)))
        .collect();
    for (a, (j, fp)) in seen.iter().enumerate() {
        if let Some((k, _)) = seen[..a].iter().find(|(_, other)| other == fp) {
            return Err(NpartyError::Peer {
                party: *j,
                source: NetError::Tls(format!(
                    "parties {k} and {j} presented the same certificate ({}): one key cannot be \
                     two parties",
                    fingerprint_hex(fp)
                )),
            });
        }
    }
    Ok(())
}

/// Dials every higher id at once (`links[k]` is party `me + 1 + k`), each retried until
/// `until`, introduces this party and checks the answer; the first error in party order.
fn dial_higher(
    me: usize,
    addrs: &[String],
    options: &MeshOptions,
    until: Instant,
    stop: &AtomicBool,
    links: &mut [Option<Link>],
) -> Result<(), NpartyError> {
    let results: Vec<_> = std::thread::scope(|s| {
        let dials: Vec<_> = (me + 1..addrs.len())
            .map(|j| {
                s.spawn(move || {
                    dial(me, j, addrs, options, until, stop)
                        .inspect_err(|_| stop.store(true, Ordering::Release))
                })
            })
            .collect();
        dials
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut first_error = None;
    for (slot, result) in links.iter_mut().zip(results) {
        match result {
            Ok(ch) => *slot = ch,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Dials party `j` until `until`, introduces this party and checks the answer. Once `stop`
/// is set (another connection failed) it still dials until `until`, only so that the party
/// can be told why this one stops, and returns `None` if it never answers.
fn dial(
    me: usize,
    j: usize,
    addrs: &[String],
    options: &MeshOptions,
    until: Instant,
    stop: &AtomicBool,
) -> Result<Option<Link>, NpartyError> {
    let n = addrs.len();
    let ch = loop {
        match TcpChannel::connect_retrying(&addrs[j], options.timeout, Duration::ZERO) {
            Ok(ch) => break ch,
            Err(_) if Instant::now() < until => {
                std::thread::sleep(REDIAL.min(until.saturating_duration_since(Instant::now())))
            }
            Err(_) if stop.load(Ordering::Acquire) => return Ok(None),
            Err(e) => {
                let why = match e {
                    NetError::Connect { source, .. } => source.to_string(),
                    e => e.to_string(),
                };
                return Err(NpartyError::Absent {
                    party: j,
                    what: format!(
                        "did not answer at {} within {}: {why}",
                        addrs[j],
                        seconds(options.connect_window)
                    ),
                });
            }
        }
    };
    let on = |source| NpartyError::Peer { party: j, source };
    let mut ch = Link::start(ch, Some(&addrs[j]), options).map_err(|e| match (e, &options.tls) {
        // The TLS check accepts any pinned certificate: say which one party j should have.
        (NetError::Tls(why), Some(tls)) if why.starts_with("refused the peer's certificate") => on(
            NetError::Tls(format!("{why} (party {j}'s pin: {})", tls.pin_of(j))),
        ),
        (e, _) => on(e),
    })?;
    let hello = intro(&ch, n, me, j);
    let link = ch.channel();
    send_frame(link, Tag::PartyHello, &hello).map_err(on)?;
    link.flush().map_err(on)?;
    let answer = recv_frame(link, Tag::PartyHello, MAX_SHORT_BYTES).map_err(on)?;
    let checked = match decode_intro(&answer) {
        None => Err(on(PeerMisbehaved::Malformed(Tag::PartyHello).into())),
        Some(theirs) => check_answer(&theirs, (n, me, j, binding(&ch)), &addrs[j])
            .and_then(|()| check_certificate(&ch, options, j)),
    };
    if let Err(e) = checked {
        let _ = send_abort(ch.channel(), &e.to_string());
        return Err(e);
    }
    Ok(Some(ch))
}

/// The introduction of the party dialed at `addr` as party `j` must match (`link`: n, this
/// party's id, j, and the connection's channel binding).
fn check_answer(
    theirs: &Intro,
    link: (usize, usize, usize, [u8; 32]),
    addr: &str,
) -> Result<(), NpartyError> {
    let (n, me, j, binding) = link;
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
        return differ(format!("the party at {addr} calls itself party {}", theirs.from));
    }
    if theirs.to != me {
        return differ(format!(
            "it takes this party (party {me}) for party {}",
            theirs.to
        ));
    }
    check_binding(theirs, binding, j)
}

/// The channel binding in the peer's introduction must be this end's: both ends of one
/// TLS session share its exporter, two sessions spliced by a relay do not.
fn check_binding(theirs: &Intro, binding: [u8; 32], j: usize) -> Result<(), NpartyError> {
    if theirs.binding != binding {
        return Err(NpartyError::Mismatch {
            party: j,
            what: "the TLS channel binding differs between the two ends of the connection (a \
                   relay between two TLS sessions, or one end without TLS)"
                .into(),
        });
    }
    Ok(())
}

/// Accepts every lower id (`links[j]` is party j) until `until`. After a failure (its own
/// or, through `stop`, another connection's) it goes on accepting until `until`, only so
/// that the parties still to dial in can be told why this one stops.
fn accept_lower(
    me: usize,
    n: usize,
    listener: &TcpListener,
    options: &MeshOptions,
    until: Instant,
    stop: &AtomicBool,
    links: &mut [Option<Link>],
) -> Result<(), NpartyError> {
    let mut failed = None;
    while let Some(missing) = links.iter().position(Option::is_none) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            if stop.load(Ordering::Acquire) {
                break;
            }
            return Err(NpartyError::Absent {
                party: missing,
                what: format!(
                    "did not connect within {} (a lower id dials a higher one)",
                    seconds(options.connect_window)
                ),
            });
        }
        let ch = match TcpChannel::accept_within(listener, left.min(ACCEPT_SLICE), options.timeout) {
            Ok(ch) => ch,
            Err(NetError::Timeout(_)) => continue,
            Err(e) => {
                return Err(NpartyError::Usage(format!(
                    "party {me} cannot accept connections: {e}"
                )))
            }
        };
        let from = ch
            .peer_addr()
            .map_or_else(|_| "an unknown address".into(), |a| a.to_string());
        let mut ch = match Link::start(ch, None, options) {
            Ok(ch) => ch,
            Err(e) => {
                // rustls told the peer why with an alert; nothing more can reach it.
                let e = NpartyError::Refused {
                    from,
                    why: e.to_string(),
                };
                stop.store(true, Ordering::Release);
                failed.get_or_insert(e);
                continue;
            }
        };
        match introduced(&mut ch, (me, n, options), links, &from) {
            Ok(j) => links[j] = Some(ch),
            Err(e) => {
                let _ = send_abort(ch.channel(), &e.to_string());
                if failed.is_none() {
                    stop.store(true, Ordering::Release);
                    failed = Some(e);
                }
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

/// Reads the introduction on a new connection from `from`, answers it, and returns the id
/// of the party that dialed.
fn introduced(
    ch: &mut Link,
    (me, n, options): (usize, usize, &MeshOptions),
    links: &[Option<Link>],
    from: &str,
) -> Result<usize, NpartyError> {
    let refused = |why: String| NpartyError::Refused {
        from: from.to_string(),
        why,
    };
    let bytes =
        recv_frame(ch.channel(), Tag::PartyHello, MAX_SHORT_BYTES).map_err(|e| refused(e.to_string()))?;
    let theirs = decode_intro(&bytes).ok_or_else(|| refused("a malformed introduction".into()))?;
    let j = theirs.from;
    // Answer first, so the dialer can name what differs itself.
    let answer = intro(ch, n, me, j);
    send_frame(ch.channel(), Tag::PartyHello, &answer)
        .and_then(|()| ch.channel().flush())
        .map_err(|source| NpartyError::Peer { party: j, source })?;
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
    if theirs.to != me {
        return differ(format!(
            "it dialed party {} at this party's address (this is party {me})",
            theirs.to
        ));
    }
    if j == me {
        return Err(refused(format!(
            "it claims to be party {j}, this party's own id (a duplicate id)"
        )));
    }
    if j > me {
        return differ(format!(
            "it dialed party {me}, a lower id (only a lower id dials a higher one)"
        ));
    }
    if links[j].is_some() {
        return Err(refused(format!(
            "it claims to be party {j}, connected already (a duplicate id)"
        )));
    }
    check_binding(&theirs, binding(ch), j)?;
    check_certificate(ch, options, j)?;
    Ok(j)
}
