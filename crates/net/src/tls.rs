//! TLS 1.3 between the parties (rustls with the ring provider), mutually authenticated: each
//! party presents a certificate, and each checks the other's either against a pinned SHA-256
//! fingerprint or against a CA certificate. See `docs/security.md` ("Channels").

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{
    verify_tls12_signature, verify_tls13_signature, CryptoProvider, WebPkiSupportedAlgorithms,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    AlertDescription, CertificateError, ClientConfig, ClientConnection, Connection, DigitallySignedStruct,
    DistinguishedName, OtherError, RootCertStore, ServerConfig, ServerConnection, SignatureScheme,
};

use crate::record::{Sealer, Wire, CLOSE_NOTIFY, MAX_PLAIN};
use crate::tls_inbound::Inbound;
use sha2::{Digest, Sha256};

use crate::tcp::{accept_socket, connect_socket, Timing};
use crate::tls_handshake as handshake;
use crate::tls_link::{self, Halves};
use crate::{Channel, NetError, TcpChannel, CONNECT_RETRY};

/// Plaintext gathered before it is sealed into records: small messages share a record;
/// a send at least this large is sealed straight away.
const PLAIN_BUFFER: usize = 64 << 10;
/// Plaintext sealed per write system call: a few full records.
const SEAL_PIECE: usize = 256 << 10;
/// The largest plaintext of a TLS 1.3 record (RFC 8446 §5.1): a write is cut into records
/// of this size.
const MAX_RECORD: usize = MAX_PLAIN;
/// The label of the exporter the session binds itself to (RFC 8446 §7.5).
pub(crate) const EXPORTER_LABEL: &[u8] = b"EXPORTER-mixgc-channel-binding";
/// The byte the listener sends once it has accepted the peer's certificate, so the connecting
/// party learns of a refusal at its first read (in TLS 1.3 the client finishes its handshake
/// before the server has checked the client's certificate). The connecting party does not
/// wait for it before sending: its first flight goes with its TLS Finished, and the byte is
/// checked before the first plaintext it reads.
pub(crate) const ACCEPTED: u8 = 0xA5;
/// How long a party that failed the handshake keeps reading (and discarding) what the peer
/// still sends before it closes, so that its close is not a reset that could overtake the
/// alert telling the peer why.
const LINGER: Duration = Duration::from_millis(250);

/// The SHA-256 of a certificate's DER encoding, what `--peer-fingerprint` pins.
pub fn fingerprint(cert_der: &[u8]) -> [u8; 32] {
    Sha256::digest(cert_der).into()
}

/// A fingerprint as lowercase hex, as `mixgc keygen` prints it.
pub fn fingerprint_hex(fp: &[u8; 32]) -> String {
    fp.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses a fingerprint: 64 hex digits, upper or lower case, optionally separated by colons.
pub fn parse_fingerprint(s: &str) -> Result<[u8; 32], String> {
    let digits: String = s.chars().filter(|&c| c != ':').collect();
    let bad = || {
        format!("expected a SHA-256 fingerprint of 64 hex digits (as `mixgc keygen` prints it), got '{s}'")
    };
    if digits.len() != 64 || !digits.is_ascii() {
        return Err(bad());
    }
    let mut fp = [0u8; 32];
    for (i, b) in fp.iter_mut().enumerate() {
        *b = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(fp)
}

/// This party's certificate chain (its own certificate first) and private key.
pub struct Identity {
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl Identity {
    /// Reads a PEM certificate chain and a PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub fn load(cert: &Path, key: &Path) -> Result<Identity, NetError> {
        let certs = load_certs(cert)?;
        let key = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| NetError::Tls(format!("cannot read a private key from {}: {e}", key.display())))?;
        Ok(Identity { certs, key })
    }

    /// From PEM text (e.g. [`KeyMaterial`] made in memory).
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Result<Identity, NetError> {
        let certs = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NetError::Tls(format!("bad certificate: {e}")))?;
        let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
            .map_err(|e| NetError::Tls(format!("bad private key: {e}")))?;
        Ok(Identity { certs, key })
    }

    /// The fingerprint of this party's own certificate, what its peer pins.
    pub fn fingerprint(&self) -> [u8; 32] {
        fingerprint(&self.certs[0])
    }
}

