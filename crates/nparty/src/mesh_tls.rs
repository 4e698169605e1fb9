//! TLS 1.3 on the mesh's links: this party's certificate and how it checks each peer's.
//!
//! Every link is mutually authenticated TLS 1.3 (`mixgc_net::TlsChannel`; the lower id is
//! the client). What binds a link to a party id:
//!
//! - **Pinned** (`--peer-fingerprint I=HEX` per peer id): the TLS handshake accepts any of
//!   the pinned certificates, then the link is checked against the pin of the id the peer
//!   introduces itself as. A peer presenting party 2's certificate while claiming id 3 is
//!   refused naming both. So each link's peer holds the key of the id it claims.
//! - **CA** (`--peer-ca FILE`): the peer's chain must lead to the CA (webpki checks), and
//!   its certificate must name the id the peer claims: the DNS name [`party_name`]`(j)`,
//!   `mixgc-party-J`, in its subjectAltName (`mixgc keygen --party J` adds it; a CA that
//!   certifies party J's key under that name is what binds the key to the id). No two
//!   peers of this party may present the same certificate either, and [`crate::join_mesh`]
//!   has every party compare the n certificates it saw, so a party presents one
//!   certificate on all its links.
//!
//! Each link's TLS exporter is compared in the connection's introduction (see `tcp`), so
//! a relay that terminates TLS towards both ends is detected.

use std::collections::BTreeMap;
use std::path::Path;

use mixgc_net::{fingerprint_hex, parse_fingerprint, Identity, PeerCheck, TlsConfig};

use crate::NpartyError;

/// This party's TLS settings for the mesh ([`crate::MeshOptions::tls`]).
#[derive(Clone)]
pub struct MeshTls {
    config: TlsConfig,
    own: [u8; 32],
    peers: PeerAuth,
}

#[derive(Clone)]
enum PeerAuth {
    /// The pinned fingerprint of each party id.
    Pinned(BTreeMap<usize, [u8; 32]>),
    /// Any certificate from the CA.
    Ca,
}

impl std::fmt::Debug for MeshTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("MeshTls");
        s.field("own", &fingerprint_hex(&self.own));
        match &self.peers {
            PeerAuth::Pinned(pins) => s.field(
                "pinned",
                &pins
                    .iter()
                    .map(|(j, fp)| (*j, fingerprint_hex(fp)))
                    .collect::<Vec<_>>(),
            ),
            PeerAuth::Ca => s.field("peers", &"any certificate from the CA"),
        }
        .finish()
    }
}

impl MeshTls {
    /// Each peer id checked against its own pin (`pins`: (party id, SHA-256 fingerprint),
    /// as [`parse_peer_pin`] reads `--peer-fingerprint I=HEX`). A pin for this party's own
    /// id is allowed if it is this party's certificate (so every party may be given the same
    /// list); every other party must have a pin, checked when the mesh connects.
    pub fn pinned(identity: Identity, pins: &[(usize, [u8; 32])]) -> Result<MeshTls, NpartyError> {
        let mut by_id = BTreeMap::new();
        for &(j, fp) in pins {
            if by_id.insert(j, fp).is_some() {
                return Err(NpartyError::Usage(format!(
                    "--peer-fingerprint gives party {j} twice"
                )));
            }
        }
        for (&j, fp) in &by_id {
            if let Some((&k, _)) = by_id.range(..j).find(|(_, other)| *other == fp) {
                return Err(NpartyError::Usage(format!(
                    "--peer-fingerprint gives parties {k} and {j} the same certificate ({}): \
                     each party needs its own",
                    fingerprint_hex(fp)
                )));
            }
        }
        let own = identity.fingerprint();
        let set: Vec<[u8; 32]> = by_id.values().copied().collect();
        let config = TlsConfig::new(identity, PeerCheck::Pinned(set)).map_err(usage)?;
        Ok(MeshTls {
            config,
            own,
            peers: PeerAuth::Pinned(by_id),
        })
    }

    /// Every peer checked against the CA of `ca` (a [`PeerCheck::Ca`], e.g. from
    /// [`PeerCheck::load_ca`]); see the module docs for what this does not bind.
    pub fn with_ca(identity: Identity, ca: PeerCheck) -> Result<MeshTls, NpartyError> {
        if let PeerCheck::Pinned(_) = ca {
            return Err(NpartyError::Usage(
                "MeshTls::with_ca takes a CA; pins are per party id (MeshTls::pinned)".into(),
            ));
        }
        let own = identity.fingerprint();
        let config = TlsConfig::new(identity, ca).map_err(usage)?;
        Ok(MeshTls {
            config,
            own,
            peers: PeerAuth::Ca,
        })
    }

