//! TLS channels over loopback TCP: a round trip, refusals on both sides, CA mode, and a
//! record modified in transit.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;

use mixgc_net::{generate, Channel, KeyMaterial, NetError, PeerCheck, TcpChannel, TlsChannel, TlsConfig};

const TIMEOUT: Duration = Duration::from_secs(5);

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn self_signed() -> KeyMaterial {
    generate(&names(&["localhost", "127.0.0.1"]), false).unwrap()
}

fn pinned(me: &KeyMaterial, peer: [u8; 32]) -> TlsConfig {
    TlsConfig::new(me.identity().unwrap(), PeerCheck::Pinned(vec![peer])).unwrap()
}

fn ca_config(me: &KeyMaterial, peer: &KeyMaterial) -> TlsConfig {
    let ca = peer.ca.as_ref().unwrap().0.as_bytes();
    let cas = rustls::pki_types::CertificateDer::pem_slice_iter(ca)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    TlsConfig::new(me.identity().unwrap(), PeerCheck::Ca(cas)).unwrap()
}

/// Runs a listener with `server` and a connecting party with `client` on `host`; both
/// results.
fn pair(
    server: TlsConfig,
    client: TlsConfig,
    host: &str,
) -> (Result<TlsChannel, NetError>, Result<TlsChannel, NetError>) {
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let target = format!("{host}:{}", addr.port());
    let c = thread::spawn(move || {
        let mut c = TlsChannel::connect(&target, TIMEOUT, &client)?;
        c.confirmed()?;
        Ok(c)
    });
    let s = TlsChannel::accept(&listener, TIMEOUT, &server);
    (s, c.join().unwrap())
}

#[test]
fn pinned_round_trip_with_a_shared_binding() {
    let (a, b) = (self_signed(), self_signed());
    let (s, c) = pair(pinned(&a, b.fingerprint), pinned(&b, a.fingerprint), "127.0.0.1");
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    assert_eq!(s.peer_fingerprint(), Some(b.fingerprint));
    assert_eq!(c.peer_fingerprint(), Some(a.fingerprint));
    assert!(s.channel_binding().is_some());
    assert_eq!(s.channel_binding(), c.channel_binding());
    // AES-128-GCM (AES-NI/VAES) is preferred over AES-256-GCM and ChaCha20-Poly1305.
    assert_eq!(s.cipher_suite().as_deref(), Some("TLS13_AES_128_GCM_SHA256"));
    assert_eq!(c.cipher_suite(), s.cipher_suite());
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7) as u8).collect();
    let expect = big.clone();
    let t = thread::spawn(move || {
        c.send(b"hi").unwrap();
        c.send(&big).unwrap();
        c.flush().unwrap();
        let mut back = [0u8; 3];
        c.recv(&mut back).unwrap();
        (back, c.bytes_sent(), c.bytes_received())
    });
    let mut hi = [0u8; 2];
    s.recv(&mut hi).unwrap();
    let mut got = vec![0u8; expect.len()];
    s.recv(&mut got).unwrap();
    assert_eq!(&hi, b"hi");
    assert!(got == expect);
    s.send(b"ok!").unwrap();
    s.flush().unwrap();
    let (back, sent, received) = t.join().unwrap();
    assert_eq!(&back, b"ok!");
    assert_eq!((sent, received), (expect.len() as u64 + 2, 3));
    assert_eq!((s.bytes_sent(), s.bytes_received()), (3, expect.len() as u64 + 2));
    drop(s);
}

/// Sends of every size class — frame headers, sends that overflow the plaintext buffer by a
/// little or a lot, exact record and buffer multiples — arrive whole and in order, read
/// back in pieces of other sizes.
#[test]
fn mixed_send_sizes_arrive_in_order() {
    let (a, b) = (self_signed(), self_signed());
    let (s, c) = pair(pinned(&a, b.fingerprint), pinned(&b, a.fingerprint), "127.0.0.1");
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    let mut sizes = vec![
        5,
        65_536,
        5,
        65_531,
        1,
        16_384,
        16_383,
        16_385,
        0,
        200_000,
        5,
        1 << 20,
        3,
    ];
    let mut x = 12_345u64;
    for _ in 0..60 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let size = match x >> 62 {
            0 => (x >> 20) as usize % 16,
            1 => (x >> 20) as usize % 20_000,
            2 => 60_000 + (x >> 20) as usize % 10_000,
            _ => (x >> 20) as usize % 300_000,
        };
        sizes.push(size);
    }
    let stream: Vec<u8> = (0..sizes.iter().sum::<usize>() as u64)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let expect = stream.clone();
    let t = thread::spawn(move || {
        let mut at = 0;
        for size in sizes {
            c.send(&stream[at..at + size]).unwrap();
            at += size;
        }
        c.flush().unwrap();
        c.bytes_sent()
    });
    let mut got = vec![0u8; expect.len()];
    let mut at = 0;
    let mut piece = 1;
    while at < got.len() {
        let n = piece.min(got.len() - at);
        s.recv(&mut got[at..at + n]).unwrap();
        at += n;
        piece = piece * 7 % 100_003 + 1;
    }
    assert_eq!(t.join().unwrap(), expect.len() as u64);
    assert!(got == expect);
}