/// The certificates of a PEM file, at least one.
fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, NetError> {
    let bad = |e: &dyn std::fmt::Display| {
        NetError::Tls(format!("cannot read a certificate from {}: {e}", path.display()))
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(&e))?;
    if certs.is_empty() {
        return Err(bad(&"no CERTIFICATE section in the file"));
    }
    Ok(certs)
}

/// How this party checks its peer's certificate.
pub enum PeerCheck {
    /// Accept exactly a certificate of one of these SHA-256 fingerprints (one per peer: a
    /// single one between two parties). The handshake signature is still checked, so the
    /// peer must hold the certificate's key.
    Pinned(Vec<[u8; 32]>),
    /// Accept a certificate chain to one of these CA certificates (webpki: validity, key
    /// usage, signatures). A listener's certificate must also name the host the connecting
    /// party dialled (DNS name or IP address in its subjectAltName); a connecting party's
    /// certificate is not checked for a name.
    Ca(Vec<CertificateDer<'static>>),
}

impl PeerCheck {
    /// The CA certificate(s) of a PEM file.
    pub fn load_ca(path: &Path) -> Result<PeerCheck, NetError> {
        Ok(PeerCheck::Ca(load_certs(path)?))
    }
}

/// The ring provider with AES-128-GCM preferred: as strong as the garbling's 128-bit labels,
/// and cheaper per byte than AES-256-GCM on the garbled tables.
fn provider() -> CryptoProvider {
    let mut provider = rustls::crypto::ring::default_provider();
    provider.cipher_suites = vec![
        rustls::crypto::ring::cipher_suite::TLS13_AES_128_GCM_SHA256,
        rustls::crypto::ring::cipher_suite::TLS13_AES_256_GCM_SHA384,
        rustls::crypto::ring::cipher_suite::TLS13_CHACHA20_POLY1305_SHA256,
    ];
    provider
}

/// The TLS settings of one party, for connecting or listening: TLS 1.3 only, the ring
/// provider, a client certificate required.
#[derive(Clone)]
pub struct TlsConfig {
    client: Arc<ClientConfig>,
    server: Arc<ServerConfig>,
}

impl TlsConfig {
    pub fn new(me: Identity, peer: PeerCheck) -> Result<TlsConfig, NetError> {
        let provider = Arc::new(provider());
        let setup = |e: rustls::Error| NetError::Tls(describe(&e));
        let (server_verifier, client_verifier): (Arc<dyn ServerCertVerifier>, Arc<dyn ClientCertVerifier>) =
            match peer {
                PeerCheck::Pinned(pins) => {
                    let pinned = Arc::new(Pinned {
                        pins,
                        algorithms: provider.signature_verification_algorithms,
                    });
                    (pinned.clone(), pinned)
                }
                PeerCheck::Ca(cas) => {
                    let mut roots = RootCertStore::empty();
                    for ca in cas {
                        roots.add(ca).map_err(|e| {
                            NetError::Tls(format!("unusable CA certificate: {}", describe(&e)))
                        })?;
                    }
                    let roots = Arc::new(roots);
                    let server = WebPkiServerVerifier::builder_with_provider(roots.clone(), provider.clone())
                        .build()
                        .map_err(|e| NetError::Tls(format!("unusable CA certificate: {e}")))?;
                    let client = WebPkiClientVerifier::builder_with_provider(roots, provider.clone())
                        .build()
                        .map_err(|e| NetError::Tls(format!("unusable CA certificate: {e}")))?;
                    (server, client)
                }
            };
        let key_mismatch = |e: rustls::Error| match e {
            rustls::Error::InconsistentKeys(_) => {
                NetError::Tls("the private key does not belong to the certificate".into())
            }
            e => NetError::Tls(format!("unusable certificate or key: {}", describe(&e))),
        };
        let client = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(setup)?
            .dangerous()
            .with_custom_certificate_verifier(server_verifier)
            .with_client_auth_cert(me.certs.clone(), me.key.clone_key())
            .map_err(key_mismatch)?;
        let mut server = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(setup)?
            .with_client_cert_verifier(client_verifier)
            .with_single_cert(me.certs, me.key)
            .map_err(key_mismatch)?;
        // One connection per session: no resumption, so no tickets.
        server.send_tls13_tickets = 0;
        // The channel runs the record layer itself once the handshake is done.
        let mut client = client;
        client.enable_secret_extraction = true;
        server.enable_secret_extraction = true;
        Ok(TlsConfig {
            client: Arc::new(client),
            server: Arc::new(server),
        })
    }
}

/// A mutually authenticated TLS 1.3 connection to the peer over TCP, with the timeout and
/// deadline semantics of [`crate::TcpChannel`]. Byte counters count plaintext, as over TCP.
///
/// rustls runs the handshake; then the channel takes over the traffic keys and runs the
/// record layer itself ([`crate::record`]): each record is sealed straight into the write
/// buffer and opened straight into the caller's buffer (or in place in the read buffer),
/// nothing allocated per record.
pub struct TlsChannel {
    /// The record layer; `None` only once [`TlsChannel::into_halves`] took it.
    session: Option<Session>,
    reader: TcpStream,
    writer: TcpStream,
    /// Plaintext not yet sealed into records.
    pending: Vec<u8>,
    /// Sealed records not yet written, reused.
    out: Wire,
    sent: u64,
    received: u64,
    timing: Timing,
    binding: [u8; 32],
    /// A connecting party that has not yet read the listener's [`ACCEPTED`] byte.
    unconfirmed: bool,
    /// The certificate the peer presented and the negotiated suite (RFC 8446 name).
    peer_cert: Option<CertificateDer<'static>>,
    suite: Option<String>,
}

/// The two directions of the record layer after the handshake.
pub(crate) struct Session {
    pub(crate) sealer: Sealer,
    pub(crate) inbound: Inbound,
}

/// What the handshake leaves: the record layer and the facts about the peer.
pub(crate) struct Established {
    pub(crate) session: Session,
    pub(crate) binding: [u8; 32],
    pub(crate) peer_cert: Option<CertificateDer<'static>>,
    pub(crate) suite: Option<String>,
}

impl TlsChannel {
    /// Connects to `addr` as [`crate::TcpChannel::connect`] does, then runs the handshake:
    /// the peer's certificate is checked as `config` says, and ours must satisfy the peer.
    pub fn connect(addr: &str, timeout: Duration, config: &TlsConfig) -> Result<TlsChannel, NetError> {
        let socket = connect_socket(addr, timeout, CONNECT_RETRY)?;
        let conn = ClientConnection::new(config.client.clone(), server_name(addr))
            .map_err(|e| NetError::Tls(describe(&e)))?;
        TlsChannel::client_handshake(conn.into(), socket, timeout)
    }