    /// The fingerprint of this party's own certificate, what the others pin for its id.
    pub fn fingerprint(&self) -> [u8; 32] {
        self.own
    }

    pub(crate) fn config(&self) -> &TlsConfig {
        &self.config
    }

    /// Party `me` of `n`: every other party has a pin, none beyond n, and a pin for `me`
    /// is this party's own certificate.
    pub(crate) fn check_parties(&self, me: usize, n: usize) -> Result<(), NpartyError> {
        let PeerAuth::Pinned(pins) = &self.peers else {
            return Ok(());
        };
        if let Some((&j, _)) = pins.range(n..).next() {
            return Err(NpartyError::Usage(format!(
                "--peer-fingerprint gives party {j}, but the parties are 0 to {}",
                n - 1
            )));
        }
        if let Some(fp) = pins.get(&me) {
            if *fp != self.own {
                return Err(NpartyError::Usage(format!(
                    "--peer-fingerprint {me}=… is this party's own id but not its certificate \
                     ({}, from --cert)",
                    fingerprint_hex(&self.own)
                )));
            }
        }
        match (0..n).find(|j| *j != me && !pins.contains_key(j)) {
            Some(j) => Err(NpartyError::Usage(format!(
                "no --peer-fingerprint {j}=HEX for party {j}: every other party needs a pin \
                 (or give --peer-ca)"
            ))),
            None => Ok(()),
        }
    }

    /// The pin of party `j` in words (`j=HEX`, or that the CA decides).
    pub(crate) fn pin_of(&self, j: usize) -> String {
        match &self.peers {
            PeerAuth::Pinned(pins) => pins.get(&j).map_or_else(
                || "none".into(),
                |fp| format!("--peer-fingerprint {j}={}", fingerprint_hex(fp)),
            ),
            PeerAuth::Ca => "none, any certificate from --peer-ca".into(),
        }
    }

    /// The link to the peer introduced as party `j` presented the certificate of
    /// fingerprint `presented`, which names what `named` accepts: is it party j's? The
    /// reason in words if not.
    pub(crate) fn check_peer(
        &self,
        j: usize,
        presented: Option<[u8; 32]>,
        named: impl Fn(&str) -> bool,
    ) -> Result<(), String> {
        let Some(got) = presented else {
            return Err(format!("party {j} presented no certificate"));
        };
        let pins = match &self.peers {
            PeerAuth::Pinned(pins) => pins,
            PeerAuth::Ca if named(&party_name(j)) => return Ok(()),
            PeerAuth::Ca => {
                return Err(format!(
                    "the peer claiming to be party {j} presented a certificate from the CA \
                     ({}) that does not name {}: with --peer-ca a party's certificate must \
                     name its id (mixgc keygen --party {j})",
                    fingerprint_hex(&got),
                    party_name(j)
                ))
            }
        };
        if pins.get(&j) == Some(&got) {
            return Ok(());
        }
        match pins.iter().find(|(_, fp)| **fp == got) {
            Some((k, _)) => Err(format!(
                "the peer claiming to be party {j} presented party {k}'s certificate (pinned \
                 --peer-fingerprint {k}={}); refused",
                fingerprint_hex(&got)
            )),
            None => Err(format!(
                "the peer claiming to be party {j} presented certificate {}, not the pinned \
                 --peer-fingerprint {j}=…",
                fingerprint_hex(&got)
            )),
        }
    }
}

/// The name a certificate from a CA must carry (a DNS name in its subjectAltName) to be
/// accepted as party `j`'s on a mesh checked with `--peer-ca`.
pub fn party_name(j: usize) -> String {
    format!("mixgc-party-{j}")
}

/// The TLS flags of an n-party command, as given: `--cert FILE --key FILE` and either
/// `--peer-fingerprint I=HEX` (repeatable) or `--peer-ca FILE`.
#[derive(Clone, Debug, Default)]
pub struct TlsFlags<'a> {
    pub cert: Option<&'a Path>,
    pub key: Option<&'a Path>,
    pub peer_fingerprints: &'a [String],
    pub peer_ca: Option<&'a Path>,
}