/// Another session's binding differs.
#[test]
fn each_connection_has_its_own_binding() {
    let (a, b) = (self_signed(), self_signed());
    let (s1, _c1) = pair(pinned(&a, b.fingerprint), pinned(&b, a.fingerprint), "127.0.0.1");
    let (s2, _c2) = pair(pinned(&a, b.fingerprint), pinned(&b, a.fingerprint), "127.0.0.1");
    assert_ne!(s1.unwrap().channel_binding(), s2.unwrap().channel_binding());
}

fn tls_message(r: Result<TlsChannel, NetError>) -> String {
    match r {
        Err(e @ NetError::Tls(_)) => e.to_string(),
        Err(e) => panic!("expected a TLS error, got: {e}"),
        Ok(_) => panic!("expected a TLS error, got a connection"),
    }
}

#[test]
fn a_wrong_listener_fingerprint_is_refused_on_both_sides() {
    let (a, b, other) = (self_signed(), self_signed(), self_signed());
    let (s, c) = pair(
        pinned(&a, b.fingerprint),
        pinned(&b, other.fingerprint),
        "127.0.0.1",
    );
    let (s, c) = (tls_message(s), tls_message(c));
    assert!(c.contains("refused the peer's certificate"), "{c}");
    assert!(c.contains(&mixgc_net::fingerprint_hex(&a.fingerprint)), "{c}");
    assert!(s.contains("the peer refused this party's certificate"), "{s}");
}

#[test]
fn a_wrong_client_fingerprint_is_refused_on_both_sides() {
    let (a, b, other) = (self_signed(), self_signed(), self_signed());
    let (s, c) = pair(
        pinned(&a, other.fingerprint),
        pinned(&b, a.fingerprint),
        "127.0.0.1",
    );
    let (s, c) = (tls_message(s), tls_message(c));
    assert!(s.contains("refused the peer's certificate"), "{s}");
    assert!(c.contains("the peer refused this party's certificate"), "{c}");
}

/// The connecting party sends its first flight without waiting for the listener's verdict
/// (it goes out right after its TLS Finished); a refusal still reaches it, as the error of
/// its first read, and the listener's close does not reset the connection over the alert.
#[test]
fn a_refused_client_that_sent_first_learns_why_at_its_first_read() {
    let (a, b, other) = (self_signed(), self_signed(), self_signed());
    for _ in 0..5 {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let client = pinned(&b, a.fingerprint);
        let c = thread::spawn(move || -> Result<(), NetError> {
            let mut c = TlsChannel::connect(&addr.to_string(), TIMEOUT, &client)?;
            c.send(&[7u8; 4096])?;
            c.flush()?;
            let mut one = [0u8];
            c.recv(&mut one)
        });
        let s = TlsChannel::accept(&listener, TIMEOUT, &pinned(&a, other.fingerprint));
        assert!(tls_message(s).contains("refused the peer's certificate"));
        let c = c.join().unwrap().unwrap_err().to_string();
        assert!(c.contains("the peer refused this party's certificate"), "{c}");
    }
}

#[test]
fn ca_mode_accepts_a_signed_leaf_naming_the_host() {
    let a = generate(&names(&["127.0.0.1"]), true).unwrap();
    let b = generate(&names(&["127.0.0.1"]), true).unwrap();
    let (s, c) = pair(ca_config(&a, &b), ca_config(&b, &a), "127.0.0.1");
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    c.send(b"x").unwrap();
    c.flush().unwrap();
    let mut one = [0u8];
    s.recv(&mut one).unwrap();
    assert_eq!(&one, b"x");
}