    /// Runs the client side of the handshake over the TCP connection `channel` (fresh:
    /// nothing buffered) to `addr`, as [`TlsChannel::connect`] does after connecting.
    pub fn client_over(
        channel: TcpChannel,
        addr: &str,
        timeout: Duration,
        config: &TlsConfig,
    ) -> Result<TlsChannel, NetError> {
        let socket = fresh_socket(&channel)?;
        let conn = ClientConnection::new(config.client.clone(), server_name(addr))
            .map_err(|e| NetError::Tls(describe(&e)))?;
        TlsChannel::client_handshake(conn.into(), socket, timeout)
    }

    /// Runs the server side of the handshake over the TCP connection `channel` (fresh:
    /// nothing buffered), as [`TlsChannel::accept`] does after accepting.
    pub fn server_over(
        channel: TcpChannel,
        timeout: Duration,
        config: &TlsConfig,
    ) -> Result<TlsChannel, NetError> {
        let socket = fresh_socket(&channel)?;
        let conn = ServerConnection::new(config.server.clone()).map_err(|e| NetError::Tls(describe(&e)))?;
        let mut ch = TlsChannel::handshake(conn.into(), socket, timeout)?;
        ch.seal(&[ACCEPTED])?;
        Ok(ch)
    }

    /// The client's handshake; the listener's confirmation that it accepted us is read
    /// before the first plaintext ([`TlsChannel::confirmed`]), not waited for here.
    fn client_handshake(
        conn: Connection,
        socket: TcpStream,
        timeout: Duration,
    ) -> Result<TlsChannel, NetError> {
        let mut ch = TlsChannel::handshake(conn, socket, timeout)?;
        ch.unconfirmed = true;
        Ok(ch)
    }

    /// Reads the listener's confirmation if it is still due (a connecting party's first
    /// read does this anyway): a refusal of this party's certificate arrives instead, as an
    /// alert, and is reported here. Does nothing on the listener's side.
    pub fn confirmed(&mut self) -> Result<(), NetError> {
        if !self.unconfirmed {
            return Ok(());
        }
        self.unconfirmed = false;
        let mut ok = [0u8];
        self.read_plain_raw(&mut ok).map_err(unconfirmed_error)?;
        check_confirmation(ok[0])
    }