impl TlsFlags<'_> {
    /// The mesh's TLS setting: `None` without any TLS flag (plain TCP, loopback only unless
    /// insecure-plaintext); an inconsistent set of flags, an unreadable file or a bad pin
    /// is a usage error naming the flag. That every peer has a pin is checked when the
    /// mesh connects (it needs `--parties`).
    pub fn mesh_tls(&self) -> Result<Option<MeshTls>, NpartyError> {
        let bad = |why: &str| Err(NpartyError::Usage(why.into()));
        let any_peer = !self.peer_fingerprints.is_empty() || self.peer_ca.is_some();
        let (cert, key) = match (self.cert, self.key) {
            (None, None) if !any_peer => return Ok(None),
            (None, None) => return bad("--peer-fingerprint and --peer-ca need --cert and --key"),
            (Some(_), None) => return bad("--cert needs --key (this party's private key)"),
            (None, Some(_)) => return bad("--key needs --cert (this party's certificate)"),
            (Some(cert), Some(key)) => (cert, key),
        };
        let identity = Identity::load(cert, key).map_err(usage)?;
        match (self.peer_fingerprints.is_empty(), self.peer_ca) {
            (true, None) => {
                bad("--cert needs --peer-fingerprint I=HEX for every other party, or --peer-ca FILE")
            }
            (false, Some(_)) => bad("give --peer-fingerprint or --peer-ca, not both"),
            (true, Some(ca)) => {
                let ca = PeerCheck::load_ca(ca).map_err(usage)?;
                MeshTls::with_ca(identity, ca).map(Some)
            }
            (false, None) => {
                let pins = self
                    .peer_fingerprints
                    .iter()
                    .map(|s| parse_peer_pin(s))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(NpartyError::Usage)?;
                MeshTls::pinned(identity, &pins).map(Some)
            }
        }
    }
}

fn usage(e: mixgc_net::NetError) -> NpartyError {
    NpartyError::Usage(e.to_string())
}