#[test]
fn ca_mode_refuses_another_ca_and_another_name() {
    let a = generate(&names(&["127.0.0.1"]), true).unwrap();
    let b = generate(&names(&["127.0.0.1"]), true).unwrap();
    let stranger = generate(&names(&["127.0.0.1"]), true).unwrap();
    // The listener trusts another CA than the one that signed the client's leaf.
    let (s, c) = pair(ca_config(&a, &stranger), ca_config(&b, &a), "127.0.0.1");
    let (s, c) = (tls_message(s), tls_message(c));
    assert!(s.contains("not signed by the --peer-ca"), "{s}");
    assert!(c.contains("the peer refused this party's certificate"), "{c}");
    // The listener's leaf names 127.0.0.1; the client dialled localhost.
    let (s, c) = pair(ca_config(&a, &b), ca_config(&b, &a), "localhost");
    let (s, c) = (tls_message(s), tls_message(c));
    assert!(c.contains("does not name the host"), "{c}");
    assert!(s.contains("the peer refused this party's certificate"), "{s}");
}

#[test]
fn a_client_without_a_certificate_is_refused() {
    let a = self_signed();
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let server = pinned(&a, self_signed().fingerprint);
    let client = thread::spawn(move || {
        let roots = {
            let mut r = rustls::RootCertStore::empty();
            r.add(leaf(&a)).unwrap();
            r
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, TcpStream::connect(addr).unwrap());
        tls.sock.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut b = [0u8];
        tls.read(&mut b).map(|_| ())
    });
    let s = tls_message(TlsChannel::accept(&listener, TIMEOUT, &server));
    assert!(s.contains("presented no certificate"), "{s}");
    assert!(client.join().unwrap().is_err());
}

fn leaf(km: &KeyMaterial) -> rustls::pki_types::CertificateDer<'static> {
    rustls::pki_types::CertificateDer::from_pem_slice(km.cert_pem.as_bytes()).unwrap()
}

/// Forwards bytes between a client and `server`, flipping the byte at offset `flip` of the
/// client-to-server direction.
fn tampering_proxy(server: std::net::SocketAddr, flip: usize) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        let (client, _) = listener.accept().unwrap();
        let upstream = TcpStream::connect(server).unwrap();
        let pipe = |mut from: TcpStream, mut to: TcpStream, flip: Option<usize>| {
            thread::spawn(move || {
                let mut buf = [0u8; 16384];
                let mut at = 0;
                loop {
                    let n = match from.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if let Some(f) = flip {
                        if (at..at + n).contains(&f) {
                            buf[f - at] ^= 1;
                        }
                    }
                    at += n;
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to.shutdown(std::net::Shutdown::Both);
            })
        };
        pipe(
            client.try_clone().unwrap(),
            upstream.try_clone().unwrap(),
            Some(flip),
        );
        pipe(upstream, client, None);
    });
    addr
}

#[test]
fn a_modified_record_stops_both_parties() {
    let (a, b) = (self_signed(), self_signed());
    let (server, client) = (pinned(&a, b.fingerprint), pinned(&b, a.fingerprint));
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    // Well past the handshake: inside the 200 KB the client sends.
    let proxy = tampering_proxy(addr, 100_000);
    let c = thread::spawn(move || {
        let mut c = TlsChannel::connect(&proxy.to_string(), TIMEOUT, &client)?;
        c.send(&vec![7u8; 200_000])?;
        c.flush()?;
        let mut reply = [0u8; 1];
        c.recv(&mut reply)
    });
    let mut s = TlsChannel::accept(&listener, TIMEOUT, &server).unwrap();
    let e = s.recv(&mut vec![0u8; 200_000]).unwrap_err();
    assert!(matches!(e, NetError::Tls(_)), "{e}");
    assert!(e.to_string().contains("failed authentication"), "{e}");
    drop(s);
    let e = c.join().unwrap().unwrap_err();
    assert!(
        e.to_string().contains("could not authenticate a TLS record"),
        "{e}"
    );
}