    /// Waits up to `timeout` for a peer on `listener` as [`crate::TcpChannel::accept`] does,
    /// then runs the handshake, requiring the peer's certificate.
    pub fn accept(
        listener: &TcpListener,
        timeout: Duration,
        config: &TlsConfig,
    ) -> Result<TlsChannel, NetError> {
        let socket = accept_socket(listener, timeout)?;
        let conn = ServerConnection::new(config.server.clone()).map_err(|e| NetError::Tls(describe(&e)))?;
        let mut ch = TlsChannel::handshake(conn.into(), socket, timeout)?;
        ch.seal(&[ACCEPTED])?;
        Ok(ch)
    }

    fn handshake(conn: Connection, socket: TcpStream, timeout: Duration) -> Result<TlsChannel, NetError> {
        let mut reader = socket.try_clone().map_err(NetError::Io)?;
        let mut writer = socket;
        let mut timing = Timing::new(timeout);
        let established = match handshake::run(conn, &mut reader, &mut writer, &mut timing) {
            Ok(established) => established,
            Err(e) => {
                linger(&mut reader, &writer);
                return Err(e);
            }
        };
        Ok(TlsChannel {
            session: Some(established.session),
            reader,
            writer,
            pending: Vec::with_capacity(PLAIN_BUFFER),
            out: Wire::default(),
            sent: 0,
            received: 0,
            timing,
            binding: established.binding,
            unconfirmed: false,
            peer_cert: established.peer_cert,
            suite: established.suite,
        })
    }

    /// Ends every later read or write with [`NetError::Deadline`] once `total` has passed
    /// from now, as [`crate::TcpChannel::set_deadline`].
    pub fn set_deadline(&mut self, total: Duration) {
        self.timing.set_deadline(total);
    }

    /// The fingerprint of the certificate the peer presented (to tell peers apart when
    /// several are pinned).
    pub fn peer_fingerprint(&self) -> Option<[u8; 32]> {
        self.peer_cert.as_ref().map(|c| fingerprint(c))
    }

    /// Whether the certificate the peer presented names `name` in its subjectAltName
    /// (as webpki checks a server's name; false for a name that is not a DNS name or IP
    /// address, or without a certificate). For binding a certificate from a CA to a role.
    pub fn peer_is_named(&self, name: &str) -> bool {
        let (Some(cert), Ok(name)) = (self.peer_cert.as_ref(), ServerName::try_from(name)) else {
            return false;
        };
        rustls::server::ParsedCertificate::try_from(cert)
            .and_then(|parsed| rustls::client::verify_server_name(&parsed, &name))
            .is_ok()
    }

    /// The cipher suite the handshake agreed on, as RFC 8446 names it (e.g.
    /// `TLS13_AES_128_GCM_SHA256`, which both sides prefer).
    pub fn cipher_suite(&self) -> Option<String> {
        self.suite.clone()
    }

    /// Flushes, then parts the channel into a read half, the sending record layer and a
    /// write half, sharing the sending state, for a link with a writer thread (see
    /// [`crate::QueuedChannel::over_tls`]); also the plaintext bytes sent so far (the read
    /// half counts on from those received) and the channel binding.
    pub(crate) fn into_halves(mut self) -> Result<(Halves, u64, [u8; 32]), NetError> {
        self.flush()?;
        let session = self.session.take().expect("present until now");
        let socket = self.writer.try_clone().map_err(NetError::Io)?;
        let halves = tls_link::halves(
            session.sealer,
            session.inbound,
            socket,
            self.timing.timeout(),
            self.received,
            self.unconfirmed,
        )?;
        Ok((halves, self.sent, self.binding))
    }

    /// Writes out the sealed records.
    fn write_out(&mut self) -> Result<(), NetError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let result = write_all(&mut self.writer, self.out.bytes(), &mut self.timing);
        self.out.clear();
        result
    }

    /// Seals `data` into records and writes them out, a piece at a time.
    fn seal(&mut self, data: &[u8]) -> Result<(), NetError> {
        for piece in data.chunks(SEAL_PIECE) {
            let sealed = live(&mut self.session).sealer.seal(piece, &mut self.out);
            // An alert sealed before a failure still goes out.
            let written = self.write_out();
            sealed?;
            written?;
        }
        Ok(())
    }

