//! `mixgc keygen`: a private key and certificate for TLS between the parties.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use mixgc_net::{fingerprint_hex, generate};

use crate::{write_stdout, CliError};

#[derive(Args, Debug)]
#[command(
    after_help = "Writes DIR/key.pem (the private key, mode 0600) and DIR/cert.pem, and prints the \
certificate's SHA-256 fingerprint on stdout. Give the peer the fingerprint (--peer-fingerprint) or, \
with --ca, DIR/ca.pem (--peer-ca); keep key.pem to yourself. Existing files are never overwritten. \
Example:\n  mixgc keygen --out garbler      # prints the garbler's fingerprint\n  mixgc keygen --out evaluator\n  \
mixgc run --circuit circuits/adder64.txt --role garbler --listen 0.0.0.0:7000 --cert garbler/cert.pem \
--key garbler/key.pem --peer-fingerprint EVALUATOR_HEX --input 5\n  \
mixgc run --circuit circuits/adder64.txt --role evaluator --connect HOST:7000 --cert evaluator/cert.pem \
--key evaluator/key.pem --peer-fingerprint GARBLER_HEX --input 7"
)]
pub struct KeygenArgs {
    /// Directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also make a CA (DIR/ca.pem) and sign the certificate with it, for a peer that checks
    /// with --peer-ca; the CA's key is discarded once it has signed.
    #[arg(long)]
    ca: bool,
    /// Names in the certificate (DNS names or IP addresses; repeat or comma-separate). With
    /// --peer-ca a listener's certificate must name the host its peer gives to --connect.
    #[arg(long, value_name = "NAME", value_delimiter = ',', default_values = ["localhost", "127.0.0.1", "::1"])]
    name: Vec<String>,
    /// Also name this party's id for n-party runs checked with --peer-ca (adds the DNS name
    /// mixgc-party-ID; a peer checking with the CA accepts the certificate only as that id).
    #[arg(long, value_name = "ID", value_parser = clap::value_parser!(u16).range(0..64))]
    party: Option<u16>,
}

pub fn keygen(args: KeygenArgs) -> Result<(), CliError> {
    let key_path = args.out.join("key.pem");
    let cert_path = args.out.join("cert.pem");
    let ca_path = args.out.join("ca.pem");
    let mut targets = vec![&key_path, &cert_path];
    if args.ca {
        targets.push(&ca_path);
    }
    for path in &targets {
        if path.exists() {
            return Err(format!("{} already exists: give another --out directory", path.display()).into());
        }
    }
    let mut names = args.name.clone();
    names.extend(args.party.map(|id| mixgc_nparty::party_name(id.into())));
    let made = generate(&names, args.ca)?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    write_new(&key_path, &made.key_pem, true)?;
    write_new(&cert_path, &made.cert_pem, false)?;
    eprintln!(
        "wrote {} (private: keep it to yourself) and {} naming {}",
        key_path.display(),
        cert_path.display(),
        names.join(", ")
    );
    if let Some((ca_pem, ca_fp)) = &made.ca {
        write_new(&ca_path, ca_pem, false)?;
        eprintln!(
            "wrote {}, the CA that signed it (SHA-256 {}): the peer checks with --peer-ca {}",
            ca_path.display(),
            fingerprint_hex(ca_fp),
            ca_path.display()
        );
    }
    eprintln!("the certificate's SHA-256 fingerprint (for the peer's --peer-fingerprint):");
    write_stdout(&format!("{}\n", fingerprint_hex(&made.fingerprint)))
}

/// Writes `text` to a new file at `path` (never over an existing one); `private` makes it
/// readable by the owner only.
fn write_new(path: &Path, text: &str, private: bool) -> Result<(), CliError> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            format!("{} already exists: give another --out directory", path.display())
        }
        _ => format!("cannot create {}: {e}", path.display()),
    })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}
