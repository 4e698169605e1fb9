//! Transport between the two parties. Cores never touch sockets; the session layer moves
//! their bytes through a [`Channel`]: TCP or TLS 1.3 for real runs, in-memory for tests,
//! an emulated link (rate and latency) for measurements.

mod channel;
mod credit;
mod error;
mod frame;
mod link;
mod memory;
mod peer;
mod queued;
mod record;
mod record_aead;
mod record_fuzz;
mod tcp;
mod tls;
mod tls_handshake;
mod tls_inbound;
mod tls_link;
mod transcript;

pub use channel::{Channel, ChannelExt};
pub use credit::{CreditChannel, ACK_EVERY, ACK_TICK, CREDIT_WINDOW, MAX_DRAINED, MAX_RECORD};
pub use error::{seconds, Divergence, NetError, PeerMisbehaved};
pub use frame::{
    last_words, peer_abort, recv_frame, recv_frame_header, recv_frame_into, send_abort, send_frame,
    send_heartbeat, Tag, MAX_ABORT_BYTES, MAX_FRAME_BYTES,
};
pub use link::{link_pair, LinkChannel};
pub use memory::{memory_pair, memory_pair_holding, MemoryChannel};
pub use peer::PeerChannel;
pub use queued::{QueuedChannel, MAX_QUEUED};
pub use record_fuzz::fuzz_tls_records;
pub use tcp::{TcpChannel, TcpReader, TcpWriter, CONNECT_RETRY};
pub use tls::{
    fingerprint, fingerprint_hex, generate, parse_fingerprint, Identity, KeyMaterial, PeerCheck, TlsChannel,
    TlsConfig,
};
pub use transcript::TranscriptChannel;