    fn seal_pending(&mut self) -> Result<(), NetError> {
        let pending = std::mem::take(&mut self.pending);
        let result = self.seal(&pending);
        self.pending = pending;
        self.pending.clear();
        result
    }

    /// Fills `buf` with plaintext, reading records as needed (after the listener's
    /// confirmation, if it is still due).
    fn read_plain(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.confirmed()?;
        self.read_plain_raw(buf)
    }

    fn read_plain_raw(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let (reader, timing, writer) = (&mut self.reader, &mut self.timing, &self.writer);
        let session = live(&mut self.session);
        let mut alert = None;
        let result = session.inbound.recv(
            buf,
            |room| read_some(reader, writer, room, timing),
            |description| alert = Some(description),
        );
        if let Some(description) = alert {
            // Tell the peer why, if the socket lets us.
            session.sealer.seal_alert(description, &mut self.out);
            let _ = self.write_out();
        }
        result
    }
}

/// One read of ciphertext into `room` (0 at the end of the stream), with the channel's
/// timeout and deadline.
pub(crate) fn read_some(
    reader: &mut TcpStream,
    writer: &TcpStream,
    room: &mut [u8],
    timing: &mut Timing,
) -> Result<usize, NetError> {
    loop {
        timing.before_io(writer)?;
        match reader.read(room) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(timing.recv_error(e)),
        }
    }
}

/// Writes all of `data`, with the channel's timeout and deadline.
fn write_all(writer: &mut TcpStream, mut data: &[u8], timing: &mut Timing) -> Result<(), NetError> {
    while !data.is_empty() {
        timing.before_io(writer)?;
        match writer.write(data) {
            Ok(0) => return Err(NetError::Disconnected),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(timing.send_error(e)),
        }
    }
    Ok(())
}

/// After a failed handshake (its alert, if any, written): ends our direction, then reads
/// and discards what the peer still sends, until it closes or [`LINGER`] passes, so that
/// closing does not reset the connection over the alert (a connecting party sends its
/// first flight without waiting for the listener's verdict).
fn linger(reader: &mut TcpStream, writer: &TcpStream) {
    let _ = writer.shutdown(std::net::Shutdown::Write);
    let until = std::time::Instant::now() + LINGER;
    let mut scratch = [0u8; 4096];
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || writer.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match reader.read(&mut scratch) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

impl Channel for TlsChannel {
    /// Small sends gather in the plaintext buffer; a send that overflows it first tops the
    /// buffered bytes up to whole records from its head (so a frame's 5-byte header never
    /// goes out as a record and a system call of its own), then seals its rest straight
    /// from the caller's slice if that is large.
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        if self.pending.len() + data.len() <= PLAIN_BUFFER {
            self.pending.extend_from_slice(data);
        } else {
            let top_up = top_up_to_record(self.pending.len()).min(data.len());
            let (head, rest) = data.split_at(top_up);
            self.pending.extend_from_slice(head);
            self.seal_pending()?;
            if rest.len() >= PLAIN_BUFFER {
                self.seal(rest)?;
            } else {
                self.pending.extend_from_slice(rest);
            }
        }
        self.sent += data.len() as u64;
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.read_plain(buf)?;
        self.received += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.seal_pending()
    }

    fn bytes_sent(&self) -> u64 {
        self.sent
    }

    fn bytes_received(&self) -> u64 {
        self.received
    }

    fn channel_binding(&self) -> Option<[u8; 32]> {
        Some(self.binding)
    }

    fn set_phase(&mut self, phase: &'static str) {
        self.timing.set_phase(phase);
    }

    fn read_timeout(&self) -> Option<Duration> {
        Some(self.timing.timeout())
    }

    /// Gives the next reads (and the messages about writes) another timeout; a socket that
    /// refuses it keeps the old one.
    fn set_read_timeout(&mut self, timeout: Duration) {
        let timeout = timeout.max(Duration::from_millis(1));
        if self.writer.set_read_timeout(Some(timeout)).is_ok() {
            self.timing.set_timeout(timeout);
        }
    }
}

impl Drop for TlsChannel {
    /// Ends the stream with a close_notify (best effort), so the peer sees a clean close.
    fn drop(&mut self) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        session.sealer.seal_alert(CLOSE_NOTIFY, &mut self.out);
        // Never wait long on a peer that stopped reading.
        let _ = self.writer.set_write_timeout(Some(Duration::from_millis(100)));
        let _ = self.writer.write_all(self.out.bytes());
    }
}