/// A connecting party that is plain rustls (its own record layer, `StreamOwned`) with
/// `me`'s certificate, trusting the CA of `listener`, offering only `suite`.
fn rustls_client(
    me: &KeyMaterial,
    listener: &KeyMaterial,
    addr: std::net::SocketAddr,
    suite: rustls::SupportedCipherSuite,
) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let ca = listener.ca.as_ref().unwrap().0.as_bytes();
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(ca) {
        roots.add(cert.unwrap()).unwrap();
    }
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(me.cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(me.key_pem.as_bytes()).unwrap();
    let mut provider = rustls::crypto::ring::default_provider();
    provider.cipher_suites = vec![suite];
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(roots)
        .with_client_auth_cert(certs, key)
        .unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), "localhost".try_into().unwrap()).unwrap();
    let socket = TcpStream::connect(addr).unwrap();
    socket.set_read_timeout(Some(TIMEOUT)).unwrap();
    rustls::StreamOwned::new(conn, socket)
}

/// The channel's own record layer against rustls' (RFC 8446 §5.2), for each of the three
/// suites: the listener's confirmation, data both ways in many record sizes, and the
/// peer's close_notify.
#[test]
fn the_record_layer_interoperates_with_rustls() {
    use rustls::crypto::ring::cipher_suite as suites;
    for suite in [
        suites::TLS13_AES_128_GCM_SHA256,
        suites::TLS13_AES_256_GCM_SHA384,
        suites::TLS13_CHACHA20_POLY1305_SHA256,
    ] {
        interoperate_with_rustls(suite);
    }
}

fn interoperate_with_rustls(suite: rustls::SupportedCipherSuite) {
    let (a, b) = (generate(&names(&["localhost"]), true).unwrap(), self_signed());
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let pattern = |len: usize, salt: u8| -> Vec<u8> { (0..len).map(|i| (i * 7) as u8 ^ salt).collect() };
    let lens = [1usize, 5, 16 << 10, (16 << 10) + 1, 100_000, 300_000];
    let server = pinned(&a, b.fingerprint);
    let c = thread::spawn(move || {
        let mut tls = rustls_client(&b, &a, addr, suite);
        let mut confirmation = [0u8];
        tls.read_exact(&mut confirmation).unwrap();
        assert_eq!(confirmation[0], 0xA5);
        for (i, &len) in lens.iter().enumerate() {
            tls.write_all(&pattern(len, i as u8)).unwrap();
            let mut echo = vec![0u8; len];
            tls.read_exact(&mut echo).unwrap();
            assert_eq!(echo, pattern(len, !(i as u8)), "{len} bytes from the channel");
        }
        tls.conn.send_close_notify();
        tls.flush().unwrap();
    });
    let mut s = TlsChannel::accept(&listener, TIMEOUT, &server).unwrap();
    assert_eq!(s.cipher_suite(), Some(format!("{:?}", suite.suite())));
    for (i, &len) in lens.iter().enumerate() {
        let mut got = vec![0u8; len];
        s.recv(&mut got).unwrap();
        assert_eq!(got, pattern(len, i as u8), "{len} bytes from rustls");
        s.send(&pattern(len, !(i as u8))).unwrap();
        s.flush().unwrap();
    }
    assert!(matches!(s.recv(&mut [0u8]), Err(NetError::Disconnected)));
    c.join().unwrap();
}

/// CPU nanoseconds this thread has run (Linux: `/proc/thread-self/schedstat`), 0 elsewhere.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Sends `total` bytes in `chunk`-byte frames (a 5-byte header, then the payload, as
/// `send_frame` does) from `tx` on its own thread and receives them on `rx`; the receiver's
/// wall time and the CPU time of each side.
fn stream<C: Channel + Send + 'static>(
    mut tx: C,
    mut rx: C,
    total: usize,
    chunk: usize,
) -> (Duration, u64, u64) {
    use std::time::Instant;
    let t = thread::spawn(move || {
        let cpu = thread_cpu_ns();
        let payload = vec![3u8; chunk];
        for _ in 0..total / chunk {
            tx.send(&[1, 2, 3, 4, 5]).unwrap();
            tx.send(&payload).unwrap();
        }
        tx.flush().unwrap();
        (thread_cpu_ns() - cpu, tx)
    });
    let start = Instant::now();
    let cpu = thread_cpu_ns();
    let mut header = [0u8; 5];
    let mut buf = vec![0u8; chunk];
    for _ in 0..total / chunk {
        rx.recv(&mut header).unwrap();
        rx.recv(&mut buf).unwrap();
    }
    let rx_cpu = thread_cpu_ns() - cpu;
    let wall = start.elapsed();
    let (tx_cpu, _tx) = t.join().unwrap();
    (wall, tx_cpu, rx_cpu)
}