/// Parses one `--peer-fingerprint I=HEX`: a party id and a SHA-256 fingerprint (64 hex
/// digits, colons allowed, as `mixgc keygen` prints it).
pub fn parse_peer_pin(s: &str) -> Result<(usize, [u8; 32]), String> {
    let (id, hex) = s.split_once('=').ok_or_else(|| {
        format!(
            "expected --peer-fingerprint I=HEX (a party id, '=', its certificate's fingerprint), got '{s}'"
        )
    })?;
    let id = id
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("'{id}' in --peer-fingerprint '{s}' is not a party id"))?;
    let fp = parse_fingerprint(hex.trim()).map_err(|e| format!("party {id}: {e}"))?;
    Ok((id, fp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> (Identity, [u8; 32]) {
        let k = mixgc_net::generate(&[], false).unwrap();
        (k.identity().unwrap(), k.fingerprint)
    }

    #[test]
    fn peer_pins_parse_and_bad_ones_are_named() {
        let hex = "ab".repeat(32);
        assert_eq!(parse_peer_pin(&format!("3={hex}")), Ok((3, [0xab; 32])));
        assert_eq!(
            parse_peer_pin(&format!(" 0 = {}", hex.to_uppercase())),
            Ok((0, [0xab; 32]))
        );
        assert!(parse_peer_pin(&hex).unwrap_err().contains("I=HEX"));
        assert!(parse_peer_pin(&format!("x={hex}")).unwrap_err().contains("'x'"));
        assert!(parse_peer_pin(&format!("-1={hex}"))
            .unwrap_err()
            .contains("not a party id"));
        assert!(parse_peer_pin("2=abc").unwrap_err().starts_with("party 2: "));
    }

    #[test]
    fn pins_are_checked_per_party() {
        let (me, own) = identity();
        let (p1, p2) = ([1; 32], [2; 32]);
        let tls = MeshTls::pinned(me, &[(0, own), (1, p1), (2, p2)]).unwrap();
        assert!(tls.check_parties(0, 3).is_ok());
        let e = tls.check_parties(0, 4).unwrap_err().to_string();
        assert!(e.contains("no --peer-fingerprint 3=HEX for party 3"), "{e}");
        let e = tls.check_parties(1, 2).unwrap_err().to_string();
        assert!(e.contains("gives party 2, but the parties are 0 to 1"), "{e}");
        let e = tls.check_parties(1, 3).unwrap_err().to_string();
        assert!(e.contains("own id but not its certificate"), "{e}");
        assert!(tls.check_peer(2, Some(p2), |_| true).is_ok());
        let e = tls.check_peer(2, Some(p1), |_| true).unwrap_err();
        assert!(
            e.contains("claiming to be party 2 presented party 1's certificate"),
            "{e}"
        );
        let e = tls.check_peer(1, Some([9; 32]), |_| true).unwrap_err();
        assert!(e.contains("not the pinned --peer-fingerprint 1="), "{e}");
        assert!(tls.check_peer(1, None, |_| true).is_err());
    }

    /// The flags as a command gets them: each inconsistent set is a usage error naming the
    /// flags; files are read; pins parsed.
    #[test]
    fn tls_flags_make_the_setting_or_name_what_is_wrong() {
        let k = mixgc_net::generate(&["127.0.0.1".into()], true).unwrap();
        let dir = std::env::temp_dir().join(format!("mixgc-tls-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cert, key, ca) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("ca.pem"));
        std::fs::write(&cert, &k.cert_pem).unwrap();
        std::fs::write(&key, &k.key_pem).unwrap();
        std::fs::write(&ca, &k.ca.as_ref().unwrap().0).unwrap();
        let pins = vec![format!("1={}", "cd".repeat(32))];
        let flags = |c: bool, kk: bool, p: bool, a: bool| TlsFlags {
            cert: c.then_some(cert.as_path()),
            key: kk.then_some(key.as_path()),
            peer_fingerprints: if p { &pins } else { &[] },
            peer_ca: a.then_some(ca.as_path()),
        };
        assert!(flags(false, false, false, false).mesh_tls().unwrap().is_none());
        let pinned = flags(true, true, true, false).mesh_tls().unwrap().unwrap();
        assert_eq!(pinned.fingerprint(), k.fingerprint);
        assert!(pinned.check_peer(1, Some([0xcd; 32]), |_| false).is_ok());
        let by_ca = flags(true, true, false, true).mesh_tls().unwrap().unwrap();
        assert!(by_ca
            .check_peer(1, Some([0xcd; 32]), |n| n == "mixgc-party-1")
            .is_ok());
        let e = by_ca
            .check_peer(2, Some([0xcd; 32]), |n| n == "mixgc-party-1")
            .unwrap_err();
        assert!(e.contains("does not name mixgc-party-2"), "{e}");
        for (f, want) in [
            (flags(false, false, true, false), "need --cert and --key"),
            (flags(true, false, true, false), "--cert needs --key"),
            (flags(false, true, true, false), "--key needs --cert"),
            (flags(true, true, false, false), "--cert needs --peer-fingerprint"),
            (flags(true, true, true, true), "not both"),
        ] {
            let e = f.mesh_tls().unwrap_err();
            assert!(
                matches!(e, NpartyError::Usage(_)) && e.to_string().contains(want),
                "{e}"
            );
        }
        let bad_pin = [String::from("1=zz")];
        let e = TlsFlags {
            peer_fingerprints: &bad_pin,
            ..flags(true, true, false, false)
        }
        .mesh_tls()
        .unwrap_err();
        assert!(e.to_string().starts_with("party 1: expected a SHA-256"), "{e}");
        let missing = dir.join("missing.pem");
        let e = TlsFlags {
            cert: Some(&missing),
            ..flags(true, true, true, false)
        }
        .mesh_tls()
        .unwrap_err();
        assert!(e.to_string().contains("missing.pem"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn duplicate_pins_are_usage_errors() {
        let e = MeshTls::pinned(identity().0, &[(1, [1; 32]), (1, [2; 32])]).unwrap_err();
        assert!(e.to_string().contains("party 1 twice"), "{e}");
        let e = MeshTls::pinned(identity().0, &[(1, [1; 32]), (4, [1; 32])]).unwrap_err();
        assert!(
            e.to_string().contains("parties 1 and 4 the same certificate"),
            "{e}"
        );
        let e = MeshTls::with_ca(identity().0, PeerCheck::Pinned(vec![])).unwrap_err();
        assert!(matches!(e, NpartyError::Usage(_)), "{e}");
    }
}