/// The bytes that fill `buffered` bytes up to a whole number of full records (0 when none
/// are buffered).
fn top_up_to_record(buffered: usize) -> usize {
    (MAX_RECORD - buffered % MAX_RECORD) % MAX_RECORD
}

/// The record layer of a channel, there until [`TlsChannel::into_halves`] consumes it.
fn live(session: &mut Option<Session>) -> &mut Session {
    session
        .as_mut()
        .expect("only into_halves takes the session, consuming the channel")
}

/// A new handle to the socket of `channel`, which must have buffered nothing.
fn fresh_socket(channel: &TcpChannel) -> Result<TcpStream, NetError> {
    if !channel.is_idle() {
        return Err(NetError::Tls(
            "TLS must start on a fresh connection (bytes were buffered on it already)".into(),
        ));
    }
    channel.socket()
}

/// The name a connecting party checks the listener's certificate against (CA mode): the host
/// of `addr`, a DNS name or an IP address.
fn server_name(addr: &str) -> ServerName<'static> {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_string())
        .unwrap_or_else(|_| ServerName::try_from("mixgc-peer").expect("a valid DNS name"))
}

/// Accepts exactly the pinned certificates, checking the handshake signature with the
/// provider's algorithms.
#[derive(Debug)]
struct Pinned {
    pins: Vec<[u8; 32]>,
    algorithms: WebPkiSupportedAlgorithms,
}

/// The peer's certificate is not a pinned one.
#[derive(Debug)]
struct NotPinned {
    got: [u8; 32],
    want: Vec<[u8; 32]>,
}

impl std::fmt::Display for NotPinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let want: Vec<String> = self.want.iter().map(fingerprint_hex).collect();
        write!(
            f,
            "its SHA-256 fingerprint is {}, not the pinned --peer-fingerprint {}",
            fingerprint_hex(&self.got),
            want.join(" or ")
        )
    }
}

impl std::error::Error for NotPinned {}

impl Pinned {
    fn check(&self, cert: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        let got = fingerprint(cert);
        if self.pins.contains(&got) {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(CertificateError::Other(
                OtherError(Arc::new(NotPinned {
                    got,
                    want: self.pins.clone(),
                })),
            )))
        }
    }
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.check(end_entity).map(|()| ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

impl ClientCertVerifier for Pinned {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check(end_entity).map(|()| ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A rustls error in words: which side refused what.
pub(crate) fn describe(e: &rustls::Error) -> String {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(c) => format!("refused the peer's certificate: {}", describe_certificate(c)),
        E::NoCertificatesPresented => "refused the peer: it presented no certificate".into(),
        E::AlertReceived(alert) => describe_alert(*alert),
        E::DecryptError => {
            "a TLS record from the peer failed authentication (modified in transit, or not from the peer)"
                .into()
        }
        E::InvalidMessage(_) | E::InappropriateMessage { .. } | E::InappropriateHandshakeMessage { .. } => {
            "the peer does not speak TLS 1.3 as expected (a plain TCP peer, or a corrupted stream)".into()
        }
        E::PeerIncompatible(_) => "the peer's TLS settings are incompatible (TLS 1.3 only)".into(),
        E::PeerMisbehaved(_) => "the peer broke the TLS protocol".into(),
        e => e.to_string(),
    }
}

fn describe_certificate(e: &CertificateError) -> String {
    use CertificateError as C;
    match e {
        C::Other(other) => other.to_string(),
        C::UnknownIssuer => "it is not signed by the --peer-ca certificate".into(),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "it does not name the host given to --connect (see `mixgc keygen --name`)".into()
        }
        C::Expired | C::ExpiredContext { .. } => "it has expired".into(),
        C::NotValidYet | C::NotValidYetContext { .. } => "it is not valid yet".into(),
        C::BadSignature => "its signature does not verify (not signed by the --peer-ca certificate?)".into(),
        C::BadEncoding => "it is not a well-formed certificate".into(),
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
            "it is not issued for this use (extended key usage)".into()
        }
        e => e.to_string(),
    }
}