/// The channels' own cost over loopback: 1 GiB in 128 KiB and 1 MiB frames, TCP then TLS,
/// three rounds; wall-clock rate and CPU per byte of each end (a measurement, not a check:
/// `cargo test --release -p mixgc-net --test tls -- --ignored --nocapture`). The CPU
/// figures hold on a loaded machine, where the rates do not.
#[test]
#[ignore]
fn loopback_throughput_tls_vs_tcp() {
    let (a, b) = (self_signed(), self_signed());
    let total = 1usize << 30;
    for round in 0..3 {
        for chunk in [128usize << 10, 1 << 20] {
            let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
            let t = thread::spawn(move || TcpChannel::connect(&addr.to_string(), TIMEOUT).unwrap());
            let s = TcpChannel::accept(&listener, TIMEOUT).unwrap();
            let (tcp, tcp_tx, tcp_rx) = stream(t.join().unwrap(), s, total, chunk);
            let (s, c) = pair(pinned(&a, b.fingerprint), pinned(&b, a.fingerprint), "127.0.0.1");
            let (tls, tls_tx, tls_rx) = stream(c.unwrap(), s.unwrap(), total, chunk);
            let per_byte = |ns: u64| ns as f64 / total as f64;
            eprintln!(
                "round {round}, {} KiB frames: tcp {:.0} MB/s, CPU send {:.3} recv {:.3} ns/B; \
                 tls {:.0} MB/s, CPU send {:.3} recv {:.3} ns/B",
                chunk >> 10,
                total as f64 / tcp.as_secs_f64() / 1e6,
                per_byte(tcp_tx),
                per_byte(tcp_rx),
                total as f64 / tls.as_secs_f64() / 1e6,
                per_byte(tls_tx),
                per_byte(tls_rx),
            );
        }
    }
}

/// The record layer alone, in memory: AES-256-GCM (rustls makes AES-128 keys only inside a
/// handshake; AES-256 costs more per byte, so this bounds AES-128 from above) as rustls
/// seals and opens 16 KiB records with the provider the channels use (ring), CPU per byte:
/// what the channel figures of [`loopback_throughput_tls_vs_tcp`] cannot go below (a
/// measurement: run it with `--ignored`).
#[test]
#[ignore]
fn record_sealing_cost() {
    use rustls::crypto::cipher::{AeadKey, InboundOpaqueMessage, Iv, OutboundChunks, OutboundPlainMessage};
    use rustls::{ContentType, ProtocolVersion};
    let provider = rustls::crypto::ring::default_provider();
    let suite = provider
        .cipher_suites
        .iter()
        .find_map(|s| {
            s.tls13()
                .filter(|t| t.common.suite == rustls::CipherSuite::TLS13_AES_256_GCM_SHA384)
        })
        .unwrap();
    let key = || AeadKey::from([7u8; 32]);
    let iv = || Iv::from([9u8; 12]);
    let mut seal = suite.aead_alg.encrypter(key(), iv());
    let mut open = suite.aead_alg.decrypter(key(), iv());
    let record = vec![5u8; 16 << 10];
    let records = (1usize << 30) / record.len();
    for round in 0..3 {
        let (mut sealing, mut opening) = (0u64, 0u64);
        for seq in 0..records as u64 {
            let start = thread_cpu_ns();
            let plain = OutboundPlainMessage {
                typ: ContentType::ApplicationData,
                version: ProtocolVersion::TLSv1_2,
                payload: OutboundChunks::Single(&record),
            };
            let mut sealed = seal.encrypt(plain, seq).unwrap().encode();
            let mid = thread_cpu_ns();
            let inbound = InboundOpaqueMessage::new(
                ContentType::ApplicationData,
                ProtocolVersion::TLSv1_2,
                &mut sealed[5..],
            );
            let opened = open.decrypt(inbound, seq).unwrap();
            assert_eq!(opened.payload.len(), record.len());
            opening += thread_cpu_ns() - mid;
            sealing += mid - start;
        }
        let total = (records * record.len()) as f64;
        eprintln!(
            "round {round}: AES-256-GCM records, CPU seal {:.3} ns/B (copy and allocation included), open {:.3} ns/B",
            sealing as f64 / total,
            opening as f64 / total
        );
    }
}