fn describe_alert(alert: AlertDescription) -> String {
    use AlertDescription as A;
    let refused = |why: &str| format!("the peer refused this party's certificate ({why})");
    match alert {
        A::BadCertificate | A::CertificateUnknown | A::UnsupportedCertificate => {
            refused("not the one it expects")
        }
        A::UnknownCA => refused("not signed by the CA it trusts"),
        A::CertificateExpired => refused("expired or not yet valid"),
        A::CertificateRevoked => refused("revoked"),
        A::AccessDenied => refused("access denied"),
        A::CertificateRequired => "the peer requires a certificate and this party sent none".into(),
        A::BadRecordMac | A::DecryptError => {
            "the peer could not authenticate a TLS record (modified in transit?) and stopped".into()
        }
        A::ProtocolVersion | A::HandshakeFailure | A::InsufficientSecurity => {
            "the peer refused the TLS handshake (TLS 1.3 only)".into()
        }
        other => format!("the peer stopped the TLS session (alert {})", u8::from(other)),
    }
}

/// The error of reading the listener's confirmation: the stream ending there means the
/// listener gave up on the handshake.
pub(crate) fn unconfirmed_error(e: NetError) -> NetError {
    match e {
        NetError::Disconnected => {
            NetError::Tls("the peer closed the connection during the TLS handshake".into())
        }
        e => e,
    }
}

/// Checks the listener's confirmation byte.
pub(crate) fn check_confirmation(byte: u8) -> Result<(), NetError> {
    if byte == ACCEPTED {
        Ok(())
    } else {
        Err(NetError::Tls("the peer did not confirm the TLS handshake".into()))
    }
}

/// A fresh private key and certificate, PEM-encoded, from [`generate`].
pub struct KeyMaterial {
    pub key_pem: String,
    pub cert_pem: String,
    pub fingerprint: [u8; 32],
    /// With a CA: its certificate (PEM) and fingerprint. Its key signed the certificate above
    /// and is then discarded.
    pub ca: Option<(String, [u8; 32])>,
}

impl KeyMaterial {
    pub fn identity(&self) -> Result<Identity, NetError> {
        Identity::from_pem(&self.cert_pem, &self.key_pem)
    }
}

/// An ECDSA P-256 key and a certificate for it naming `names` (DNS names or IP addresses):
/// self-signed, or with `with_ca` signed by a fresh CA. Usable for TLS client and server
/// authentication.
pub fn generate(names: &[String], with_ca: bool) -> Result<KeyMaterial, String> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
    };
    let failed = |e: rcgen::Error| format!("cannot make the certificate: {e}");
    let key = KeyPair::generate().map_err(failed)?;
    let mut params = CertificateParams::new(names.to_vec()).map_err(|e| match e {
        rcgen::Error::InvalidAsn1String(_) => {
            format!("not a DNS name or IP address among {}", names.join(", "))
        }
        e => failed(e),
    })?;
    params.distinguished_name.push(
        DnType::CommonName,
        names.first().map_or("mixgc party", |n| n.as_str()),
    );
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let (cert, ca) = if with_ca {
        let ca_key = KeyPair::generate().map_err(failed)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        // A name of its own (from its key), so a chain never finds another mixgc CA's
        // certificate as its issuer.
        let id: String = fingerprint(ca_key.public_key_raw())[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        ca_params
            .distinguished_name
            .push(DnType::CommonName, format!("mixgc CA {id}"));
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca_params.self_signed(&ca_key).map_err(failed)?;
        let cert = params.signed_by(&key, &ca_cert, &ca_key).map_err(failed)?;
        let ca = (ca_cert.pem(), fingerprint(ca_cert.der()));
        (cert, Some(ca))
    } else {
        (params.self_signed(&key).map_err(failed)?, None)
    };
    Ok(KeyMaterial {
        key_pem: key.serialize_pem(),
        cert_pem: cert.pem(),
        fingerprint: fingerprint(cert.der()),
        ca,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topping_up_fills_whole_records() {
        assert_eq!(top_up_to_record(0), 0);
        assert_eq!(top_up_to_record(5), MAX_RECORD - 5);
        assert_eq!(top_up_to_record(MAX_RECORD), 0);
        assert_eq!(top_up_to_record(PLAIN_BUFFER - 1), 1);
        for buffered in [1, 100, MAX_RECORD + 1, 3 * MAX_RECORD - 7, PLAIN_BUFFER] {
            assert_eq!((buffered + top_up_to_record(buffered)) % MAX_RECORD, 0);
            assert!(top_up_to_record(buffered) < MAX_RECORD);
        }
    }
}
